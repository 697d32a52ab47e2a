package dev.strata.lsm.bench;

import dev.strata.lsm.LsmStore;
import dev.strata.lsm.StoreConfig;
import dev.strata.lsm.WalSyncMode;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Comparator;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;

/**
 * How long a memtable flush waits behind a long merge (issue 10's measurement): one
 * background thread, size-tiered with fanout 4. Four memtables of {@code memtableMiB} are
 * written and flushed, which starts a merge of the four tables; a fifth, small memtable
 * (1/64 of the size) is then filled and {@code flush()} is timed while that merge runs. With a flush lane the flush
 * takes about what writing one table takes; without one it also waits for the merge. Uses
 * only the public store API, so the same source measures any revision.
 *
 * <p>Usage: {@code java -cp ... dev.strata.lsm.bench.FlushWaitBench DIR [memtableMiB=64] [repeats=3]}
 */
public final class FlushWaitBench {
    private static final int KEY_BYTES = 16;
    private static final int VALUE_BYTES = 100;

    private FlushWaitBench() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 1) {
            System.err.println("usage: FlushWaitBench DIR [memtableMiB] [repeats]");
            System.exit(2);
        }
        Path base = Path.of(args[0]);
        long memtable = (args.length > 1 ? Long.parseLong(args[1]) : 64) << 20;
        int repeats = args.length > 2 ? Integer.parseInt(args[2]) : 3;
        double[] waits = new double[repeats];
        for (int r = 0; r < repeats; r++) {
            Path dir = base.resolve("run" + r);
            deleteTree(dir);
            StoreConfig config = StoreConfig.builder().memtableBytes(memtable).backgroundThreads(1)
                    .walMode(WalSyncMode.NONE).mergePolicy("size-tiered", Map.of("fanout", "4")).build();
            Random rnd = new Random(r);
            try (LsmStore store = LsmStore.open(dir, config)) {
                for (int m = 0; m < 4; m++) {
                    fill(store, rnd, memtable);
                    store.flush();
                }
                long mergesBefore = store.stats().mergeCount();
                // A small fifth memtable, so flush() is called while the merge of the four runs.
                fill(store, rnd, memtable / 64);
                long start = System.nanoTime();
                store.flush();
                double ms = (System.nanoTime() - start) / 1e6;
                long mergesAfter = store.stats().mergeCount();
                long mergeStart = System.nanoTime();
                store.awaitMerges();
                double mergeLeftMs = (System.nanoTime() - mergeStart) / 1e6;
                waits[r] = ms;
                System.out.printf("run %d: flush() took %.1f ms; merges completed during it: %d; the merge then "
                        + "ran %.1f ms more%n", r, ms, mergesAfter - mergesBefore, mergeLeftMs);
            }
            deleteTree(dir);
        }
        double[] sorted = waits.clone();
        Arrays.sort(sorted);
        System.out.printf("median flush() time behind a running merge: %.1f ms (%s)%n", sorted[repeats / 2],
                Arrays.toString(waits));
    }

    private static void fill(LsmStore store, Random rnd, long bytes) {
        // 80%: the memtable must not fill up and switch on its own before flush() is called.
        long entries = bytes * 8 / 10 / (KEY_BYTES + VALUE_BYTES + 24);
        byte[] value = new byte[VALUE_BYTES];
        for (long i = 0; i < entries; i++) {
            byte[] key = new byte[KEY_BYTES];
            rnd.nextBytes(key);
            rnd.nextBytes(value);
            store.put(key, value);
        }
    }

    private static void deleteTree(Path dir) throws Exception {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> s = Files.walk(dir)) {
            for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }
}
