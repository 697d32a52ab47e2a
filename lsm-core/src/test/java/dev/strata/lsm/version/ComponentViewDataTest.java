package dev.strata.lsm.version;

import dev.strata.lsm.LsmStore;
import dev.strata.lsm.StoreConfig;
import dev.strata.lsm.testkit.ManualClock;
import dev.strata.lsm.policy.ComponentView;
import dev.strata.lsm.policy.TreeView;
import dev.strata.lsm.testkit.TestKeys;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What the engine shows a policy about each component: wall-clock creation time and
 * oldest-tombstone time (durable across reopen, carried through merges), logical and
 * physical bytes, and read counters.
 */
class ComponentViewDataTest {
    /** This test's policy: each test (instance) its own. */
    private final ViewProbePolicy policy = new ViewProbePolicy();
    @TempDir
    Path dir;


    /** The stores' clock: the test moves it, so every time a table or view shows is known exactly. */
    private final ManualClock clock = new ManualClock(1_000_000);

    StoreConfig config() {
        return StoreConfig.builder().memtableBytes(64 << 10).mergePolicy(policy).clock(clock).build();
    }

    static byte[] key(String prefix, int i) {
        return TestKeys.padded(prefix + "-", i, 5).getBytes(UTF_8);
    }

    /** The components the policy last saw, oldest position first. */
    List<ComponentView> seen() {
        TreeView v = policy.last.get();
        assertNotNull(v, "the policy was never consulted");
        List<ComponentView> all = new java.util.ArrayList<>(v.components());
        java.util.Collections.reverse(all);
        return all;
    }

    @Test
    void creationAndTombstoneTimesArePersistedAndInheritedByMerges() throws Exception {
        long firstFlush = clock.millis();
        long secondFlush;
        List<ComponentView> first;
        try (LsmStore store = LsmStore.open(dir, config())) {
            for (int i = 0; i < 100; i++) {
                store.put(key("a", i), "v".getBytes(UTF_8));
            }
            store.flush();
            secondFlush = clock.advanceMillis(20);
            for (int i = 0; i < 100; i++) {
                store.put(key("b", i), "v".getBytes(UTF_8));
            }
            store.delete(key("a", 3));
            store.flush();
            // The policy is consulted on the decider thread: wait for that decision.
            store.awaitMerges();
            first = seen();
        }
        assertEquals(2, first.size(), "two flushes, two components: " + first);
        ComponentView noDeletes = first.get(0);
        ComponentView withDelete = first.get(1);
        assertEquals(firstFlush, noDeletes.creationTimeMillis(), "a table is stamped with the store's clock");
        assertEquals(secondFlush, withDelete.creationTimeMillis(), "the second flush was written 20 ms later");
        assertEquals(ComponentView.NO_TOMBSTONE, noDeletes.oldestTombstoneMillis());
        assertEquals(withDelete.creationTimeMillis(), withDelete.oldestTombstoneMillis(),
                "a flushed tombstone is as old as its table");

        // Reopen: the times come back from the manifest; then merge the delete's table with a newer one.
        long mergeTime = clock.advanceMillis(30);
        try (LsmStore store = LsmStore.open(dir, config())) {
            store.put(key("c", 0), "v".getBytes(UTF_8));
            policy.mergeNewest.set(true);
            store.flush();
            store.awaitMerges();
            store.put(key("c", 1), "v".getBytes(UTF_8));
            store.flush(); // consults the policy again, after the merge
            store.awaitMerges();
            List<ComponentView> now = seen();
            ComponentView merged = now.stream().filter(c -> c.tombstoneCount() > 0).findFirst().orElseThrow();
            assertEquals(mergeTime, merged.creationTimeMillis(), "the merge output is new");
            assertEquals(withDelete.oldestTombstoneMillis(), merged.oldestTombstoneMillis(),
                    "the merged tombstone keeps the time it first reached disk");
        }
        try (LsmStore store = LsmStore.open(dir, config())) {
            store.put(key("d", 0), "v".getBytes(UTF_8));
            store.flush();
            store.awaitMerges();
            ComponentView merged = seen().stream().filter(c -> c.tombstoneCount() > 0).findFirst().orElseThrow();
            assertEquals(withDelete.oldestTombstoneMillis(), merged.oldestTombstoneMillis(), "persisted across reopen");
        }
    }

    @Test
    void logicalAndPhysicalBytesAndReadCounters() throws IOException {
        try (LsmStore store = LsmStore.open(dir, config())) {
            for (int i = 0; i < 200; i++) {
                store.put(key("a", i), ("value-" + i).getBytes(UTF_8));
            }
            store.flush();
            for (int i = 0; i < 200; i++) {
                store.put(key("m", i), ("value-" + i).getBytes(UTF_8));
            }
            store.flush();
            long t0 = clock.advanceMillis(5);
            for (int r = 0; r < 7; r++) {
                assertNotNull(store.get(key("a", r)));
            }
            assertNotNull(store.get(key("m", 5)));
            store.put(key("z", 0), "v".getBytes(UTF_8));
            store.flush(); // shows the policy the counters
            store.awaitMerges();
            List<ComponentView> seen = seen();
            ComponentView a = seen.get(0);
            ComponentView m = seen.get(1);
            assertEquals(7, a.reads(), "seven point reads searched the table of the a- keys");
            assertEquals(1, m.reads(), "one point read searched the table of the m- keys");
            assertEquals(t0, a.lastAccessMillis(), "last access on the store's clock");
            assertEquals(0, seen.get(2).reads());
            assertEquals(0, seen.get(2).lastAccessMillis());
            for (ComponentView c : seen) {
                long onDisk = Files.size(dir.resolve(TableFiles.fileName(c.id().fileNumber())));
                assertEquals(onDisk, c.physicalBytes(), "physical bytes are the file's length for " + c);
                assertTrue(c.sizeBytes() > 0 && c.sizeBytes() <= c.physicalBytes(), c.toString());
            }
        }
    }
}
