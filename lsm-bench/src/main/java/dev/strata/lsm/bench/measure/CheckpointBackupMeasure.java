package dev.strata.lsm.bench.measure;

import dev.strata.lsm.LsmStore;
import dev.strata.lsm.StoreConfig;
import dev.strata.lsm.backup.BackupInfo;
import dev.strata.lsm.backup.Backups;
import dev.strata.lsm.bench.workload.DiskUsage;
import dev.strata.lsm.bench.workload.RandomPermutation;
import dev.strata.lsm.bench.workload.RecordFormat;
import dev.strata.lsm.version.TableFiles;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.BitSet;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;

/**
 * {@code measure checkpoint}: loads a store with {@code --bytes} of key+value data (random
 * order puts, the workload driver's key and value format), then
 * <ol>
 * <li>times {@code LsmStore.checkpoint} while a writer thread keeps inserting new keys, and
 *     reports how the checkpoint's table files got there: hard-linked (sharing the store's
 *     inode) or copied, from the files' link counts right after the call; the checkpoint is
 *     then opened and a sample of keys checked;</li>
 * <li>takes a backup with {@link Backups}, overwrites {@code --change-percent} of the keys,
 *     flushes and lets the merges finish, takes a second backup, and reports each backup's
 *     time and {@link BackupInfo#bytesCopied()};</li>
 * <li>verifies the second backup, restores it into a new directory, opens that and checks
 *     a sample of keys: changed keys must hold their new values, the others the loaded ones,
 *     and the writer's keys must be there.</li>
 * </ol>
 * A wrong or missing key fails the command (exit code 1).
 */
@Command(name = "checkpoint", mixinStandardHelpOptions = true,
        description = "Load a store, time a checkpoint under writes, two incremental backups around a change of "
                + "some keys, then verify and restore the second backup and check keys.")
public final class CheckpointBackupMeasure implements Callable<Integer> {
    private static final long LOAD_SALT = 1;
    private static final long CHANGE_SALT = 2;
    private static final long WRITER_SALT = 3;

    @Option(names = "--bytes", description = "key+value bytes loaded; suffixes k, m, g (powers of 1000) "
            + "(default ${DEFAULT-VALUE})")
    String bytes = "2g";

    @Option(names = "--key-size", description = "bytes per key (default ${DEFAULT-VALUE})")
    int keySize = 16;

    @Option(names = "--value-size", description = "bytes per value (default ${DEFAULT-VALUE})")
    int valueSize = 1000;

    @Option(names = "--change-percent", description = "percent of the keys overwritten between the two backups "
            + "(default ${DEFAULT-VALUE})")
    double changePercent = 5;

    @Option(names = "--check-keys", description = "keys read back from the checkpoint and from the restored store "
            + "(default ${DEFAULT-VALUE})")
    int checkKeys = 20_000;

    @Option(names = "--seed", description = "seed of the load order, values and the changed keys "
            + "(default ${DEFAULT-VALUE})")
    long seed = 1;

    @Option(names = "--config", description = "Strata store configuration (XML) (default: Strata's defaults)")
    Path config;

    @Option(names = "--dir", description = "scratch directory, deleted first and at the end "
            + "(default: a directory under java.io.tmpdir)")
    Path dir = Path.of(System.getProperty("java.io.tmpdir"), "strata-checkpoint-bench");

    @Option(names = "--keep", description = "keep the scratch directory")
    boolean keep;

    @Override
    public Integer call() throws Exception {
        run(System.out);
        return 0;
    }

    /** Parses {@code 2g}, {@code 500m}, {@code 64k} or a plain number of bytes (powers of 1000). */
    static long parseBytes(String s) {
        String t = s.trim().toLowerCase(Locale.ROOT);
        long unit = 1;
        if (t.endsWith("k")) {
            unit = 1_000L;
        } else if (t.endsWith("m")) {
            unit = 1_000_000L;
        } else if (t.endsWith("g")) {
            unit = 1_000_000_000L;
        }
        if (unit != 1) {
            t = t.substring(0, t.length() - 1);
        }
        try {
            double v = Double.parseDouble(t);
            if (!(v > 0)) {
                throw new NumberFormatException();
            }
            return Math.round(v * unit);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("--bytes must be a positive size such as 2g, 500m or 1000000, got '"
                    + s + "'");
        }
    }

