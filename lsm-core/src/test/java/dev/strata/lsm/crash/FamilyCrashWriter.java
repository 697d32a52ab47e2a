package dev.strata.lsm.crash;

import dev.strata.lsm.ColumnFamily;
import dev.strata.lsm.FamilyOptions;
import dev.strata.lsm.LsmStore;
import dev.strata.lsm.StoreConfig;
import dev.strata.lsm.WriteBatch;

import dev.strata.lsm.testkit.TestKeys;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/**
 * The child process of {@link FamilyKillTest}: writes cross-family batches until killed.
 * Batch {@code id} puts {@code key(id)} into the default family and families {@code a} and
 * {@code b} (value {@link #value}), and when {@code id % 7 == 0} also deletes
 * {@code key(id - 3)} from {@code b}; every 40th batch it flushes family {@code a} alone, so
 * the families' WAL replay points differ. Small memtables make every family switch and flush
 * on its own too.
 *
 * <p>Arguments: store directory, first id, and optionally the WAL mode (default ASYNC). Protocol on stdout: {@code O} once open,
 * {@code B <id>} before a batch, {@code A <id>} after it returned.
 */
public final class FamilyCrashWriter {
    private FamilyCrashWriter() {
    }

    static StoreConfig config() {
        return config(dev.strata.lsm.WalSyncMode.ASYNC);
    }

    /** The store's configuration in WAL mode {@code mode} (in mode none its flushes are atomic across families). */
    static StoreConfig config(dev.strata.lsm.WalSyncMode mode) {
        return StoreConfig.builder().memtableBytes(64 << 10).walMode(mode)
                .family("a", FamilyOptions.builder().memtableBytes(96 << 10).build())
                .family("b", FamilyOptions.builder().mergePolicy("no-merge").build())
                .build();
    }

    static byte[] key(long id) {
        return TestKeys.padded("k", id, 9).getBytes(StandardCharsets.US_ASCII);
    }

    static byte[] value(long id, String family) {
        return (family + ":" + id + ":" + "x".repeat((int) (id % 50))).getBytes(StandardCharsets.US_ASCII);
    }

    public static void main(String[] args) throws IOException {
        Path dir = Path.of(args[0]);
        long id = Long.parseLong(args[1]);
        FileOutputStream out = new FileOutputStream(FileDescriptor.out);
        dev.strata.lsm.WalSyncMode mode = args.length > 2 ? dev.strata.lsm.WalSyncMode.valueOf(args[2])
                : dev.strata.lsm.WalSyncMode.ASYNC;
        LsmStore store = LsmStore.open(dir, config(mode));
        ColumnFamily a = store.columnFamily("a");
        ColumnFamily b = store.columnFamily("b");
        emit(out, "O");
        while (true) {
            WriteBatch batch = new WriteBatch().put(key(id), value(id, "default")).put(a, key(id), value(id, "a"))
                    .put(b, key(id), value(id, "b"));
            if (id % 7 == 0) {
                batch.delete(b, key(id - 3));
            }
            emit(out, "B " + id);
            store.write(batch);
            emit(out, "A " + id);
            if (id % 40 == 0) {
                store.flushColumnFamily(a);
            }
            id++;
        }
    }

    private static void emit(FileOutputStream out, String line) throws IOException {
        out.write((line + "\n").getBytes(StandardCharsets.US_ASCII));
    }
}
