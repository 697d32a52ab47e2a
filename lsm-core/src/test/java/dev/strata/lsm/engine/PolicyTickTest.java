package dev.strata.lsm.engine;

import dev.strata.lsm.LsmStore;
import dev.strata.lsm.StoreConfig;
import dev.strata.lsm.testkit.ManualClock;
import dev.strata.lsm.policy.ComponentId;
import dev.strata.lsm.policy.ComponentView;
import dev.strata.lsm.policy.MergeTask;
import dev.strata.lsm.policy.Placement;
import dev.strata.lsm.policy.RunningMerge;
import dev.strata.lsm.policy.TreeView;
import dev.strata.lsm.testkit.TestKeys;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The policy tick consults the policy on an idle store, so a time-based trigger fires with
 * no flush or merge to prompt it; and every view shows the merges running meanwhile.
 */
class PolicyTickTest {
    /** This test's policy: each test (instance) its own. */
    private final ScriptedPolicy policy = new ScriptedPolicy();
    @TempDir
    Path dir;


    private static byte[] key(char range, int i) {
        return TestKeys.padded(range + "-", i, 6).getBytes(UTF_8);
    }

    private static List<ComponentId> levelZero(TreeView tree) {
        return tree.level(0).runs().stream().flatMap(r -> r.components().stream()).map(ComponentView::id).toList();
    }

    private static void fillTwoRuns(LsmStore store) {
        for (char r : new char[] {'a', 'b'}) {
            for (int i = 0; i < 500; i++) {
                store.put(key(r, i), key(r, i));
            }
            store.flush();
        }
    }

