package dev.strata.lsm.engine;

import dev.strata.lsm.LsmStore;
import dev.strata.lsm.StoreConfig;
import dev.strata.lsm.fault.CrashImages;
import dev.strata.lsm.io.ForwardingStorageIO.ForwardingPageFile;
import dev.strata.lsm.io.IoPurpose;
import dev.strata.lsm.io.OpenMode;
import dev.strata.lsm.io.PageFile;
import dev.strata.lsm.policy.ComponentView;
import dev.strata.lsm.policy.MergeTask;
import dev.strata.lsm.policy.Placement;
import dev.strata.lsm.WalSyncMode;
import dev.strata.lsm.testkit.TestKeys;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A manifest append that fails half-written must not leave a manifest that open refuses.
 * Found by {@code strata-bench torture} (WAL mode {@code none}): a flush's manifest append
 * tore, the new manifest that should have superseded it failed too, and the process was
 * killed while a merge was writing its outputs. Open then saw a damaged last record beside
 * tables the intact edits do not reference and no WAL to explain them, which is what an
 * acknowledged record damaged later looks like, and refused to open.
 */
class TornManifestTest {
    /** This test's policy: each test (instance) its own. */
    private final ScriptedPolicy policy = new ScriptedPolicy();
    private static final int KEYS = 1000;

    @TempDir
    Path tmp;


    /** What fails once the manifest faults are armed. */
    enum Faults {
        /** Appends tear; cutting the manifest back works. */
        TEAR,
        /** Appends tear and truncation fails; a new manifest works. */
        TEAR_NO_TRUNCATE,
        /** Appends tear, truncation and new manifests fail until healed. */
        TEAR_NOTHING_WORKS
    }

    /**
     * Merge outputs wait at the {@link GatedMergeIO} gate; appends to manifest files opened before arming tear, and
     * truncation and manifest creation fail, as armed.
     */
    static final class TornManifestIO extends GatedMergeIO {
        final AtomicInteger flushTablesCreated = new AtomicInteger();
        final CountDownLatch flushGate = new CountDownLatch(1);
        /** The flush table (counted from 1) whose creation waits for {@link #flushGate}. */
        volatile int holdFlushAt = -1;
        volatile boolean tearAppends;
        volatile boolean failTruncate;
        volatile boolean failCreate;

        void arm(Faults faults) {
            failCreate = faults == Faults.TEAR_NOTHING_WORKS;
            failTruncate = faults != Faults.TEAR;
            tearAppends = true;
        }

        void heal() {
            tearAppends = false;
            failTruncate = false;
            failCreate = false;
        }

        @Override
        public PageFile open(Path path, OpenMode mode, IoPurpose purpose) throws IOException {
            boolean creating = mode == OpenMode.CREATE_NEW || mode == OpenMode.CREATE;
            // Not the flush's FLUSHGROUP intent (WAL mode none), written before its table: this
            // scenario is a manifest whose tail stays torn while the flush's table is written.
            boolean intent = path.getFileName().toString().startsWith("FLUSHGROUP");
            if (purpose == IoPurpose.MANIFEST && creating && failCreate && !intent) {
                throw new IOException("Input/output error (injected on create of " + path + ")");
            }
            if (purpose == IoPurpose.FLUSH && creating && flushTablesCreated.incrementAndGet() == holdFlushAt) {
                try {
                    flushGate.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IOException("interrupted while held", e);
                }
            }
            PageFile f = super.open(path, mode, purpose); // merge outputs held at the gate
            if (purpose != IoPurpose.MANIFEST) {
                return f;
            }
            boolean tearable = !tearAppends; // files opened once armed (a new manifest, CURRENT) write whole
            return new ForwardingPageFile(f) {
                @Override
                public long append(ByteBuffer src) throws IOException {
                    if (tearable && tearAppends && src.remaining() > 1) {
                        ByteBuffer half = src.duplicate();
                        half.limit(half.position() + src.remaining() / 2);
                        super.append(half);
                        throw new IOException("Input/output error (injected torn append)");
                    }
                    return super.append(src);
                }

                @Override
                public void write(ByteBuffer src, long position) throws IOException {
                    if (tearable && tearAppends && src.remaining() > 1) {
                        ByteBuffer half = src.duplicate();
                        half.limit(half.position() + src.remaining() / 2);
                        super.write(half, position);
                        throw new IOException("Input/output error (injected torn write)");
                    }
                    super.write(src, position);
                }

                @Override
                public void truncate(long size) throws IOException {
                    if (failTruncate) {
                        throw new IOException("Input/output error (injected on truncate)");
                    }
                    super.truncate(size);
                }
            };
        }
    }

