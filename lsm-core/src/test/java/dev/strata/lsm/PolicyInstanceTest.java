package dev.strata.lsm;

import dev.strata.lsm.policy.MergePolicy;
import dev.strata.lsm.policy.MergeTask;
import dev.strata.lsm.policy.TreeView;
import dev.strata.lsm.testkit.TestKeys;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A merge policy given as an instance ({@link StoreConfig.Builder#mergePolicy(MergePolicy)}):
 * the store runs that object, reports its class's name, refuses to share it with another open
 * store or a family, and a reopen without it runs the named policy over what it left.
 */
class PolicyInstanceTest {
    @TempDir
    Path dir;

    /** Records every view it is asked about and persists a marker state; merges nothing. */
    static final class RecordingPolicy implements MergePolicy {
        final List<TreeView> asked = new CopyOnWriteArrayList<>();
        final byte[] state;

        RecordingPolicy(String state) {
            this.state = state.getBytes(UTF_8);
        }

        @Override
        public List<MergeTask> pickMerges(TreeView tree) {
            asked.add(tree);
            return List.of();
        }

        @Override
        public byte[] persistentState(TreeView tree) {
            return state.clone();
        }
    }

    private static byte[] key(int i) {
        return TestKeys.padded("k", i, 5).getBytes(UTF_8);
    }

    private static void writeAndFlush(LsmStore store, int from, int to) {
        for (int i = from; i < to; i++) {
            store.put(key(i), key(i));
        }
        store.flush();
        store.awaitMerges();
    }

    @Test
    void theStoreRunsTheInstanceAndReportsItsClassName() {
        RecordingPolicy policy = new RecordingPolicy("a");
        StoreConfig config = StoreConfig.builder().memtableBytes(64 << 10).mergePolicy(policy).build();
        assertSame(policy, config.mergePolicyInstance());
        assertEquals("RecordingPolicy", config.mergePolicy());
        assertEquals(Map.of(), config.mergePolicyParams());
        assertTrue(config.toString().contains("instance of " + RecordingPolicy.class.getName()), config.toString());
        try (LsmStore store = LsmStore.open(dir, config)) {
            writeAndFlush(store, 0, 100);
            assertFalse(policy.asked.isEmpty(), "the instance was asked after the flush");
            assertEquals(1, policy.asked.get(policy.asked.size() - 1).components().size());
            assertEquals(64 << 10, policy.asked.get(0).settings().memtableBytes(),
                    "every view carries the store's memtable size");
            assertEquals("RecordingPolicy", store.config().mergePolicy());
        }
    }

    @Test
    void aNameChosenAfterTheInstanceReplacesIt() {
        StoreConfig config = StoreConfig.builder().mergePolicy(new RecordingPolicy("a")).mergePolicy("no-merge").build();
        assertNull(config.mergePolicyInstance());
        assertEquals("no-merge", config.mergePolicy());
        assertThrows(IllegalArgumentException.class, () -> StoreConfig.builder().mergePolicy((MergePolicy) null));
        // An instance needs no registered name: build does not look one up.
        assertNull(StoreConfig.builder().mergePolicy("no-such-policy").mergePolicy(new RecordingPolicy("a"))
                .build().mergePolicyParams().get("x"));
    }

    @Test
    void anInstanceServesOneOpenStoreAtATime() {
        RecordingPolicy policy = new RecordingPolicy("a");
        StoreConfig config = StoreConfig.builder().memtableBytes(64 << 10).mergePolicy(policy).build();
        Path other = dir.resolve("other");
        try (LsmStore first = LsmStore.open(dir.resolve("first"), config)) {
            StoreException e = assertThrows(StoreException.class, () -> LsmStore.open(other, config));
            assertTrue(e.getMessage().contains(dir.resolve("first").toString()), e.getMessage());
            assertFalse(Files.exists(other), "the refused open created nothing");
            writeAndFlush(first, 0, 10);
        }
        // Closed: the instance may run a store again, and its state in memory carries over.
        int asked = policy.asked.size();
        try (LsmStore second = LsmStore.open(other, config)) {
            writeAndFlush(second, 0, 10);
            assertTrue(policy.asked.size() > asked);
        }
    }

    @Test
    void aFailedOpenReleasesTheInstance() {
        RecordingPolicy held = new RecordingPolicy("a");
        RecordingPolicy policy = new RecordingPolicy("b");
        try (LsmStore open = LsmStore.open(dir, StoreConfig.builder().mergePolicy(held).build())) {
            // The directory is locked by the open store: this open fails after claiming `policy`.
            assertThrows(StoreException.class,
                    () -> LsmStore.open(dir, StoreConfig.builder().mergePolicy(policy).build()));
            try (LsmStore other = LsmStore.open(dir.resolve("other"), StoreConfig.builder().mergePolicy(policy).build())) {
                other.put(key(1), key(1));
            }
        }
    }

    @Test
    void familiesCannotShareTheInstance() {
        RecordingPolicy policy = new RecordingPolicy("a");
        ConfigException e = assertThrows(ConfigException.class, () -> StoreConfig.builder().mergePolicy(policy)
                .family("logs", FamilyOptions.defaults()).build());
        assertTrue(e.getMessage().contains("logs") && e.getMessage().contains("instance"), e.getMessage());
        // A family with a policy of its own is fine.
        StoreConfig config = StoreConfig.builder().mergePolicy(policy)
                .family("logs", FamilyOptions.builder().mergePolicy("no-merge").build()).build();
        try (LsmStore store = LsmStore.open(dir, config)) {
            ColumnFamily logs = store.columnFamily("logs");
            store.put(logs, key(1), key(2));
            assertArrayEquals(key(2), store.get(logs, key(1)));
            IllegalArgumentException created = assertThrows(IllegalArgumentException.class,
                    () -> store.createColumnFamily("more", FamilyOptions.defaults()));
            assertTrue(created.getMessage().contains("instance"), created.getMessage());
            assertEquals(2, store.listColumnFamilies().size(), "nothing was created");
        }
    }

    @Test
    void aReopenWithoutTheInstanceRunsTheNamedPolicyOverItsState() {
        RecordingPolicy first = new RecordingPolicy("state of the first");
        try (LsmStore store = LsmStore.open(dir, StoreConfig.builder().memtableBytes(64 << 10).mergePolicy(first).build())) {
            writeAndFlush(store, 0, 100);
            writeAndFlush(store, 100, 200);
        }
        // By name: the default policy runs over the two tables, the data is all there.
        try (LsmStore store = LsmStore.open(dir, StoreConfig.builder().memtableBytes(64 << 10).build())) {
            assertEquals("size-tiered", store.config().mergePolicy());
            assertNull(store.config().mergePolicyInstance());
            for (int i = 0; i < 200; i++) {
                assertArrayEquals(key(i), store.get(key(i)));
            }
        }
        // Nothing on disk named the instance; a new instance is handed the state the last policy left.
        RecordingPolicy second = new RecordingPolicy("second");
        try (LsmStore store = LsmStore.open(dir, StoreConfig.builder().mergePolicy(second).build())) {
            writeAndFlush(store, 200, 210);
            // size-tiered keeps the state it is shown, so the first view the new instance gets holds the old one's.
            assertEquals("state of the first", new String(second.asked.get(0).policyState(), UTF_8));
            assertEquals("second", new String(second.asked.get(second.asked.size() - 1).policyState(), UTF_8));
        }
    }

    @Test
    void aReaderOfAnInstanceStoreRunsNoPolicyAndClaimsNothing() {
        RecordingPolicy policy = new RecordingPolicy("a");
        StoreConfig config = StoreConfig.builder().memtableBytes(64 << 10).mergePolicy(policy).build();
        try (LsmStore writer = LsmStore.open(dir, config)) {
            writeAndFlush(writer, 0, 50);
            try (LsmStore reader = LsmStore.openReadOnly(dir, config)) {
                assertArrayEquals(key(7), reader.get(key(7)));
            }
        }
    }
}
