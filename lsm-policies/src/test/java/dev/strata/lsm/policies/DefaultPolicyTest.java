package dev.strata.lsm.policies;

import dev.strata.lsm.ColumnFamily;
import dev.strata.lsm.Cursor;
import dev.strata.lsm.FamilyOptions;
import dev.strata.lsm.LsmStore;
import dev.strata.lsm.StoreConfig;
import dev.strata.lsm.WalSyncMode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * With lsm-policies on the class path, a new store whose configuration names no merge policy
 * runs {@code one-leveling} and records it; a store written before stores recorded their policy
 * keeps {@code size-tiered}; an explicit name wins and is recorded (docs/policies.md, "The
 * default policy and what a store records"). lsm-core's {@code RecordedPolicyTest} covers the
 * store without lsm-policies and the manifest record itself.
 */
class DefaultPolicyTest {
    @TempDir
    Path dir;

    private static StoreConfig.Builder base() {
        return StoreConfig.builder().memtableBytes(8192).walMode(WalSyncMode.ASYNC);
    }

    @Test
    void aNewStoreNamingNoPolicyRunsOneLevelingAndKeepsIt() {
        try (LsmStore store = LsmStore.open(dir, base().build())) {
            assertEquals("one-leveling", store.config().mergePolicy());
            assertEquals(Map.of(), store.config().mergePolicyParams(), "its default parameters");
            assertFalse(store.config().mergePolicyNamed());
            for (int i = 0; i < 400; i++) {
                store.put(key(i), value(i));
            }
            store.flush();
            store.awaitMerges();
        }
        // Reopened naming none: the recorded policy, not a default again.
        try (LsmStore store = LsmStore.open(dir, base().build())) {
            assertEquals("one-leveling", store.config().mergePolicy());
            assertEquals(400, count(store));
        }
        // An explicit name runs and is recorded...
        try (LsmStore store = LsmStore.open(dir, base().mergePolicy("size-tiered", Map.of("fanout", "3")).build())) {
            assertEquals("size-tiered", store.config().mergePolicy());
            store.put(key(400), value(400));
        }
        // ...so the next open naming none runs it, with its parameters.
        try (LsmStore store = LsmStore.open(dir, base().build())) {
            assertEquals("size-tiered", store.config().mergePolicy());
            assertEquals(Map.of("fanout", "3"), store.config().mergePolicyParams());
            assertEquals(401, count(store));
        }
    }

    @Test
    void aPolicyNamedInXmlIsRecordedAndOneLeftOutIsTheStoresChoice() throws IOException {
        Path named = dir.resolve("named.xml");
        Files.writeString(named, "<store>\n  <memtable bytes=\"8192\"/>\n  <mergePolicy name=\"binomial\"><param name=\"k\""
                + " value=\"6\"/></mergePolicy>\n</store>\n");
        Path unnamed = dir.resolve("unnamed.xml");
        Files.writeString(unnamed, "<store>\n  <memtable bytes=\"8192\"/>\n</store>\n");
        assertTrue(StoreConfig.fromXml(named).mergePolicyNamed());
        assertFalse(StoreConfig.fromXml(unnamed).mergePolicyNamed());
        Path store = dir.resolve("store");
        try (LsmStore s = LsmStore.open(store, StoreConfig.fromXml(named))) {
            assertEquals("binomial", s.config().mergePolicy());
        }
        try (LsmStore s = LsmStore.open(store, StoreConfig.fromXml(unnamed))) {
            assertEquals("binomial", s.config().mergePolicy());
            assertEquals(Map.of("k", "6"), s.config().mergePolicyParams());
        }
        try (LsmStore s = LsmStore.open(dir.resolve("fresh"), StoreConfig.fromXml(unnamed))) {
            assertEquals("one-leveling", s.config().mergePolicy());
        }
    }

    @Test
    void aFamilyWithoutItsOwnPolicyTakesTheStoresChoice() {
        try (LsmStore store = LsmStore.open(dir, base().build())) {
            ColumnFamily f = store.createColumnFamily("f", FamilyOptions.defaults());
            ColumnFamily g = store.createColumnFamily("g", FamilyOptions.builder().mergePolicy("no-merge").build());
            for (int i = 0; i < 12; i++) {
                store.put(f, key(i), value(i));
                store.put(g, key(i), value(i));
                store.flushColumnFamily(f);
                store.flushColumnFamily(g);
            }
            store.awaitMerges();
            assertEquals(12, store.columnFamilyStats(g).componentCount(), "g names no-merge: every flush stays");
            // one-leveling merges level 0 into level 1 once it holds its trigger of runs.
            assertTrue(store.columnFamilyStats(f).componentCount() < 12,
                    "f takes the store's one-leveling, which merges: " + store.columnFamilyStats(f));
        }
    }

    /**
     * Subcompactions split a merge by the size of its data, not of its files (issue 36): twelve
     * one-key flushes are twelve page-padded tables, each larger on disk than the 8 KiB output
     * file size, but their data fits in one output file, so no merge of them is split and level 1
     * ends as it does without subcompactions (split by file sizes, it ended as twelve one-key
     * tables).
     */
    @Test
    void subcompactionsNeverSplitAMergeWhoseDataFitsInOneFile() {
        int[] whole = oneKeyFlushes(dir.resolve("whole"), 1);
        int[] split = oneKeyFlushes(dir.resolve("split"), 4);
        assertTrue(whole.length >= 2 && whole[1] < 12, "merged without subcompactions: " + Arrays.toString(whole));
        assertEquals(Arrays.toString(whole), Arrays.toString(split), "level sizes with subcompactions 4 as with 1");
    }

    /** Twelve one-key flushes into a one-leveling store, each merged before the next; its tables per level. */
    private static int[] oneKeyFlushes(Path at, int subcompactions) {
        try (LsmStore store = LsmStore.open(at, base().subcompactions(subcompactions).build())) {
            for (int i = 0; i < 12; i++) {
                store.put(key(i), value(i));
                store.flush();
                store.awaitMerges(); // the same merges in both stores, whatever the threads' timing
            }
            assertEquals(12, count(store));
            return store.stats().componentsPerLevel();
        }
    }

    /**
     * A store written before stores recorded their policy (format-2 manifest: the store of
     * lsm-core's {@code PreFamiliesStoreFixture}, written by commit 024c82f with
     * {@code size-tiered}) opened with a configuration naming none keeps running
     * {@code size-tiered}, and from then on records it.
     */
    @Test
    void aStoreFromBeforeTheRecordKeepsSizeTiered() throws IOException {
        for (String name : List.of("000009.wal", "000011.sst", "CURRENT", "MANIFEST-000001")) {
            try (InputStream in = getClass().getResourceAsStream("/format2-store/" + name)) {
                Files.copy(in, dir.resolve(name));
            }
        }
        Map<String, String> expected = new TreeMap<>();
        for (int i = 0; i < 300; i++) {
            if (i % 11 != 0) {
                expected.put(String.format("key-%05d", i), "value-" + i + "-round-" + (i % 5 == 0 ? 1 : 0));
            }
        }
        expected.put("wal-only", "unflushed");
        for (int round = 0; round < 2; round++) {
            try (LsmStore store = LsmStore.open(dir, base().build())) {
                assertEquals("size-tiered", store.config().mergePolicy(), "round " + round);
                assertEquals(expected, contents(store), "round " + round);
            }
        }
    }

    private static byte[] key(int i) {
        return String.format("k%06d", i).getBytes(StandardCharsets.US_ASCII);
    }

    private static byte[] value(int i) {
        return ("value-" + i + "-".repeat(40)).getBytes(StandardCharsets.US_ASCII);
    }

    private static int count(LsmStore store) {
        int n = 0;
        try (Cursor c = store.scan(null, null)) {
            while (c.next()) {
                n++;
            }
        }
        return n;
    }

    private static Map<String, String> contents(LsmStore store) {
        Map<String, String> m = new TreeMap<>();
        try (Cursor c = store.scan(null, null)) {
            while (c.next()) {
                m.put(new String(c.key(), StandardCharsets.US_ASCII), new String(c.value(), StandardCharsets.US_ASCII));
            }
        }
        return m;
    }
}