    private static byte[] key(char range, int i) {
        return TestKeys.padded(range + "-", i, 6).getBytes(UTF_8);
    }

    /**
     * A merge holds its outputs open while a flush's manifest append tears; the store is
     * then "killed" before the flush's retry installs anything. The crash image must open
     * with everything flushed before, the merge's partial outputs deleted as orphans. With
     * every manifest operation failing, no flush may write a table while the tail stays torn.
     */
    @ParameterizedTest
    @EnumSource(Faults.class)
    void aTornManifestAppendDuringARunningMergeLeavesAStoreThatOpens(Faults faults) throws Exception {
        Path dir = tmp.resolve("db");
        TornManifestIO io = new TornManifestIO();
        StoreConfig config = StoreConfig.builder().memtableBytes(1 << 20).backgroundThreads(1)
                .walMode(WalSyncMode.NONE).mergePolicy(policy).storageIO(io).build();
        LsmStore store = LsmStore.open(dir, config);
        try {
            for (int i = 0; i < KEYS; i++) {
                store.put(key('a', i), key('a', i));
            }
            store.flush();
            policy.script.set(tree -> tree.level(0).runs().size() == 2 ? List.of(MergeTask.of(
                    tree.level(0).runs().stream().flatMap(r -> r.components().stream()).map(ComponentView::id)
                            .toList(), Placement.newRun(1), "a long merge")) : List.<MergeTask>of());
            for (int i = 0; i < KEYS; i++) {
                store.put(key('b', i), key('b', i));
            }
            store.flush();
            assertTrue(io.mergeWriting.await(30, TimeUnit.SECONDS), "the merge started and is held");
            for (int i = 0; i < KEYS; i++) {
                store.put(key('c', i), key('c', i));
            }
            int flushTablesBefore = io.flushTablesCreated.get();
            // The flush's first table is installed by an append that tears; its retry's table
            // is held at creation, so the crash image shows the store between the two.
            io.holdFlushAt = flushTablesBefore + 2;
            io.arm(faults);
            CompletableFuture<Void> flush = CompletableFuture.runAsync(store::flush);
            if (faults == Faults.TEAR_NOTHING_WORKS) {
                // Until a new manifest can be written, a crash leaves the torn tail beside the
                // merge's outputs (open refuses that and points at repair), so no retry of
                // the flush may write a table meanwhile: each would widen that window.
                Thread.sleep(300);
                assertEquals(flushTablesBefore + 1, io.flushTablesCreated.get(),
                        "flushes wrote tables while the manifest's tail was torn");
                io.heal();
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (io.flushTablesCreated.get() < flushTablesBefore + 2) {
                assertTrue(System.nanoTime() < deadline, "the flush was not retried");
                Thread.sleep(5);
            }
            CrashImages.copy(dir, tmp.resolve("crashed"));
            io.heal();
            io.flushGate.countDown();
            try {
                flush.get(30, TimeUnit.SECONDS);
            } catch (ExecutionException e) {
                if (faults != Faults.TEAR_NOTHING_WORKS) {
                    throw e;
                }
                store.flush(); // that flush() saw its attempts fail; the retry since healing succeeds
            }
        } finally {
            io.heal();
            io.flushGate.countDown();
            io.gate.countDown();
            store.awaitMerges();
            store.close();
        }
        try (LsmStore reopened = LsmStore.open(tmp.resolve("crashed"),
                StoreConfig.builder().memtableBytes(1 << 20).walMode(WalSyncMode.NONE).build())) {
            for (char r : new char[] {'a', 'b'}) {
                for (int i = 0; i < KEYS; i++) {
                    assertArrayEquals(key(r, i), reopened.get(key(r, i)), r + " " + i);
                }
            }
        }
        try (LsmStore reopened = LsmStore.open(dir, StoreConfig.builder().memtableBytes(1 << 20)
                .walMode(WalSyncMode.NONE).build())) {
            for (char r : new char[] {'a', 'b', 'c'}) {
                for (int i = 0; i < KEYS; i++) {
                    assertArrayEquals(key(r, i), reopened.get(key(r, i)), r + " " + i);
                }
            }
        }
    }
}
