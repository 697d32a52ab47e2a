package dev.strata.lsm.bench.measure;

import dev.strata.lsm.LsmStore;
import dev.strata.lsm.StoreConfig;
import dev.strata.lsm.WalSyncMode;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.Random;
import java.util.concurrent.Callable;

/**
 * {@code measure store}: single-thread random puts (16 B keys, 100 B values, async WAL,
 * 64 MiB memtable by default) into a fresh store, then rounds of random gets after a flush
 * and the merges it triggers. Moved here from lsm-core's tests (a measurement is no test).
 */
@Command(name = "store", mixinStandardHelpOptions = true,
        description = "Random puts into a fresh store, then random gets; prints puts/s and gets/s.")
public final class StoreThroughput implements Callable<Integer> {

    @Option(names = "--keys", description = "distinct keys put (default ${DEFAULT-VALUE})")
    int keys = 3_000_000;

    @Option(names = "--gets", description = "gets per round (default ${DEFAULT-VALUE})")
    int gets = 1_000_000;

    @Option(names = "--rounds", description = "rounds of gets (default ${DEFAULT-VALUE})")
    int rounds = 3;

    @Option(names = "--policy", description = "merge policy (default ${DEFAULT-VALUE})")
    String policy = "size-tiered";

    @Option(names = "--memtable", description = "memtable bytes (default ${DEFAULT-VALUE})")
    long memtableBytes = 64L << 20;

    @Option(names = "--dir", description = "store directory, deleted first (default: a directory under java.io.tmpdir)")
    Path dir = Path.of(System.getProperty("java.io.tmpdir"), "strata-store-bench");

    @Override
    public Integer call() throws Exception {
        run(System.out);
        return 0;
    }

    void run(PrintStream out) throws Exception {
        if (keys < 1 || gets < 0 || rounds < 0) {
            throw new IllegalArgumentException("--keys must be >= 1, --gets and --rounds >= 0");
        }
        Scratch.deleteTree(dir);
        StoreConfig config = StoreConfig.builder().walMode(WalSyncMode.ASYNC).memtableBytes(memtableBytes)
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
            out.printf("puts: %d in %.2f s = %.0f puts/s (%s)%n", keys, (t1 - t0) / 1e9,
                    keys / ((t1 - t0) / 1e9), store.stats());
            store.flush();
            store.awaitMerges();
            out.printf("after flush and merges: %s%n", store.stats());
            for (int round = 0; round < rounds; round++) {
                long g0 = System.nanoTime();
                Random r = new Random(round);
                for (int i = 0; i < gets; i++) {
                    if (store.get(key(r.nextInt(keys))) == null) {
                        throw new IllegalStateException("a key that was put is missing");
                    }
                }
                long g1 = System.nanoTime();
                out.printf("gets round %d: %.0f gets/s%n", round + 1, gets / ((g1 - g0) / 1e9));
            }
        }
        Scratch.deleteTree(dir);
    }

    /** 16-byte keys: a multiplicative hash of i (spreads them), then i itself (keeps them distinct). */
    static byte[] key(int i) {
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
