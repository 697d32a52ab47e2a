package dev.strata.lsm.engine;

import dev.strata.lsm.LsmStore;
import dev.strata.lsm.StoreConfig;
import dev.strata.lsm.io.FileChannelStorageIO;
import dev.strata.lsm.io.ForwardingStorageIO;
import dev.strata.lsm.io.IoPurpose;
import dev.strata.lsm.io.OpenMode;
import dev.strata.lsm.io.PageFile;
import dev.strata.lsm.policy.ComponentId;
import dev.strata.lsm.policy.ComponentView;
import dev.strata.lsm.policy.MergeTask;
import dev.strata.lsm.policy.Placement;
import dev.strata.lsm.testkit.TestKeys;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Flushes run on their own lane: with one merge thread held inside a long merge, a flush
 * still completes (before the lane, it queued behind the merge on the shared pool).
 */
class FlushLaneTest {
    /** This test's policy: each test (instance) its own. */
    private final ScriptedPolicy policy = new ScriptedPolicy();
    @TempDir
    Path dir;


    /** Holds every write to a merge output until {@link #release} opens the gate. */
    static final class GatedMergeIO extends ForwardingStorageIO {
        final CountDownLatch gate = new CountDownLatch(1);
        final CountDownLatch mergeWriting = new CountDownLatch(1);

        GatedMergeIO() {
            super(new FileChannelStorageIO());
        }

        void release() {
            gate.countDown();
        }

        private void hold() throws IOException {
            mergeWriting.countDown();
            try {
                gate.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted while held", e);
            }
        }

        @Override
        public PageFile open(Path path, OpenMode mode, IoPurpose purpose) throws IOException {
            PageFile f = super.open(path, mode, purpose);
            if (purpose != IoPurpose.MERGE || mode != OpenMode.CREATE_NEW) {
                return f;
            }
            return new ForwardingPageFile(f) {
                @Override
                public void write(ByteBuffer src, long position) throws IOException {
                    hold();
                    super.write(src, position);
                }

                @Override
                public long append(ByteBuffer src) throws IOException {
                    hold();
                    return super.append(src);
                }
            };
        }
    }

    private static byte[] key(char range, int i) {
        return TestKeys.padded(range + "-", i, 6).getBytes(UTF_8);
    }

    @Test
    void aFlushCompletesWhileTheOnlyMergeThreadIsBusy() throws Exception {
        GatedMergeIO io = new GatedMergeIO();
        StoreConfig config = StoreConfig.builder().memtableBytes(1 << 20).backgroundThreads(1)
                .mergePolicy(policy).storageIO(io).build();
        LsmStore store = LsmStore.open(dir, config);
        try {
            for (int i = 0; i < 1000; i++) {
                store.put(key('a', i), key('a', i));
            }
            store.flush();
            policy.script.set(tree -> tree.level(0).runs().size() == 2 ? List.of(MergeTask.of(
                    tree.level(0).runs().stream().flatMap(r -> r.components().stream()).map(ComponentView::id)
                            .toList(), Placement.newRun(1), "a long merge")) : List.<MergeTask>of());
            for (int i = 0; i < 1000; i++) {
                store.put(key('b', i), key('b', i));
            }
            store.flush();
            assertTrue(io.mergeWriting.await(30, TimeUnit.SECONDS), "the merge started and is held");
            for (int i = 0; i < 1000; i++) {
                store.put(key('c', i), key('c', i));
            }
            CompletableFuture<Void> flush = CompletableFuture.runAsync(store::flush);
            flush.get(30, TimeUnit.SECONDS); // throws TimeoutException if the flush waits for the merge
            assertEquals(3, store.stats().flushCount());
        } finally {
            io.release();
            store.awaitMerges();
            store.close();
        }
        try (LsmStore reopened = LsmStore.open(dir, StoreConfig.builder().mergePolicy(policy).build())) {
            for (char r : new char[] {'a', 'b', 'c'}) {
                for (int i = 0; i < 1000; i++) {
                    assertArrayEquals(key(r, i), reopened.get(key(r, i)), r + " " + i);
                }
            }
            assertEquals(0, reopened.stats().policyErrors());
        }
    }
}
