package dev.strata.lsm.bench.measure;

import dev.strata.lsm.cache.BlockCache;
import dev.strata.lsm.io.CountingStorageIO;
import dev.strata.lsm.io.IoPurpose;
import dev.strata.lsm.io.OpenMode;
import dev.strata.lsm.io.PageFile;
import dev.strata.lsm.merge.MergingIterator;
import dev.strata.lsm.sstable.EntryType;
import dev.strata.lsm.sstable.InternalIterator;
import dev.strata.lsm.sstable.FinishedTable;
import dev.strata.lsm.sstable.InternalKeys;
import dev.strata.lsm.sstable.SSTableReader;
import dev.strata.lsm.sstable.SSTableWriter;
import dev.strata.lsm.sstable.TableIterator;
import dev.strata.lsm.sstable.TableOptions;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.Callable;

/**
 * {@code measure sstable}: SSTable build throughput (MB/s of user data, to the OS and
 * durable, and MB/s of the file's bytes, durable) and point-lookup rates with the block cache disabled and with every page cached,
 * each the median of several rounds on one thread. Moved here from lsm-core's tests.
 */
@Command(name = "sstable", mixinStandardHelpOptions = true,
        description = "Build one SSTable and look keys up in it; prints MB/s and lookups/s (medians of rounds).")
public final class SSTableThroughput implements Callable<Integer> {
    private static final int KEY_SIZE = 16;

    @Option(names = "--entries", description = "entries in the table (default ${DEFAULT-VALUE})")
    int entries = 3_000_000;

    @Option(names = "--rounds", description = "rounds of each measurement (default ${DEFAULT-VALUE})")
    int rounds = 5;

    @Option(names = "--warmup-rounds", description = "table builds before the measured rounds, printed but not in "
            + "the medians: the first build runs while the JIT compiles the writer (default ${DEFAULT-VALUE})")
    int warmupRounds = 1;

    @Option(names = "--value-size", description = "bytes of each value (default ${DEFAULT-VALUE})")
    int valueSize = 100;

    @Option(names = "--compression", description = "page codec: none (default), lz4, zstd or snappy")
    String compression = "none";

    @Option(names = "--lz4-acceleration", description = "LZ4's acceleration, 1 to 65537 (lz4Acceleration; "
            + "default ${DEFAULT-VALUE}, LZ4's and RocksDB's)")
    int lz4Acceleration = dev.strata.lsm.Compression.DEFAULT_LZ4_ACCELERATION;

    @Option(names = "--parallel-compression", arity = "0..1", fallbackValue = "true", description = "with a codec, "
            + "where pages are compressed: true (or the bare option) on the shared pool of compressor threads while "
            + "the build goes on, false on the building thread, auto on the pool while the process leaves a core "
            + "idle (parallelCompression; default ${DEFAULT-VALUE}, as a store's)")
    String parallelCompression = "auto";

    @Option(names = "--leaf-encoding", description = "leaf encoding: prefix (default; prefix-compressed keys with "
            + "restart points) or plain (format 1 and 2 leaves)")
    String leafEncoding = "prefix";

    @Option(names = "--restart-interval", description = "cells between restart points of prefix-compressed leaves "
            + "(default ${DEFAULT-VALUE})")
    int restartInterval = TableOptions.DEFAULT_RESTART_INTERVAL;

    @Option(names = "--value-compressibility", description = "values compress to about R of their size "
            + "(db_bench's compression_ratio; default ${DEFAULT-VALUE}: random values)")
    double valueCompressibility = 1.0;

    @Option(names = "--page-size", description = "page size in bytes (default: the table format's)")
    int pageSize = TableOptions.DEFAULT_PAGE_SIZE;

    @Option(names = "--merge-inputs", description = "also merge this many input tables holding the entries "
            + "between them (key i in table i mod N, read for a merge) into one new table, as a merge does; 0: no "
            + "merge (default ${DEFAULT-VALUE})")
    int mergeInputs = 0;

    @Option(names = "--lookups", description = "lookups per round (default ${DEFAULT-VALUE})")
    int lookups = 1_000_000;

