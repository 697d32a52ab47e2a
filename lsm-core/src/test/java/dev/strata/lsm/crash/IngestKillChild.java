package dev.strata.lsm.crash;

import dev.strata.lsm.ColumnFamily;
import dev.strata.lsm.FamilyOptions;
import dev.strata.lsm.IngestOptions;
import dev.strata.lsm.LsmStore;
import dev.strata.lsm.StoreConfig;
import dev.strata.lsm.TableWriter;

import dev.strata.lsm.testkit.TestKeys;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * The child process of {@link IngestKillTest}: ingests round after round until killed. Round
 * {@code r} writes {@link #FILES} tables with {@link TableWriter} that together cover keys
 * {@code 0..keys-1} ({@link #content}: a put of a value naming the round, or a delete), ingests
 * them in one call (deleting the files after every other round), then puts
 * {@code key(r % keys)} = {@code "w:r"} through the store, and, with families, a batch of puts
 * into the default family between ingests so the WAL holds other families' writes. Every
 * round replaces all keys, so a store holds one round's content (and at most its put).
 *
 * <p>Arguments: store directory, files directory, {@code default} or {@code family} (ingest
 * into family {@code a}), first round, keys per round. Protocol on stdout: {@code O} once
 * open, {@code I <r>} before the ingest call, {@code A <r> <ms>} after it returned (and how
 * long it took), {@code V <r>} before the put, {@code W <r>} after it.
 */
public final class IngestKillChild {
    static final int FILES = 3;

    private IngestKillChild() {
    }

    static StoreConfig config(boolean families) {
        StoreConfig.Builder b = StoreConfig.builder().memtableBytes(64 << 10);
        if (families) {
            b.family("a", FamilyOptions.builder().memtableBytes(96 << 10).build());
        }
        return b.build();
    }

    static byte[] key(int i) {
        return TestKeys.padded("k", i, 7).getBytes(StandardCharsets.US_ASCII);
    }

    /** Round {@code round}'s value of key {@code i}, or null for a delete. */
    static byte[] content(int round, int i) {
        if ((i + round) % 11 == 0) {
            return null;
        }
        return (round + ":" + i + ":" + "v".repeat(40 + i % 60)).getBytes(StandardCharsets.US_ASCII);
    }

    static byte[] putValue(int round) {
        return ("w:" + round).getBytes(StandardCharsets.US_ASCII);
    }

    static byte[] defaultKey(int round) {
        return TestKeys.padded("d", round, 7).getBytes(StandardCharsets.US_ASCII);
    }

    public static void main(String[] args) throws IOException {
        Path dir = Path.of(args[0]);
        Path filesDir = Path.of(args[1]);
        boolean families = args[2].equals("family");
        int round = Integer.parseInt(args[3]);
        int keys = Integer.parseInt(args[4]);
        FileOutputStream out = new FileOutputStream(FileDescriptor.out);
        StoreConfig config = config(families);
        LsmStore store = LsmStore.open(dir, config);
        ColumnFamily target = families ? store.columnFamily("a") : store.defaultColumnFamily();
        emit(out, "O");
        while (true) {
            Path roundDir = filesDir.resolve("round-" + round);
            deleteTree(roundDir);
            Files.createDirectories(roundDir);
            List<Path> files = new ArrayList<>();
            for (int f = 0; f < FILES; f++) {
                Path file = roundDir.resolve("part-" + f + ".sst");
                try (TableWriter w = TableWriter.create(file, config)) {
                    for (int i = f * keys / FILES; i < (f + 1) * keys / FILES; i++) {
                        byte[] v = content(round, i);
                        if (v == null) {
                            w.delete(key(i));
                        } else {
                            w.put(key(i), v);
                        }
                    }
                    w.finish();
                }
                files.add(file);
            }
            if (families) {
                store.put(defaultKey(round), putValue(round));
            }
            emit(out, "I " + round);
            long t0 = System.nanoTime();
            store.ingest(target, files, IngestOptions.defaults().deleteFiles(round % 2 == 0));
            emit(out, "A " + round + " " + (System.nanoTime() - t0) / 1_000_000);
            deleteTree(roundDir);
            emit(out, "V " + round);
            store.put(target, key(round % keys), putValue(round));
            emit(out, "W " + round);
            round++;
        }
    }

    private static void deleteTree(Path root) throws IOException {
        if (!Files.exists(root)) {
            return;
        }
        try (Stream<Path> walk = Files.walk(root)) {
            for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }

    private static void emit(FileOutputStream out, String line) throws IOException {
        out.write((line + "\n").getBytes(StandardCharsets.US_ASCII));
    }
}
