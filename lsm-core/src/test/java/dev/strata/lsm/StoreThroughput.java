package dev.strata.lsm;

import dev.strata.lsm.wal.WalSyncMode;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Random;
import java.util.stream.Stream;

/**
 * A measurement, not a test: single-thread random puts (16 B keys, 100 B values, async
 * WAL, 64 MiB memtable) into a fresh store, then random gets after a flush. Run with
 *
 * <pre>
 * mvn -q -pl lsm-core test-compile exec:java -Dexec.classpathScope=test \
 *     -Dexec.mainClass=dev.strata.lsm.StoreThroughput -Dexec.args="--keys 3000000 --dir /tmp/strata-put"
 * </pre>
 */
public final class StoreThroughput {
    public static void main(String[] args) throws IOException {
        int keys = 3_000_000;
        int gets = 1_000_000;
        String policy = "size-tiered";
        Path dir = Path.of(System.getProperty("java.io.tmpdir"), "strata-store-bench");
        for (int i = 0; i < args.length; i += 2) {
            switch (args[i]) {
                case "--keys" -> keys = Integer.parseInt(args[i + 1]);
                case "--gets" -> gets = Integer.parseInt(args[i + 1]);
                case "--policy" -> policy = args[i + 1];
                case "--dir" -> dir = Path.of(args[i + 1]);
                default -> throw new IllegalArgumentException("unknown option " + args[i]
                        + " (known: --keys --gets --policy --dir)");
            }
        }
        if (Files.exists(dir)) {
            try (Stream<Path> s = Files.walk(dir)) {
                s.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
        StoreConfig config = StoreConfig.builder().walMode(WalSyncMode.ASYNC).memtableBytes(64L << 20)
                .mergePolicy(policy).build();
        int[] order = new int[keys];
        for (int i = 0; i < keys; i++) {
            order[i] = i;
        }
        Random rnd = new Random(42);
        for (int i = keys - 1; i > 0; i--) {
            int j = rnd.nextInt(i + 1);
            int t = order[i];
            order[i] = order[j];
            order[j] = t;
        }
        byte[] value = new byte[100];
        rnd.nextBytes(value);
        try (LsmStore store = LsmStore.open(dir, config)) {
            long t0 = System.nanoTime();
            for (int i = 0; i < keys; i++) {
                store.put(key(order[i]), value);
            }
            long t1 = System.nanoTime();
            System.out.printf("puts: %d in %.2f s = %.0f puts/s (%s)%n", keys, (t1 - t0) / 1e9,
                    keys / ((t1 - t0) / 1e9), store.stats());
            store.flush();
            store.awaitMerges();
            System.out.printf("after flush and merges: %s%n", store.stats());
            for (int round = 0; round < 3; round++) {
                long g0 = System.nanoTime();
                Random r = new Random(round);
                for (int i = 0; i < gets; i++) {
                    if (store.get(key(r.nextInt(keys))) == null) {
                        throw new IllegalStateException("missing key");
                    }
                }
                long g1 = System.nanoTime();
                System.out.printf("gets round %d: %.0f gets/s%n", round + 1, gets / ((g1 - g0) / 1e9));
            }
        }
    }

    private static byte[] key(int i) {
        byte[] k = new byte[16];
        long x = i * 0x9E3779B97F4A7C15L;
        for (int b = 0; b < 8; b++) {
            k[b] = (byte) (x >>> (56 - 8 * b));
        }
        for (int b = 0; b < 4; b++) {
            k[12 + b] = (byte) (i >>> (24 - 8 * b));
        }
        return k;
    }
}