    @Option(names = "--storage", description = "storage IO by name: nio (FileChannel, the default) or native "
            + "(lsm-io-native: O_DIRECT on table writes and merge reads, punch-holes)")
    String storage = "nio";

    @Option(names = "--storage-param", description = "storage IO parameter NAME=VALUE (repeatable), e.g. direct=false")
    java.util.Map<String, String> storageParams = new java.util.LinkedHashMap<>();

    @Option(names = "--dir", description = "scratch directory (default: a directory under java.io.tmpdir)")
    Path dir = Path.of(System.getProperty("java.io.tmpdir"), "strata-sst-bench");

    @Override
    public Integer call() throws Exception {
        run(System.out);
        return 0;
    }

    void run(PrintStream out) throws IOException {
        if (!(valueCompressibility > 0 && valueCompressibility <= 1)) {
            throw new IllegalArgumentException("--value-compressibility must be in (0, 1], got " + valueCompressibility);
        }
        if (entries < 1 || rounds < 1 || lookups < 0 || warmupRounds < 0 || mergeInputs < 0 || mergeInputs == 1
                || valueSize < 0) {
            throw new IllegalArgumentException("--entries and --rounds must be >= 1, --lookups, --warmup-rounds and "
                    + "--value-size >= 0, --merge-inputs 0 or >= 2");
        }
        Files.createDirectories(dir);
        TableOptions options = new TableOptions(pageSize, TableOptions.DEFAULT_BLOOM_BITS_PER_KEY)
                .withCompression(dev.strata.lsm.Compression.fromName(compression))
                .withLeafEncoding(dev.strata.lsm.LeafEncoding.fromName(leafEncoding), restartInterval)
                .withParallelCompression(dev.strata.lsm.ParallelCompression.fromName(parallelCompression))
                .withLz4Acceleration(lz4Acceleration);
        CountingStorageIO io = new CountingStorageIO(dev.strata.lsm.io.StorageIOs.create(storage, storageParams));
        byte[][] values = new byte[1024][valueSize];
        Random rnd = new Random(42);
        java.util.SplittableRandom text = new java.util.SplittableRandom(42);
        for (byte[] v : values) {
            if (valueCompressibility >= 1.0) {
                rnd.nextBytes(v);
            } else {
                dev.strata.lsm.bench.workload.RecordFormat.fill(v, text, valueCompressibility);
            }
        }
        double userMb = (double) entries * (KEY_SIZE + valueSize) / 1e6;
        out.printf("SSTable build: %d entries, %d B keys, %d B values (%.1f MB user data), %d B pages, storage %s %s, "
                + "compression %s%s%s, leaf encoding %s (restart interval %d), value compressibility %.2f%n", entries,
                KEY_SIZE, valueSize, userMb, pageSize, storage, storageParams, options.compression(),
                options.compression() != dev.strata.lsm.Compression.NONE
                        ? " (parallel compression " + options.parallelCompression() + ")" : "", options.compression() == dev.strata.lsm.Compression.LZ4
                        && lz4Acceleration > 1 ? " (acceleration " + lz4Acceleration + ")" : "", options.leafEncoding(), options.restartInterval(),
                valueCompressibility);

        double[] buildMbps = new double[rounds];
        double[] buildSyncMbps = new double[rounds];
        double[] fileSyncMbps = new double[rounds];
        Path path = dir.resolve("bench.sst");
        FinishedTable table = null;
        for (int w = -warmupRounds; w < rounds; w++) {
            int r = Math.max(0, w);
            Files.deleteIfExists(path);
            long t0 = System.nanoTime();
            long tWritten;
            try (PageFile file = io.open(path, OpenMode.CREATE_NEW, IoPurpose.FLUSH)) {
                SSTableWriter writer = new SSTableWriter(file, options);
                addEntries(writer, values, 0, 1);
                table = writer.finish();
                tWritten = System.nanoTime();
                file.force(false);
            }
            long tSynced = System.nanoTime();
            buildMbps[r] = userMb / ((tWritten - t0) / 1e9);
            buildSyncMbps[r] = userMb / ((tSynced - t0) / 1e9);
            fileSyncMbps[r] = Files.size(path) / 1e6 / ((tSynced - t0) / 1e9);
            out.printf("  %s: %.1f MB/s written to the OS, %.1f MB/s including fdatasync (file %.1f MB, height %d; "
                    + "%.1f MB/s of file bytes, durable)%n", roundName(w), buildMbps[r], buildSyncMbps[r],
                    Files.size(path) / 1e6, table.footer().height(), fileSyncMbps[r]);
        }
        dev.strata.lsm.sstable.Footer f = table.footer();
        long bloomPages = f.bloomPage() < 0 ? 0 : (f.bloomLength() + (long) pageSize - 1) / pageSize;
        long interiorPages = f.livePages() - f.leafCount() - f.overflowPageCount() - bloomPages - 1;
        out.printf("table: %d bytes (%.2f bytes per entry), %d leaves (%.2f entries per leaf), %d interior pages "
                + "(%.2f%% of the %d pages), %d bloom pages%n", Files.size(path), (double) Files.size(path) / entries,
                f.leafCount(), (double) entries / f.leafCount(), interiorPages, 100.0 * interiorPages / f.livePages(),
                f.livePages(), bloomPages);
        out.printf("build median: %.1f MB/s (to the OS), %.1f MB/s (durable); %.1f MB/s of file bytes (durable, "
                + "the figure to set beside dd's)%n", Scratch.median(buildMbps), Scratch.median(buildSyncMbps),
                Scratch.median(fileSyncMbps));

        try (PageFile file = io.open(path, OpenMode.READ, IoPurpose.READ)) {
            double[] uncached = new double[rounds];
            double[] cached = new double[rounds];
            SSTableReader cold = SSTableReader.open(file, table.footerOffset(), 1, BlockCache.disabled());
            BlockCache cache = BlockCache.create(Files.size(path) * 2);
            SSTableReader warm = SSTableReader.open(file, table.footerOffset(), 2, cache);
            for (int i = 0; i < entries; i += Math.max(1, entries / 100_000)) {
                warm.get(keyOf(i));
            }
            TableIterator it = warm.iterator();
            it.seekToFirst();
            while (it.valid()) {
                it.next();
            }
            for (int r = 0; r < rounds; r++) {
                uncached[r] = lookupRate(cold, lookups, r);
                cached[r] = lookupRate(warm, lookups, r);
                out.printf("  round %d: %.0f lookups/s block cache disabled, %.0f lookups/s cached%n",
                        r + 1, uncached[r], cached[r]);
            }
            out.printf("point lookups median: %.0f/s with the block cache disabled (OS page cache warm), "
                    + "%.0f/s with every page cached%n", Scratch.median(uncached), Scratch.median(cached));
            // Forward and backward scans of the whole table, every page cached: the cost of
            // stepping through cells (prefix-compressed leaves decode keys; prev rescans from
            // the restart point before the cell).
            double[] forward = new double[rounds];
            double[] backward = new double[rounds];
            for (int r = 0; r < rounds; r++) {
                long t0 = System.nanoTime();
                long n = 0;
                for (it.seekToFirst(); it.valid(); it.next()) {
                    n += it.key().length;
                }
                long t1 = System.nanoTime();
                for (it.seekToLast(); it.valid(); it.prev()) {
                    n -= it.key().length;
                }
                long t2 = System.nanoTime();
                if (n != 0) {
                    throw new IllegalStateException("forward and backward scans disagree");
                }
                forward[r] = entries / ((t1 - t0) / 1e9);
                backward[r] = entries / ((t2 - t1) / 1e9);
                out.printf("  round %d: %.0f entries/s scanning forward, %.0f entries/s backward (cached)%n", r + 1,
                        forward[r], backward[r]);
            }
            out.printf("scan median: %.0f entries/s forward, %.0f entries/s backward, every page cached%n",
                    Scratch.median(forward), Scratch.median(backward));
        }
        Files.deleteIfExists(path);
        if (mergeInputs >= 2) {
            merge(out, io, options, values);
        }
    }

