package dev.strata.lsm.version;

import dev.strata.lsm.ColumnFamily;
import dev.strata.lsm.ConfigException;
import dev.strata.lsm.FamilyOptions;
import dev.strata.lsm.LsmStore;
import dev.strata.lsm.StoreConfig;
import dev.strata.lsm.WalSyncMode;
import dev.strata.lsm.io.FileChannelStorageIO;
import dev.strata.lsm.io.StorageIO;
import dev.strata.lsm.version.VersionEdit.Kind;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The store records its merge policy in its manifest (format 3) and a configuration naming none
 * runs the recorded one; lsm-core's own tests have no lsm-policies on the class path, so a new
 * store here runs {@code size-tiered}. The lsm-policies side (a new store runs
 * {@code one-leveling}) is {@code dev.strata.lsm.policies.DefaultPolicyTest}.
 */
class RecordedPolicyTest {
    private static final StorageIO IO = new FileChannelStorageIO();

    @TempDir
    Path dir;

    private static StoreConfig.Builder base() {
        return StoreConfig.builder().memtableBytes(StoreConfig.MIN_MEMTABLE_BYTES).walMode(WalSyncMode.NONE);
    }

    static PolicyRecord recorded(Path dir) throws IOException {
        return Manifest.readLog(IO, Manifest.readCurrent(IO, dir)).recordedPolicy();
    }

    @Test
    void aNewStoreWithoutLsmPoliciesRunsSizeTieredAndRecordsIt() throws IOException {
        StoreConfig config = base().build();
        assertFalse(config.mergePolicyNamed());
        assertFalse(StoreConfig.builder().build().mergePolicyNamed());
        try (LsmStore store = LsmStore.open(dir, config)) {
            assertEquals("size-tiered", store.config().mergePolicy());
            assertFalse(store.config().mergePolicyNamed(), "the store chose; the configuration still names none");
        }
        assertEquals(PolicyRecord.of("size-tiered", Map.of()), recorded(dir));
    }

    @Test
    void aReopenNamingNoPolicyRunsTheRecordedOneAndANamedOneReplacesIt() throws IOException {
        try (LsmStore store = LsmStore.open(dir, base().mergePolicy("no-merge").build())) {
            put(store, 0);
        }
        assertEquals(PolicyRecord.of("no-merge", Map.of()), recorded(dir));
        try (LsmStore store = LsmStore.open(dir, base().build())) {
            assertEquals("no-merge", store.config().mergePolicy(), "the recorded policy, not size-tiered");
            for (int i = 1; i <= 6; i++) {
                put(store, i);
                store.flush();
            }
            store.awaitMerges();
            assertEquals(7, store.stats().componentCount(), "no-merge runs: every flush stays a table");
        }
        Map<String, String> params = Map.of("fanout", "3", "max-runs", "30");
        try (LsmStore store = LsmStore.open(dir, base().mergePolicy("size-tiered", params).build())) {
            assertEquals("size-tiered", store.config().mergePolicy());
        }
        assertEquals(PolicyRecord.of("size-tiered", params), recorded(dir), "an explicit name is recorded");
        try (LsmStore store = LsmStore.open(dir, base().build())) {
            assertEquals("size-tiered", store.config().mergePolicy());
            assertEquals(params, store.config().mergePolicyParams(), "with the recorded parameters");
            for (int i = 0; i <= 6; i++) {
                assertEquals("v" + i, get(store, i));
            }
        }
        assertEquals(PolicyRecord.of("size-tiered", params), recorded(dir));
    }

    @Test
    void aFamilyWithoutItsOwnPolicyFollowsTheStoresRecordedOne() throws IOException {
        try (LsmStore store = LsmStore.open(dir, base().mergePolicy("no-merge").build())) {
            put(store, 0);
        }
        try (LsmStore store = LsmStore.open(dir, base().build())) {
            ColumnFamily f = store.createColumnFamily("f", FamilyOptions.defaults());
            for (int i = 0; i < 6; i++) {
                store.put(f, key(i), ("v" + i).getBytes(StandardCharsets.US_ASCII));
                store.flushColumnFamily(f);
            }
            store.awaitMerges();
            // size-tiered (fanout 4) would have merged these six tables.
            assertEquals(6, store.columnFamilyStats(f).componentCount(), "the family runs the store's no-merge");
        }
    }

