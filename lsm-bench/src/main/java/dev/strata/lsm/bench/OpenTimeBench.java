package dev.strata.lsm.bench;

import dev.strata.lsm.LsmStore;
import dev.strata.lsm.StoreConfig;
import dev.strata.lsm.WalSyncMode;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * Time to open a store that holds many small tables (issue 10's measurement): builds a store
 * of {@code tables} one-key flushes under the {@code no-merge} policy (once; an existing
 * store is reused), then opens and closes it {@code repeats} times and prints each open time
 * and the median. Uses only the public store API, so the same source measures any revision.
 *
 * <p>Usage: {@code java -cp ... dev.strata.lsm.bench.OpenTimeBench DIR [tables=10000] [repeats=5]}
 */
public final class OpenTimeBench {
    private OpenTimeBench() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 1) {
            System.err.println("usage: OpenTimeBench DIR [tables] [repeats]");
            System.exit(2);
        }
        Path dir = Path.of(args[0]);
        int tables = args.length > 1 ? Integer.parseInt(args[1]) : 10_000;
        int repeats = args.length > 2 ? Integer.parseInt(args[2]) : 5;
        StoreConfig config = StoreConfig.builder().mergePolicy("no-merge").walMode(WalSyncMode.NONE).build();
        if (!Files.exists(dir.resolve("CURRENT"))) {
            long start = System.nanoTime();
            try (LsmStore store = LsmStore.open(dir, config)) {
                for (int i = 0; i < tables; i++) {
                    store.put(String.format("key%08d", i).getBytes(StandardCharsets.US_ASCII),
                            ("value" + i).getBytes(StandardCharsets.US_ASCII));
                    store.flush();
                }
            }
            System.out.printf("created %d tables in %.1f s%n", tables, (System.nanoTime() - start) / 1e9);
        }
        double[] ms = new double[repeats];
        for (int r = 0; r < repeats; r++) {
            long start = System.nanoTime();
            LsmStore store = LsmStore.open(dir, config);
            ms[r] = (System.nanoTime() - start) / 1e6;
            byte[] probe = store.get(String.format("key%08d", tables / 2).getBytes(StandardCharsets.US_ASCII));
            store.close();
            System.out.printf("open %d: %.1f ms (probe %s)%n", r + 1, ms[r], probe == null ? "missing" : "found");
        }
        double[] sorted = ms.clone();
        Arrays.sort(sorted);
        System.out.printf("median open time over %d opens: %.1f ms%n", repeats, sorted[repeats / 2]);
    }
}
