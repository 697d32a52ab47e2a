package dev.strata.lsm.crash;

import dev.strata.lsm.ColumnFamily;
import dev.strata.lsm.FamilyOptions;
import dev.strata.lsm.LsmStore;
import dev.strata.lsm.StoreConfig;
import dev.strata.lsm.WriteBatch;
import dev.strata.lsm.backup.BackupInfo;
import dev.strata.lsm.backup.Backups;

import dev.strata.lsm.testkit.TestKeys;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The child process of {@link BackupKillTest}: a writer thread puts keys {@code 1, 2, 3, ...}
 * (with families, each in one batch into the default family and family {@code a}) while the
 * main thread takes backups one after the other until killed.
 *
 * <p>Arguments: store directory, backup directory, {@code default} or {@code family}, first
 * key. Protocol on stdout: {@code O} once open, {@code S <acked>} before {@code create} (the
 * last key acknowledged then), {@code C <id> <ms>} after it returned.
 */
public final class BackupKillChild {
    private BackupKillChild() {
    }

    static StoreConfig config(boolean families) {
        StoreConfig.Builder b = StoreConfig.builder().memtableBytes(48 << 10);
        if (families) {
            b.family("a", FamilyOptions.builder().memtableBytes(80 << 10).build());
        }
        return b.build();
    }

    static byte[] key(long i) {
        return TestKeys.padded("k", i, 9).getBytes(StandardCharsets.US_ASCII);
    }

    static byte[] value(long i, String family) {
        return (family + ":" + i + ":" + "x".repeat((int) (i % 70))).getBytes(StandardCharsets.US_ASCII);
    }

    public static void main(String[] args) throws Exception {
        Path dir = Path.of(args[0]);
        Path backupDir = Path.of(args[1]);
        boolean families = args[2].equals("family");
        long first = Long.parseLong(args[3]);
        FileOutputStream out = new FileOutputStream(FileDescriptor.out);
        LsmStore store = LsmStore.open(dir, config(families));
        ColumnFamily a = families ? store.columnFamily("a") : null;
        Backups backups = Backups.open(backupDir);
        AtomicLong acked = new AtomicLong(first - 1);
        Thread writer = new Thread(() -> {
            for (long i = first; ; i++) {
                if (a != null) {
                    store.write(new WriteBatch().put(key(i), value(i, "default")).put(a, key(i), value(i, "a")));
                } else {
                    store.put(key(i), value(i, "default"));
                }
                acked.set(i);
            }
        }, "backup-kill-writer");
        writer.setDaemon(true);
        writer.start();
        emit(out, "O");
        while (true) {
            emit(out, "S " + acked.get());
            long t0 = System.nanoTime();
            BackupInfo info = backups.create(store);
            emit(out, "C " + info.id() + " " + (System.nanoTime() - t0) / 1_000_000);
        }
    }

    private static void emit(FileOutputStream out, String line) throws IOException {
        synchronized (out) {
            out.write((line + "\n").getBytes(StandardCharsets.US_ASCII));
        }
    }
}
