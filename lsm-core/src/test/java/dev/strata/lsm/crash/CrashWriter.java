package dev.strata.lsm.crash;

import dev.strata.lsm.LsmStore;

import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/**
 * The child process of {@link CrashRecoveryTest}: opens the store and issues the writes of
 * {@link CrashWorkload} one after another, forever, until the parent kills it.
 *
 * <p>Arguments: store directory, first write id, seed. Protocol on stdout, one line each:
 * {@code S} when main starts, {@code O} once the store is open (recovery is done),
 * {@code B <id>} just before write {@code id} is handed to the store and
 * {@code A <id>} right after the call returned. A write whose {@code A} line the parent
 * has read was acknowledged and must survive the kill; a write with only a {@code B} line
 * may or may not have been applied, but only as a whole.
 */
public final class CrashWriter {
    private CrashWriter() {
    }

    public static void main(String[] args) throws IOException {
        if (args.length != 3) {
            System.err.println("usage: CrashWriter <store dir> <first id> <seed>");
            System.exit(2);
        }
        Path dir = Path.of(args[0]);
        long id = Long.parseLong(args[1]);
        long seed = Long.parseLong(args[2]);
        // Unbuffered: each line is one write(2) to the pipe (atomic below PIPE_BUF), so the
        // parent sees an announcement before the store sees the write, and an
        // acknowledgement only after the call returned.
        FileOutputStream out = new FileOutputStream(FileDescriptor.out);
        emit(out, "S");
        CrashWorkload workload = new CrashWorkload(seed);
        LsmStore store = LsmStore.open(dir, CrashWorkload.config(seed));
        emit(out, "O");
        // Never closed: the parent's SIGKILL is the only way this loop ends.
        while (true) {
            CrashWorkload.Write w = workload.plan(id);
            emit(out, "B " + id);
            switch (w.kind()) {
                case PUT, REPUT -> store.put(w.ops().get(0).key(), w.ops().get(0).value());
                case DELETE -> store.delete(w.ops().get(0).key());
                case RANGE -> store.deleteRange(w.ops().get(0).key(), w.ops().get(0).rangeEnd());
                case BATCH -> store.write(w.toBatch());
            }
            emit(out, "A " + id);
            id++;
        }
    }

    private static void emit(FileOutputStream out, String line) throws IOException {
        out.write((line + "\n").getBytes(StandardCharsets.US_ASCII));
    }
}
