package dev.strata.lsm.sstable;

import dev.strata.lsm.cache.BlockCache;
import dev.strata.lsm.io.CountingStorageIO;
import dev.strata.lsm.io.FileChannelStorageIO;
import dev.strata.lsm.io.IoPurpose;
import dev.strata.lsm.io.OpenMode;
import dev.strata.lsm.io.PageFile;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Random;

/**
 * A measurement, not a test: SSTable build throughput (MB/s of user data) and point-lookup
 * rates with the block cache disabled and with every page cached, each the median of
 * several rounds on one thread. Run it with
 *
 * <pre>
 * mvn -q -pl lsm-core test-compile exec:java -Dexec.classpathScope=test \
 *     -Dexec.mainClass=dev.strata.lsm.sstable.SSTableThroughput \
 *     -Dexec.args="--entries 3000000 --rounds 5 --dir /tmp/sst-bench"
 * </pre>
 */
public final class SSTableThroughput {
    private static final int KEY_SIZE = 16;
    private static final int VALUE_SIZE = 100;

    public static void main(String[] args) throws IOException {
        int entries = 3_000_000;
        int rounds = 5;
        int pageSize = TableOptions.DEFAULT_PAGE_SIZE;
        int lookups = 1_000_000;
        Path dir = Path.of(System.getProperty("java.io.tmpdir"), "strata-sst-bench");
        for (int i = 0; i < args.length; i += 2) {
            switch (args[i]) {
                case "--entries" -> entries = Integer.parseInt(args[i + 1]);
                case "--rounds" -> rounds = Integer.parseInt(args[i + 1]);
                case "--page-size" -> pageSize = Integer.parseInt(args[i + 1]);
                case "--lookups" -> lookups = Integer.parseInt(args[i + 1]);
                case "--dir" -> dir = Path.of(args[i + 1]);
                default -> throw new IllegalArgumentException("unknown option " + args[i]
                        + " (known: --entries --rounds --page-size --lookups --dir)");
            }
        }
        Files.createDirectories(dir);
        TableOptions options = new TableOptions(pageSize, TableOptions.DEFAULT_BLOOM_BITS_PER_KEY);
        CountingStorageIO io = new CountingStorageIO(new FileChannelStorageIO());
        byte[][] values = new byte[1024][VALUE_SIZE];
        Random rnd = new Random(42);
        for (byte[] v : values) {
            rnd.nextBytes(v);
        }
        double userMb = (double) entries * (KEY_SIZE + VALUE_SIZE) / 1e6;
        System.out.printf("SSTable build: %d entries, %d B keys, %d B values (%.1f MB user data), %d B pages%n",
                entries, KEY_SIZE, VALUE_SIZE, userMb, pageSize);

        double[] buildMbps = new double[rounds];
        double[] buildSyncMbps = new double[rounds];
        Path path = dir.resolve("bench.sst");
        FinishedTable table = null;
        for (int r = 0; r < rounds; r++) {
            Files.deleteIfExists(path);
            long t0 = System.nanoTime();
            long tWritten;
            try (PageFile file = io.open(path, OpenMode.CREATE_NEW, IoPurpose.FLUSH)) {
                SSTableWriter writer = new SSTableWriter(file, options);
                byte[] key = new byte[KEY_SIZE];
                for (int i = 0; i < entries; i++) {
                    writeKey(key, i);
                    writer.add(key, i + 1L, EntryType.PUT, values[i & 1023]);
                }
                table = writer.finish();
                tWritten = System.nanoTime();
                file.force(false);
            }
            long tSynced = System.nanoTime();
            buildMbps[r] = userMb / ((tWritten - t0) / 1e9);
            buildSyncMbps[r] = userMb / ((tSynced - t0) / 1e9);
            System.out.printf("  round %d: %.1f MB/s written to the OS, %.1f MB/s including fdatasync (file %.1f MB, height %d)%n",
                    r + 1, buildMbps[r], buildSyncMbps[r], Files.size(path) / 1e6, table.footer().height());
        }
        System.out.printf("build median: %.1f MB/s (to the OS), %.1f MB/s (durable)%n",
                median(buildMbps), median(buildSyncMbps));

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
                uncached[r] = lookupRate(cold, entries, lookups, r);
                cached[r] = lookupRate(warm, entries, lookups, r);
                System.out.printf("  round %d: %.0f lookups/s block cache disabled, %.0f lookups/s cached%n",
                        r + 1, uncached[r], cached[r]);
            }
            System.out.printf("point lookups median: %.0f/s with the block cache disabled (OS page cache warm), "
                    + "%.0f/s with every page cached%n", median(uncached), median(cached));
        }
        Files.deleteIfExists(path);
    }

    private static double lookupRate(SSTableReader reader, int entries, int lookups, int round) throws IOException {
        Random rnd = new Random(round);
        byte[] key = new byte[KEY_SIZE];
        long t0 = System.nanoTime();
        for (int i = 0; i < lookups; i++) {
            writeKey(key, rnd.nextInt(entries));
            if (reader.get(key) == null) {
                throw new IllegalStateException("missing key " + InternalKeys.describe(key));
            }
        }
        return lookups / ((System.nanoTime() - t0) / 1e9);
    }

    private static byte[] keyOf(int i) {
        byte[] k = new byte[KEY_SIZE];
        writeKey(k, i);
        return k;
    }

    /** 16-byte keys in ascending order of {@code i}: a fixed prefix, then i big-endian. */
    private static void writeKey(byte[] key, int i) {
        Arrays.fill(key, 0, KEY_SIZE - 4, (byte) 'k');
        PageFormat.putInt(key, KEY_SIZE - 4, i);
    }

    private static double median(double[] xs) {
        double[] s = xs.clone();
        Arrays.sort(s);
        return s.length % 2 == 1 ? s[s.length / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
    }
}