    /**
     * The merge measurement: {@code mergeInputs} tables share the entries (key i in table i
     * mod N), and each round merges them, read through the storage IO as merge inputs, into one
     * new table, forced: durable MB/s of the output file's bytes, set beside dd's.
     */
    private void merge(PrintStream out, CountingStorageIO io, TableOptions options, byte[][] values)
            throws IOException {
        List<Path> inputs = new ArrayList<>();
        List<FinishedTable> inputTables = new ArrayList<>();
        long inputBytes = 0;
        for (int t = 0; t < mergeInputs; t++) {
            Path p = dir.resolve("merge-input-" + t + ".sst");
            Files.deleteIfExists(p);
            try (PageFile file = io.open(p, OpenMode.CREATE_NEW, IoPurpose.FLUSH)) {
                SSTableWriter writer = new SSTableWriter(file, options);
                addEntries(writer, values, t, mergeInputs);
                inputTables.add(writer.finish());
                file.force(false);
            }
            inputs.add(p);
            inputBytes += Files.size(p);
        }
        out.printf("merge: %d input tables of %d entries in all into one table%n", mergeInputs, entries);
        double[] fileMbps = new double[rounds];
        double[] writeMbps = new double[rounds];
        double[] copyMbps = new double[rounds];
        Path output = dir.resolve("merge-output.sst");
        for (int w = -warmupRounds; w < rounds; w++) {
            int r = Math.max(0, w);
            Files.deleteIfExists(output);
            List<PageFile> files = new ArrayList<>();
            long t0 = System.nanoTime();
            try (PageFile file = io.open(output, OpenMode.CREATE_NEW, IoPurpose.MERGE)) {
                List<InternalIterator> its = new ArrayList<>();
                for (int t = 0; t < mergeInputs; t++) {
                    PageFile in = io.open(inputs.get(t), OpenMode.READ, IoPurpose.MERGE);
                    files.add(in);
                    // Opened as the engine opens a merge's inputs.
                    its.add(SSTableReader.openForScan(in, inputTables.get(t).footerOffset(), 10 + t).iterator());
                }
                SSTableWriter writer = new SSTableWriter(file, options);
                try (MergingIterator merged = new MergingIterator(its)) {
                    merged.seekToFirst();
                    for (; merged.valid(); merged.next()) {
                        byte[] value = merged.valueArray();
                        writer.add(merged.key(), merged.seqno(), merged.type(), value, merged.valueOffset(),
                                merged.valueLength());
                    }
                }
                writer.finish();
                file.force(false);
            } finally {
                for (PageFile f : files) {
                    f.close();
                }
            }
            long t = System.nanoTime() - t0;
            long outputBytes = Files.size(output);
            fileMbps[r] = outputBytes / 1e6 / (t / 1e9);
            Files.deleteIfExists(output);
            writeMbps[r] = ioReference(io, List.of(), output, outputBytes);
            Files.deleteIfExists(output);
            copyMbps[r] = ioReference(io, inputs, output, outputBytes);
            out.printf("  %s: %.1f MB/s of output file bytes, durable (%.1f MB read, %.1f MB written); IO alone: "
                    + "write %.1f MB/s, read inputs while writing %.1f MB/s%n", roundName(w), fileMbps[r],
                    inputBytes / 1e6, outputBytes / 1e6, writeMbps[r], copyMbps[r]);
        }
        out.printf("merge median: %.1f MB/s of output file bytes (durable, the figure to set beside dd's)%n",
                Scratch.median(fileMbps));
        out.printf("IO alone through the same storage, 1 MiB at a time, forced (medians): write %.1f MB/s (dd's "
                + "figure), read the inputs while writing %.1f MB/s (the merge's IO without its CPU); merge = %.0f%% "
                + "of the write, %.0f%% of the read-while-write%n", Scratch.median(writeMbps),
                Scratch.median(copyMbps), 100 * Scratch.median(fileMbps) / Scratch.median(writeMbps),
                100 * Scratch.median(fileMbps) / Scratch.median(copyMbps));
        Files.deleteIfExists(output);
        for (Path p : inputs) {
            Files.deleteIfExists(p);
        }
    }

