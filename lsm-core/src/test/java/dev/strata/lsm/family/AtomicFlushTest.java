package dev.strata.lsm.family;

import dev.strata.lsm.ColumnFamily;
import dev.strata.lsm.FamilyOptions;
import dev.strata.lsm.LsmStore;
import dev.strata.lsm.StoreConfig;
import dev.strata.lsm.WriteBatch;
import dev.strata.lsm.WalSyncMode;
import dev.strata.lsm.testkit.TestKeys;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A batch across column families stays whole over a crash in WAL mode none, where no WAL
 * record makes it atomic: the families' flushes are taken at one cut and committed together
 * (atomic flush). The crash is a copy of the store directory taken while nothing writes a
 * file — the state a kill at that moment leaves ({@link dev.strata.lsm.fault.CrashImages}) — opened as a
 * store of its own.
 */
class AtomicFlushTest {
    @TempDir
    Path tmp;

    private static byte[] key(int i) {
        return TestKeys.padded("k", i, 6).getBytes(StandardCharsets.US_ASCII);
    }

    private static byte[] value(int i, String family) {
        return (family + ":" + i + ":" + "v".repeat(40)).getBytes(StandardCharsets.US_ASCII);
    }

    /** The default family fills its memtable 16 times as fast as family {@code a}. */
    private static StoreConfig config() {
        return StoreConfig.builder().walMode(WalSyncMode.NONE).memtableBytes(16 << 10).mergePolicy("no-merge")
                .family("a", FamilyOptions.builder().memtableBytes(256 << 10).build())
                .build();
    }

    /** The ids whose key family {@code cf} holds (null: the default family), in order. */
    private static List<Integer> ids(LsmStore store, ColumnFamily cf, int upTo) {
        List<Integer> out = new ArrayList<>();
        for (int i = 0; i < upTo; i++) {
            byte[] v = cf == null ? store.get(key(i)) : store.get(cf, key(i));
            if (v != null) {
                out.add(i);
            }
        }
        return out;
    }

    @Test
    void aFullMemtableInOneFamilyDoesNotTearBatchesAcrossFamilies() throws IOException {
        Path dir = tmp.resolve("store");
        Path crash = tmp.resolve("crash");
        int n = 0;
        try (LsmStore store = LsmStore.open(dir, config())) {
            ColumnFamily a = store.columnFamily("a");
            // Until the default family's memtable was switched out and flushed a few times;
            // family a's stays far below its size.
            while (store.stats().flushCount() < 3) {
                store.write(new WriteBatch().put(key(n), value(n, "default")).put(a, key(n), value(n, "a")));
                n++;
            }
            store.awaitMerges(); // no flush runs: the directory is what a kill now would leave
            dev.strata.lsm.fault.CrashImages.copy(dir, crash);
        }
        try (LsmStore store = LsmStore.open(crash, config())) {
            List<Integer> inDefault = ids(store, null, n);
            List<Integer> inA = ids(store, store.columnFamily("a"), n);
            assertTrue(!inDefault.isEmpty(), "the crash image holds no flushed batch at all");
            assertTrue(inDefault.equals(inA), "batches across families torn by the crash: the default family holds "
                    + inDefault.size() + " of " + n + " batches, family a " + inA.size());
        }
    }

    @Test
    void flushingOneFamilyFlushesEveryFamilyAtOneCut() throws IOException {
        Path dir = tmp.resolve("store");
        Path crash = tmp.resolve("crash");
        try (LsmStore store = LsmStore.open(dir, config())) {
            ColumnFamily a = store.columnFamily("a");
            for (int i = 0; i < 50; i++) {
                store.write(new WriteBatch().put(key(i), value(i, "default")).put(a, key(i), value(i, "a")));
            }
            store.flushColumnFamily(a);
            store.awaitMerges();
            dev.strata.lsm.fault.CrashImages.copy(dir, crash);
        }
        try (LsmStore store = LsmStore.open(crash, config())) {
            int inDefault = ids(store, null, 50).size();
            int inA = ids(store, store.columnFamily("a"), 50).size();
            assertEquals(inDefault, inA, "a flush of family a alone tore the batches: the default family holds "
                    + inDefault + " of 50, family a " + inA);
            assertEquals(50, ids(store, null, 50).size(), "flushColumnFamily made every batch durable");
        }
    }
}