    @Test
    void aRecordedPolicyNotOnTheClassPathIsAClearErrorAndChangesNothing() throws IOException {
        try (LsmStore store = LsmStore.open(dir, base().build())) {
            put(store, 1);
            store.flush();
        }
        // What lsm-policies records for a new store; lsm-core's tests do not have it.
        rerecord(dir, PolicyRecord.of("one-leveling", Map.of()));
        Map<String, byte[]> before = files(dir);
        ConfigException e = assertThrows(ConfigException.class, () -> LsmStore.open(dir, base().build()));
        assertTrue(e.getMessage().contains("'one-leveling'") && e.getMessage().contains("not on the class path")
                && e.getMessage().contains(dir.toString()), e.getMessage());
        assertEquals("mergePolicy", e.setting());
        assertFiles(before, files(dir));
        // Naming a policy opens it, and records that one.
        try (LsmStore store = LsmStore.open(dir, base().mergePolicy("size-tiered").build())) {
            assertEquals("v1", get(store, 1));
        }
        assertEquals(PolicyRecord.of("size-tiered", Map.of()), recorded(dir));
    }

    @Test
    void recordedParametersThisBuildRejectsAreAClearErrorAndChangeNothing() throws IOException {
        try (LsmStore store = LsmStore.open(dir, base().build())) {
            put(store, 1);
        }
        rerecord(dir, PolicyRecord.of("size-tiered", Map.of("fanout", "1")));
        Map<String, byte[]> before = files(dir);
        ConfigException e = assertThrows(ConfigException.class, () -> LsmStore.open(dir, base().build()));
        assertTrue(e.getMessage().contains("records merge policy size-tiered {fanout=1}")
                && e.getMessage().contains("fanout"), e.getMessage());
        assertFiles(before, files(dir));
    }

    @Test
    void anInstanceLeavesTheRecordAsItWas() throws IOException {
        try (LsmStore store = LsmStore.open(dir, base().mergePolicy("no-merge").build())) {
            put(store, 1);
        }
        var instance = dev.strata.lsm.policy.MergePolicies.create("size-tiered", Map.of());
        try (LsmStore store = LsmStore.open(dir, base().mergePolicy(instance).build())) {
            assertEquals("v1", get(store, 1));
        }
        assertEquals(PolicyRecord.of("no-merge", Map.of()), recorded(dir), "nothing on disk can name an instance");
    }

    @Test
    void aCheckpointRecordsThePolicy() throws IOException {
        Path target = dir.resolve("checkpoint");
        Path store = dir.resolve("store");
        try (LsmStore s = LsmStore.open(store, base().mergePolicy("no-merge").build())) {
            put(s, 1);
            s.checkpoint(target);
        }
        assertEquals(PolicyRecord.of("no-merge", Map.of()), recorded(target));
        try (LsmStore s = LsmStore.open(target, base().build())) {
            assertEquals("no-merge", s.config().mergePolicy());
            assertEquals("v1", get(s, 1));
        }
    }

    @Test
    void aRepairedManifestKeepsThePolicy() throws IOException {
        try (LsmStore store = LsmStore.open(dir, base().mergePolicy("no-merge").build())) {
            for (int i = 0; i < 3; i++) {
                put(store, i);
                store.flush();
            }
        }
        LsmStore.repair(dir, base().build());
        assertEquals(PolicyRecord.of("no-merge", Map.of()), recorded(dir), "the rebuilt manifest keeps the record");
        try (LsmStore store = LsmStore.open(dir, base().build())) {
            assertEquals("no-merge", store.config().mergePolicy());
            assertEquals("v2", get(store, 2));
        }
    }