    void run(PrintStream out) throws Exception {
        long totalBytes = parseBytes(bytes);
        if (keySize < RecordFormat.MIN_KEY_SIZE || valueSize < 1 || !(changePercent > 0 && changePercent <= 100)
                || checkKeys < 1) {
            throw new IllegalArgumentException("--key-size must be >= " + RecordFormat.MIN_KEY_SIZE + ", --value-size "
                    + ">= 1, --change-percent in (0, 100], --check-keys >= 1");
        }
        RecordFormat format = new RecordFormat(keySize, valueSize, seed);
        long records = Math.max(1, (totalBytes + format.recordBytes() - 1) / format.recordBytes());
        if (records > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("--bytes gives more than 2^31 records; use larger values");
        }
        StoreConfig cfg = config == null ? StoreConfig.defaults() : StoreConfig.fromXml(config);
        Scratch.deleteTree(dir);
        Files.createDirectories(dir);
        Path storeDir = dir.resolve("store");
        Path checkpointDir = dir.resolve("checkpoint");
        Path backupDir = dir.resolve("backups");
        Path restoreDir = dir.resolve("restored");
        out.printf(Locale.ROOT, "checkpoint and backup: %,d records of %d-byte keys and %d-byte values (%.2f GB of "
                        + "key+value bytes) in %s; policy %s%n", records, keySize, valueSize,
                records * format.recordBytes() / 1e9, dir, cfg.mergePolicyNamed() ? cfg.mergePolicy()
                        : "not named (a new store's default: " + StoreConfig.NEW_STORE_MERGE_POLICY + " with lsm-policies)");
        BitSet changed = new BitSet((int) records);
        long writerKeys;
        try (LsmStore store = LsmStore.open(storeDir, cfg)) {
            load(store, format, records, out);
            writerKeys = checkpointUnderWrites(store, cfg, format, records, storeDir, checkpointDir, out);
            Scratch.deleteTree(checkpointDir);

            Backups backups = Backups.open(backupDir);
            // Table bytes written from here to the second backup are what it cannot share with the first:
            // the change's flushes, and merges, including one the first backup's own flush starts.
            long flushedBefore = store.stats().flushBytesWritten();
            long mergedBefore = store.stats().mergeBytesWritten();
            BackupInfo first = timedBackup(backups, store, "backup 1 (full)", out);

            long change = Math.max(1, Math.round(records * changePercent / 100));
            RandomPermutation pick = new RandomPermutation(records, seed + 1);
            long c0 = System.nanoTime();
            for (long i = 0; i < change; i++) {
                long r = pick.apply(i);
                changed.set((int) r);
                store.put(format.key(r), format.value(r, CHANGE_SALT));
            }
            long c1 = System.nanoTime();
            store.flush();
            store.awaitMerges();
            long c2 = System.nanoTime();
            out.printf(Locale.ROOT, "changed %,d keys (%.1f%%) in %.2f s, then flush and merges %.2f s; since backup 1 "
                            + "began, flushes wrote %,d bytes and merges %,d bytes; store now %,d bytes on disk%n", change,
                    changePercent, (c1 - c0) / 1e9, (c2 - c1) / 1e9,
                    store.stats().flushBytesWritten() - flushedBefore, store.stats().mergeBytesWritten() - mergedBefore,
                    DiskUsage.apparentBytesOf(storeDir));

            BackupInfo second = timedBackup(backups, store, "backup 2 (incremental)", out);
            out.printf(Locale.ROOT, "backup 2 copied %.1f%% of its bytes (backup 1: %.1f%%); backup directory %,d "
                            + "bytes%n", 100.0 * second.bytesCopied() / second.bytes(),
                    100.0 * first.bytesCopied() / first.bytes(), DiskUsage.apparentBytesOf(backupDir));

            long v0 = System.nanoTime();
            backups.verify(second.id());
            long v1 = System.nanoTime();
            backups.restore(second.id(), restoreDir);
            long v2 = System.nanoTime();
            out.printf(Locale.ROOT, "verify backup %d: %.2f s; restore: %.2f s (%,d bytes, %.0f MB/s)%n", second.id(),
                    (v1 - v0) / 1e9, (v2 - v1) / 1e9, second.bytes(), second.bytes() / 1e6 / ((v2 - v1) / 1e9));
        }
        try (LsmStore restored = LsmStore.open(restoreDir, cfg)) {
            int checked = check(restored, format, records, changed, writerKeys, "restored backup");
            out.printf(Locale.ROOT, "restored store: %,d keys checked (changed keys hold their new values, the others "
                    + "the loaded ones, the writer's keys are there): ok%n", checked);
        }
        if (keep) {
            out.println("kept " + dir);
        } else {
            Scratch.deleteTree(dir);
        }
    }