    /** Waits up to 10 s for the store's merge count to reach {@code n}. */
    private static boolean awaitMerges(LsmStore store, long n) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (store.stats().mergeCount() < n) {
            if (System.nanoTime() > deadline) {
                return false;
            }
            Thread.sleep(10);
        }
        return true;
    }

    @Test
    void aTimeTriggerFiresOnAnIdleStore() throws Exception {
        ManualClock clock = new ManualClock(1_000_000);
        StoreConfig config = StoreConfig.builder().memtableBytes(1 << 20).mergePolicy(policy)
                .policyTickMillis(50).clock(clock).build();
        try (LsmStore store = LsmStore.open(dir, config)) {
            fillTwoRuns(store);
            store.awaitMerges();
            long due = clock.millis() + 300;
            // Merge level 0 once the view's clock reaches `due`; until then ask for nothing.
            List<Long> askedAt = new CopyOnWriteArrayList<>();
            policy.script.set(tree -> {
                askedAt.add(tree.nowMillis());
                return tree.nowMillis() >= due && tree.level(0).runs().size() == 2
                        ? List.of(MergeTask.of(levelZero(tree), Placement.newRun(1), "due")) : List.of();
            });
            // The idle store's ticks ask the policy; before the due time it merges nothing.
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (askedAt.size() < 2 && System.nanoTime() < deadline) {
                Thread.sleep(5);
            }
            assertTrue(askedAt.size() >= 2, "the tick asked the policy twice within 10 s: " + askedAt);
            assertEquals(0, store.stats().mergeCount());
            clock.advanceMillis(300);
            assertTrue(awaitMerges(store, 1), "the tick never asked the policy after the trigger's time");
            assertEquals(due, askedAt.get(askedAt.size() - 1), "the merge was asked for at the due time: " + askedAt);
            assertTrue(askedAt.subList(0, askedAt.size() - 1).stream().allMatch(t -> t < due), askedAt.toString());
            for (char r : new char[] {'a', 'b'}) {
                for (int i = 0; i < 500; i++) {
                    assertArrayEquals(key(r, i), store.get(key(r, i)));
                }
            }
        }
    }

    /** The store's flush thread, which also runs the policy tick (docs/engine.md, "Threads"). */
    private Thread flushThread() {
        String name = "strata-flush-" + dir.getFileName();
        return Thread.getAllStackTraces().keySet().stream().filter(t -> t.getName().equals(name)).findFirst()
                .orElseThrow(() -> new AssertionError("no thread " + name));
    }

    /**
     * Waits (up to 10 s) until the flush thread is idle, blocked in its executor's work queue,
     * and returns how it waits there: {@code WAITING} when nothing is scheduled (the queue is
     * empty), {@code TIMED_WAITING} when a task is due later, such as the next policy tick.
     */
    private static Thread.State idleState(Thread t) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (System.nanoTime() < deadline) {
            Thread.State state = t.getState();
            boolean inQueue = Arrays.stream(t.getStackTrace())
                    .anyMatch(f -> f.getClassName().contains("DelayedWorkQueue") && f.getMethodName().equals("take"));
            // The state read after the stack: still waiting means it was waiting in the queue.
            if (inQueue && (state == Thread.State.WAITING || state == Thread.State.TIMED_WAITING)
                    && t.getState() == state) {
                return state;
            }
            Thread.sleep(5);
        }
        throw new AssertionError("the flush thread never went idle: " + Arrays.toString(t.getStackTrace()));
    }

    @Test
    void withTheTickOffAnIdleStoreIsNotAsked() throws Exception {
        StoreConfig config = StoreConfig.builder().memtableBytes(1 << 20).mergePolicy(policy)
                .policyTickMillis(0).build();
        try (LsmStore store = LsmStore.open(dir, config)) {
            fillTwoRuns(store);
            store.awaitMerges(); // the decisions the flushes asked for are made
            List<Long> asked = new CopyOnWriteArrayList<>();
            policy.script.set(tree -> {
                asked.add(tree.nowMillis());
                return List.of();
            });
            // The tick is the only timed work of the flush thread: with it off, the idle thread
            // waits with nothing scheduled, so nothing will ask the policy until a write does.
            assertEquals(Thread.State.WAITING, idleState(flushThread()), "a task is scheduled on the idle store");
            assertEquals(List.of(), asked, "the policy was consulted with the tick off and nothing happening");
            // The recording works: a flush does ask the policy.
            store.put(key('c', 0), key('c', 0));
            store.flush();
            store.awaitMerges();
            assertTrue(!asked.isEmpty(), "a flush did not consult the policy");
        }
    }

    @Test
    void withTheTickOnTheIdleFlushThreadWaitsForTheNextTick() throws Exception {
        StoreConfig config = StoreConfig.builder().memtableBytes(1 << 20).mergePolicy(policy)
                .policyTickMillis(60_000).build();
        try (LsmStore store = LsmStore.open(dir, config)) {
            fillTwoRuns(store);
            store.awaitMerges();
            assertEquals(Thread.State.TIMED_WAITING, idleState(flushThread()), "no tick is scheduled");
        }
    }

    @Test
    void aViewTakenDuringAMergeShowsIt() throws Exception {
        GatedMergeIO io = new GatedMergeIO();
        StoreConfig config = StoreConfig.builder().memtableBytes(1 << 20).backgroundThreads(1)
                .mergePolicy(policy).policyTickMillis(20).storageIO(io).build();
        LsmStore store = LsmStore.open(dir, config);
        List<RunningMerge> seen = new CopyOnWriteArrayList<>();
        try {
            fillTwoRuns(store);
            List<ComponentId> inputs = new CopyOnWriteArrayList<>();
            policy.script.set(tree -> {
                inputs.addAll(levelZero(tree));
                return List.of(MergeTask.of(levelZero(tree), Placement.newRun(1), "held"));
            });
            assertTrue(io.mergeWriting.await(10, TimeUnit.SECONDS), "the merge started and is held");
            // The next tick's view must list the held merge.
            policy.script.set(tree -> {
                seen.addAll(tree.runningMerges());
                return List.of();
            });
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (seen.isEmpty() && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertTrue(!seen.isEmpty(), "no view listed the running merge");
            RunningMerge m = seen.get(0);
            assertEquals(inputs.size(), m.inputs().size());
            assertTrue(m.inputs().containsAll(inputs), m.inputs() + " vs " + inputs);
            assertEquals(1, m.targetLevel());
            assertTrue(m.inputBytes() > 0);
            assertEquals("held", m.reason());
        } finally {
            policy.script.set(null);
            io.release();
            store.awaitMerges();
            store.close();
        }
    }
}