    @Test
    void snapshotsOfFormat3CarryThePolicyAndFormat2NeverDoes() throws IOException {
        PolicyRecord p = PolicyRecord.of("size-tiered", Map.of("max-runs", "30", "fanout", "3"));
        VersionEdit snap = VersionEdit.snapshot(9, 8, 7, 6, 5, 4, new byte[] {1, 2}, List.of(), List.of(), p);
        byte[] bytes = snap.encode();
        assertEquals(3, bytes[0]);
        VersionEdit back = VersionEdit.decode(bytes);
        assertEquals(p, back.policy());
        assertEquals(List.of("fanout", "max-runs"), List.copyOf(back.policy().params().keySet()));
        assertArrayEquals(new byte[] {1, 2}, back.policyState());
        VersionEdit none = VersionEdit.decode(VersionEdit.snapshot(9, 8, 7, 6, 5, 4, null, List.of(), List.of()).encode());
        assertNull(none.policy());
        VersionEdit old = VersionEdit.decode(VersionEdit.snapshot(9, 8, 7, 6, 5, 4, null, List.of(), List.of())
                .encodeFormat2());
        assertNull(old.policy(), "format 2 records no policy");
        assertThrows(IllegalArgumentException.class, snap::encodeFormat2);
        assertThrows(IllegalArgumentException.class, () -> new VersionEdit(Kind.DELTA, 1, 1, 1, 1, 1, 1, null,
                List.of(), List.of(), List.of(), List.of(), List.of(), p), "only a snapshot records a policy");
        // A policy flag other than 0 or 1 is malformed.
        byte[] bad = bytes.clone();
        int flagAt = 2 + 6 * 8 + 4 + 2;
        assertEquals(1, bad[flagAt]);
        bad[flagAt] = 2;
        assertThrows(IOException.class, () -> VersionEdit.decode(bad));
    }

    /**
     * Replaces the manifest of the closed store in {@code dir} with one snapshot of the same
     * state that records {@code policy}: what another build might have written.
     */
    static void rerecord(Path dir, PolicyRecord policy) throws IOException {
        Path current = Manifest.readCurrent(IO, dir);
        Manifest.Log log = Manifest.readLog(IO, current);
        ManifestState state = log.replay(current);
        VersionEdit last = log.last();
        List<ComponentMeta> metas = state.layout().stream().flatMap(List::stream)
                .flatMap(r -> r.components().stream()).map(state::meta).toList();
        VersionEdit recorded = VersionEdit.snapshot(last.nextFileNumber() + 1, last.lastSequence(), last.logNumber(),
                last.flushCounter(), last.nextRunId(), last.nextCreationOrder(), last.policyState(), metas,
                state.layout(), policy);
        Manifest.create(IO, dir, last.nextFileNumber(), recorded).close();
        Files.delete(current);
        assertEquals(policy, recorded(dir));
    }

    private static void put(LsmStore store, int i) {
        store.put(key(i), ("v" + i).getBytes(StandardCharsets.US_ASCII));
    }

    private static String get(LsmStore store, int i) {
        byte[] v = store.get(key(i));
        return v == null ? null : new String(v, StandardCharsets.US_ASCII);
    }

    private static byte[] key(int i) {
        return ("key-" + i).getBytes(StandardCharsets.US_ASCII);
    }

    /** Every file of {@code dir} but the lock, name to bytes. */
    private static Map<String, byte[]> files(Path dir) throws IOException {
        Map<String, byte[]> m = new TreeMap<>();
        try (Stream<Path> s = Files.list(dir)) {
            for (Path p : s.filter(Files::isRegularFile).toList()) {
                if (!p.getFileName().toString().equals("LOCK")) {
                    m.put(p.getFileName().toString(), Files.readAllBytes(p));
                }
            }
        }
        return m;
    }

    private static void assertFiles(Map<String, byte[]> before, Map<String, byte[]> after) {
        assertEquals(before.keySet(), after.keySet(), "the failed open created or deleted no file");
        for (String name : before.keySet()) {
            assertArrayEquals(before.get(name), after.get(name), name + " unchanged");
        }
    }
}