    private void load(LsmStore store, RecordFormat format, long records, PrintStream out) throws IOException {
        RandomPermutation order = new RandomPermutation(records, seed);
        long t0 = System.nanoTime();
        for (long i = 0; i < records; i++) {
            long r = order.apply(i);
            store.put(format.key(r), format.value(r, LOAD_SALT));
        }
        long t1 = System.nanoTime();
        store.flush();
        store.awaitMerges();
        long t2 = System.nanoTime();
        out.printf(Locale.ROOT, "load: %,d puts in random order in %.1f s (%.0f puts/s), flush and merges %.1f s; store "
                        + "%,d bytes on disk, tables per level %s%n", records, (t1 - t0) / 1e9,
                records / ((t1 - t0) / 1e9), (t2 - t1) / 1e9, DiskUsage.apparentBytesOf(store.directory()),
                Arrays.toString(store.stats().componentsPerLevel()));
    }

    /**
     * Times the checkpoint while a thread inserts new keys (records, records+1, …); returns how
     * many of them were acknowledged in all, every one of which the later backups must hold.
     */
    private long checkpointUnderWrites(LsmStore store, StoreConfig cfg, RecordFormat format, long records,
                                       Path storeDir, Path checkpointDir, PrintStream out) throws Exception {
        AtomicLong acknowledged = new AtomicLong();
        AtomicReference<Throwable> failed = new AtomicReference<>();
        java.util.concurrent.atomic.AtomicBoolean stop = new java.util.concurrent.atomic.AtomicBoolean();
        Thread writer = new Thread(() -> {
            try {
                for (long i = 0; !stop.get(); i++) {
                    long r = records + i;
                    store.put(format.key(r), format.value(r, WRITER_SALT));
                    acknowledged.set(i + 1);
                }
            } catch (Throwable e) {
                failed.set(e);
            }
        }, "checkpoint-bench-writer");
        writer.start();
        Thread.sleep(1000);
        long before = acknowledged.get();
        long w0 = System.nanoTime();
        long t0 = System.nanoTime();
        store.checkpoint(checkpointDir);
        long t1 = System.nanoTime();
        long during = acknowledged.get() - before;
        Links links = links(storeDir, checkpointDir);
        Thread.sleep(1000);
        stop.set(true);
        writer.join();
        long w1 = System.nanoTime();
        if (failed.get() != null) {
            throw new IllegalStateException("the writer failed during the checkpoint: " + failed.get(), failed.get());
        }
        long total = acknowledged.get();
        out.printf(Locale.ROOT, "checkpoint under writes: %.3f s; %d table files, %,d bytes hard-linked, %,d bytes "
                        + "copied%s; %,d bytes of manifest and CURRENT written; the writer put %,d keys during the "
                        + "call (%,.0f puts/s over its %.1f s)%n", (t1 - t0) / 1e9, links.tables, links.linkedBytes,
                links.copiedBytes, links.unknownBytes == 0 ? "" : String.format(Locale.ROOT,
                        ", %,d bytes in files the store deleted since (linked or copied, unknown)", links.unknownBytes),
                links.otherBytes, during, total / ((w1 - w0) / 1e9), (w1 - w0) / 1e9);
        try (LsmStore cp = LsmStore.open(checkpointDir, cfg)) {
            int checked = check(cp, format, records, new BitSet(), before, "checkpoint");
            out.printf(Locale.ROOT, "checkpoint opened: %,d keys checked (loaded keys, and the writer's keys "
                    + "acknowledged before the call): ok%n", checked);
        }
        return total;
    }