    /**
     * A merge's IO without its CPU, through {@code io}: writes {@code bytes} to {@code output}
     * 1 MiB at a time (handing each buffer on as a table writer does) and forces it, reading
     * {@code inputs} 1 MiB at a time as merge inputs in between (none: a plain write, dd's
     * pattern); returns the durable MB/s of the bytes written.
     */
    private static double ioReference(CountingStorageIO io, List<Path> inputs, Path output, long bytes)
            throws IOException {
        int chunk = 1 << 20;
        java.nio.ByteBuffer writeBuffer = dev.strata.lsm.io.AlignedBuffers.allocate(chunk,
                dev.strata.lsm.io.AlignedBuffers.PAGE_ALIGNMENT);
        java.nio.ByteBuffer readBuffer = dev.strata.lsm.io.AlignedBuffers.allocate(chunk,
                dev.strata.lsm.io.AlignedBuffers.PAGE_ALIGNMENT);
        List<PageFile> in = new ArrayList<>();
        long t0 = System.nanoTime();
        try (PageFile out = io.open(output, OpenMode.CREATE_NEW, IoPurpose.MERGE)) {
            for (Path p : inputs) {
                in.add(io.open(p, OpenMode.READ, IoPurpose.MERGE));
            }
            long[] readAt = new long[in.size()];
            int next = 0;
            for (long written = 0; written < bytes; written += chunk) {
                // One chunk of the next input that has one left, round robin, per chunk written.
                for (int tries = 0; tries < in.size(); tries++, next = (next + 1) % in.size()) {
                    long left = in.get(next).size() - readAt[next];
                    if (left > 0) {
                        readBuffer.clear().limit((int) Math.min(chunk, left));
                        in.get(next).readFully(readBuffer, readAt[next]);
                        readAt[next] += readBuffer.limit();
                        next = (next + 1) % in.size();
                        break;
                    }
                }
                writeBuffer.clear().limit((int) Math.min(chunk, bytes - written));
                writeBuffer = out.writeBehind(writeBuffer, written);
            }
            out.force(false);
        } finally {
            for (PageFile f : in) {
                f.close();
            }
        }
        return bytes / 1e6 / ((System.nanoTime() - t0) / 1e9);
    }

