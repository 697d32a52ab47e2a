package dev.strata.lsm.fault;

import dev.strata.lsm.LsmStore;
import dev.strata.lsm.StoreConfig;
import dev.strata.lsm.StoreException;
import dev.strata.lsm.io.FileChannelStorageIO;
import dev.strata.lsm.io.IoPurpose;
import dev.strata.lsm.io.StorageIO;
import dev.strata.lsm.testkit.TestKeys;
import dev.strata.lsm.testkit.TestScale;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import dev.strata.lsm.testkit.SlowTest;

/**
 * ENOSPC, EIO and torn writes at the write sites of flushes, merges, the WAL and the
 * manifest: the failing operation reports a clear error, the store stays readable, no
 * acknowledged write is lost, and the store recovers once the fault goes away — both in
 * the running process and after a reopen. The fault goes to 2 of each purpose's write sites
 * spread over the workload in the fast lane, to {@code 2 * strata.test.multiplier} (every
 * site when there are fewer) in the slow lane (StoreFaultInjectionTest at multiplier 3). The
 * workload is {@code 500 * strata.test.multiplier} writes into memtables sized to it (16 KiB
 * for 1,500 writes, proportionally smaller for fewer), so a fast-lane run flushes and merges as
 * often as a slow-lane one, with less data. A purpose's write sites are counted once, by a
 * clean run, and shared by its faults.
 */
@SlowTest
class StoreFaultInjectionTest {
    private static final int WRITES = TestScale.scaled(500);
    private static final long MEMTABLE_BYTES = Math.max(StoreConfig.MIN_MEMTABLE_BYTES, 16L * 1024 * WRITES / 1500);
    /** Reads every acknowledged key back this often (15 times per workload). */
    private static final int CHECK_EVERY = WRITES / 15;
    /** The write sites a clean run of the workload has, per purpose. */
    private static final Map<IoPurpose, Integer> SITES = new java.util.concurrent.ConcurrentHashMap<>();

    @TempDir
    Path tmp;

    static Stream<Arguments> faults() {
        List<Arguments> all = new ArrayList<>();
        for (IoPurpose p : List.of(IoPurpose.WAL, IoPurpose.FLUSH, IoPurpose.MERGE, IoPurpose.MANIFEST)) {
            for (FaultInjectingStorageIO.Fault f : FaultInjectingStorageIO.Fault.values()) {
                all.add(Arguments.of(p, f));
            }
        }
        return all.stream();
    }

    private static StoreConfig config(StorageIO io) {
        return StoreConfig.builder()
                .memtableBytes(MEMTABLE_BYTES)
                .maxImmutableMemtables(2)
                .mergePolicy("size-tiered", Map.of("fanout", "2"))
                .storageIO(io)
                .build();
    }

    private static byte[] key(int i) {
        return TestKeys.padded("key-", i, 6).getBytes();
    }

    private static byte[] value(int i) {
        byte[] v = new byte[64 + i % 200];
        java.util.Arrays.fill(v, (byte) i);
        v[0] = (byte) (i >>> 8);
        return v;
    }

    /** Runs the workload; returns how many write sites of the purpose it had. */
    private int run(Path dir, FaultInjectingStorageIO io) {
        Map<Integer, byte[]> acked = new HashMap<>();
        int failed = 0;
        LsmStore opened;
        try {
            opened = LsmStore.open(dir, config(io));
        } catch (StoreException e) {
            // A fault while opening (the manifest is rewritten at open) fails the open cleanly.
            assertTrue(io.failures() > 0, "open failed without an injected fault: " + e);
            io.heal();
            opened = LsmStore.open(dir, config(io));
        }
        try (LsmStore store = opened) {
            for (int i = 0; i < WRITES; i++) {
                // Overwrite some earlier keys too, so merges have versions to drop.
                int k = i % 3 == 0 ? i / 3 : i;
                try {
                    store.put(key(k), value(i));
                    acked.put(k, value(i));
                } catch (StoreException e) {
                    failed++;
                    assertTrue(e.getMessage() != null && !e.getMessage().isBlank(), "error names the problem");
                    acked.remove(k); // the failed write may or may not be there; forget the key
                    expectedUnknown.add(k);
                }
                if (i % CHECK_EVERY == 0) {
                    // The store stays readable whatever fails in the background.
                    for (Map.Entry<Integer, byte[]> e : acked.entrySet()) {
                        assertArrayEquals(e.getValue(), store.get(key(e.getKey())), "acked key " + e.getKey());
                    }
                }
                if (i == WRITES / 2) {
                    io.heal();
                }
            }
            io.heal();
            store.flush();
            store.awaitMerges();
            verify(store, acked);
        }
        try (LsmStore store = LsmStore.open(dir, config(new FileChannelStorageIO()))) {
            verify(store, acked);
        }
        lastFailedWrites = failed;
        return io.sites();
    }

    private final java.util.Set<Integer> expectedUnknown = new java.util.HashSet<>();
    private int lastFailedWrites;

    private void verify(LsmStore store, Map<Integer, byte[]> acked) {
        for (Map.Entry<Integer, byte[]> e : acked.entrySet()) {
            if (!expectedUnknown.contains(e.getKey())) {
                assertArrayEquals(e.getValue(), store.get(key(e.getKey())), "acknowledged key " + e.getKey() + " lost");
            }
        }
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("faults")
    void everyWriteSiteFailsSafely(IoPurpose purpose, FaultInjectingStorageIO.Fault fault) {
        // A clean run counts the write sites of this purpose (once for all its faults).
        int sites = SITES.computeIfAbsent(purpose, p -> run(tmp.resolve("baseline"),
                new FaultInjectingStorageIO(new FileChannelStorageIO(), p, fault, 0, false)));
        assertTrue(sites > 0, "workload has " + purpose + " write sites");
        int step = Math.max(1, sites / TestScale.scaled(2));
        int injected = 0;
        for (int site = 1; site <= sites; site += step) {
            boolean persistent = fault == FaultInjectingStorageIO.Fault.ENOSPC;
            FaultInjectingStorageIO io = new FaultInjectingStorageIO(new FileChannelStorageIO(), purpose, fault, site,
                    persistent);
            expectedUnknown.clear();
            run(tmp.resolve(purpose + "-" + fault + "-" + site), io);
            injected += io.failures();
        }
        assertTrue(injected > 0, "faults were injected");
        System.out.printf("%s %s: %d sites, faults injected %d%n", purpose, fault, sites, injected);
    }
}