    /** How a checkpoint's files relate to the store's, by link count and inode, right after the call. */
    private record Links(int tables, long linkedBytes, long copiedBytes, long unknownBytes, long otherBytes) {
    }

    private static Links links(Path storeDir, Path checkpointDir) throws IOException {
        int tables = 0;
        long linked = 0;
        long copied = 0;
        long unknown = 0;
        long other = 0;
        List<Path> files;
        try (Stream<Path> s = Files.list(checkpointDir)) {
            files = s.filter(Files::isRegularFile).toList();
        }
        for (Path f : files) {
            long size = Files.size(f);
            String name = f.getFileName().toString();
            if (!name.endsWith(TableFiles.SUFFIX)) {
                other += size;
                continue;
            }
            tables++;
            int nlink = ((Number) Files.getAttribute(f, "unix:nlink")).intValue();
            Path mine = storeDir.resolve(name);
            if (nlink >= 2 || (Files.exists(mine) && Files.isSameFile(mine, f))) {
                linked += size;
            } else if (Files.exists(mine)) {
                copied += size;
            } else {
                unknown += size;
            }
        }
        return new Links(tables, linked, copied, unknown, other);
    }

    private static BackupInfo timedBackup(Backups backups, LsmStore store, String what, PrintStream out) {
        long t0 = System.nanoTime();
        BackupInfo info = backups.create(store);
        long t1 = System.nanoTime();
        out.printf(Locale.ROOT, "%s: id %d, %.2f s, %d files, %,d bytes, bytesCopied %,d%n", what, info.id(),
                (t1 - t0) / 1e9, info.fileCount(), info.bytes(), info.bytesCopied());
        return info;
    }

    /**
     * Reads {@code checkKeys} loaded keys (first, last, the rest random) and up to
     * {@code checkKeys} of the writer's first {@code writerKeys} keys; throws on the first
     * missing or wrong value. Returns the keys checked.
     */
    private int check(LsmStore store, RecordFormat format, long records, BitSet changed, long writerKeys,
                      String what) {
        SplittableRandom random = new SplittableRandom(seed ^ 0x5DEECE66DL);
        int checked = 0;
        for (int i = 0; i < checkKeys; i++) {
            long r = i == 0 ? 0 : i == 1 ? records - 1 : random.nextLong(records);
            long salt = changed.get((int) r) ? CHANGE_SALT : LOAD_SALT;
            expect(store, format, r, salt, what);
            checked++;
        }
        // The changed keys themselves, not only those the random draw hits.
        for (int r = changed.nextSetBit(0), n = 0; r >= 0 && n < checkKeys; r = changed.nextSetBit(r + 1), n++) {
            expect(store, format, r, CHANGE_SALT, what);
            checked++;
        }
        for (long i = 0, n = Math.min(writerKeys, checkKeys); i < n; i++) {
            long r = records + (n == 1 ? 0 : i * (writerKeys - 1) / (n - 1));
            expect(store, format, r, WRITER_SALT, what);
            checked++;
        }
        return checked;
    }

    private static void expect(LsmStore store, RecordFormat format, long record, long salt, String what) {
        byte[] got = store.get(format.key(record));
        if (!Arrays.equals(got, format.value(record, salt))) {
            throw new IllegalStateException(what + ": record " + record + (got == null ? " is missing" : " has a wrong "
                    + "value"));
        }
    }
}