    /** Adds entries {@code first}, {@code first + step}, ... below {@code entries}: key i at sequence number i + 1. */
    private void addEntries(SSTableWriter writer, byte[][] values, int first, int step) throws IOException {
        byte[] key = new byte[KEY_SIZE];
        for (int i = first; i < entries; i += step) {
            writeKey(key, i);
            writer.add(key, i + 1L, EntryType.PUT, values[i & 1023]);
        }
    }

    /** "warm-up 1".. for the rounds before the measured ones (w &lt; 0), then "round 1".. */
    private String roundName(int w) {
        return w < 0 ? "warm-up " + (w + warmupRounds + 1) : "round " + (w + 1);
    }

    private double lookupRate(SSTableReader reader, int n, int round) throws IOException {
        Random rnd = new Random(round);
        byte[] key = new byte[KEY_SIZE];
        long t0 = System.nanoTime();
        for (int i = 0; i < n; i++) {
            writeKey(key, rnd.nextInt(entries));
            if (reader.get(key) == null) {
                throw new IllegalStateException("missing key " + InternalKeys.describe(key));
            }
        }
        return n / ((System.nanoTime() - t0) / 1e9);
    }

    private static byte[] keyOf(int i) {
        byte[] k = new byte[KEY_SIZE];
        writeKey(k, i);
        return k;
    }

    /** 16-byte keys in ascending order of {@code i}: a fixed prefix, then i big-endian. */
    private static void writeKey(byte[] key, int i) {
        Arrays.fill(key, 0, KEY_SIZE - 4, (byte) 'k');
        key[KEY_SIZE - 4] = (byte) (i >>> 24);
        key[KEY_SIZE - 3] = (byte) (i >>> 16);
        key[KEY_SIZE - 2] = (byte) (i >>> 8);
        key[KEY_SIZE - 1] = (byte) i;
    }
}
