package dev.strata.lsm.engine;

import dev.strata.lsm.CorruptionException;
import dev.strata.lsm.LsmStore;
import dev.strata.lsm.StoreConfig;
import dev.strata.lsm.fault.CrashImages;
import dev.strata.lsm.io.FileChannelStorageIO;
import dev.strata.lsm.io.ForwardingStorageIO;
import dev.strata.lsm.io.ForwardingStorageIO.ForwardingPageFile;
import dev.strata.lsm.io.IoPurpose;
import dev.strata.lsm.io.OpenMode;
import dev.strata.lsm.io.PageFile;
import dev.strata.lsm.policy.ComponentView;
import dev.strata.lsm.policy.MergeTask;
import dev.strata.lsm.policy.Placement;
import dev.strata.lsm.testkit.TestKeys;
import dev.strata.lsm.version.Manifest;
import dev.strata.lsm.version.TableFiles;
import dev.strata.lsm.WalSyncMode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A merge's manifest append tears (half the record reaches the file, then EIO) and the
 * process is killed at once, before the engine cuts the manifest back or supersedes it.
 * Found by {@code strata-bench torture --wal-mode none --seed 11}: the crash left the
 * merge's output unreferenced beside the torn record and no WAL segment (mode none writes
 * none), and open refused ("the damaged record was acknowledged, so opening would lose
 * data"), although the output held only data of inputs the intact edits still reference.
 * The crash image is taken inside the failing append, so it is exactly what a kill at that
 * moment leaves; it must open with every flushed key.
 */
class TornMergeEditTest {
    private static final int KEYS = 1500;

    private final ScriptedPolicy policy = new ScriptedPolicy();

    @TempDir
    Path tmp;

    /**
     * Tears the first manifest append made after a merge output has been forced, copying the
     * store's directory right after the half record is written.
     */
    static final class TearAfterMergeIO extends ForwardingStorageIO {
        final Path dir;
        final Path image;
        volatile boolean armed;
        final CountDownLatch torn = new CountDownLatch(1);

        TearAfterMergeIO(Path dir, Path image) {
            super(new FileChannelStorageIO());
            this.dir = dir;
            this.image = image;
        }

        @Override
        public PageFile open(Path path, OpenMode mode, IoPurpose purpose) throws IOException {
            PageFile f = super.open(path, mode, purpose);
            boolean creating = mode == OpenMode.CREATE_NEW || mode == OpenMode.CREATE;
            if (purpose == IoPurpose.MERGE && creating) {
                return new ForwardingPageFile(f) {
                    @Override
                    public void force(boolean metadata) throws IOException {
                        super.force(metadata);
                        armed = true; // the output is durable: its install edit comes next
                    }
                };
            }
            if (purpose != IoPurpose.MANIFEST) {
                return f;
            }
            return new ForwardingPageFile(f) {
                @Override
                public long append(ByteBuffer src) throws IOException {
                    tearIfArmed(src, () -> super.append(half(src)));
                    return super.append(src);
                }

                @Override
                public void write(ByteBuffer src, long position) throws IOException {
                    tearIfArmed(src, () -> {
                        super.write(half(src), position);
                        return 0L;
                    });
                    super.write(src, position);
                }
            };
        }

        private static ByteBuffer half(ByteBuffer src) {
            ByteBuffer h = src.duplicate();
            h.limit(h.position() + src.remaining() / 2);
            return h;
        }

        private interface Write {
            long run() throws IOException;
        }

        private void tearIfArmed(ByteBuffer src, Write halfWrite) throws IOException {
            if (!armed || src.remaining() < 2 || torn.getCount() == 0) {
                return;
            }
            armed = false;
            halfWrite.run();
            // The kill: the page cache holds what was written, nothing more.
            CrashImages.copy(dir, image);
            torn.countDown();
            throw new IOException("Input/output error (injected torn append)");
        }
    }

    private static byte[] key(char range, int i) {
        return TestKeys.padded(range + "-", i, 6).getBytes(UTF_8);
    }

    private static Set<String> tables(Path dir) throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.map(p -> p.getFileName().toString()).filter(n -> TableFiles.parseNumber(n) >= 0)
                    .collect(Collectors.toCollection(TreeSet::new));
        }
    }

    @ParameterizedTest
    @EnumSource(value = WalSyncMode.class, names = {"NONE", "SYNC"})
    void aTornMergeEditFollowedByAKillLeavesAStoreThatOpens(WalSyncMode walMode) throws Exception {
        Path dir = tmp.resolve("db");
        Path image = tmp.resolve("crashed");
        TearAfterMergeIO io = new TearAfterMergeIO(dir, image);
        StoreConfig config = StoreConfig.builder().memtableBytes(1 << 20).backgroundThreads(1)
                .walMode(walMode).mergePolicy(policy).storageIO(io).build();
        try (LsmStore store = LsmStore.open(dir, config)) {
            for (int i = 0; i < KEYS; i++) {
                store.put(key('a', i), key('a', i));
            }
            store.flush();
            policy.script.set(tree -> tree.level(0).runs().size() == 2 ? List.of(MergeTask.of(
                    tree.level(0).runs().stream().flatMap(r -> r.components().stream()).map(ComponentView::id)
                            .toList(), Placement.newRun(1), "the merge whose edit tears")) : List.<MergeTask>of());
            for (int i = 0; i < KEYS; i++) {
                store.put(key('b', i), key('b', i));
            }
            store.flush();
            assertTrue(io.torn.await(30, TimeUnit.SECONDS), "the merge's manifest append tore");
            store.awaitMerges();
        }
        // The image is the torture's failure: a damaged last record, and a table it does not reference.
        Path manifest = Manifest.readCurrent(new FileChannelStorageIO(), image);
        Manifest.Log log = Manifest.readLog(new FileChannelStorageIO(), manifest);
        assertTrue(log.tailDamaged(), "the crash image's manifest ends in the torn record");
        Set<Long> referenced = Manifest.referencedTables(new FileChannelStorageIO(), manifest);
        Set<String> unreferenced = new TreeSet<>(tables(image));
        unreferenced.removeIf(n -> referenced.contains(TableFiles.parseNumber(n)));
        assertFalse(unreferenced.isEmpty(), "the merge's output is in the image, unreferenced");
        // And a table another job was still writing when the kill came: the first pages of a
        // finished one, no footer at its end.
        String unfinished = TableFiles.fileName(999_999);
        byte[] someTable = Files.readAllBytes(image.resolve(unreferenced.iterator().next()));
        Files.write(image.resolve(unfinished), java.util.Arrays.copyOf(someTable, Math.min(8192, someTable.length / 2)));

        try (LsmStore reopened = LsmStore.open(image, StoreConfig.builder().memtableBytes(1 << 20)
                .walMode(walMode).build())) {
            for (char r : new char[] {'a', 'b'}) {
                for (int i = 0; i < KEYS; i++) {
                    assertArrayEquals(key(r, i), reopened.get(key(r, i)), r + " " + i);
                }
            }
        }
        Set<String> left = tables(image);
        assertFalse(left.contains(unfinished) || left.stream().anyMatch(unreferenced::contains),
                "the open deletes the orphans once the torn record is shown harmless: " + left);
        // The live store, which went on after the failed append, is whole too.
        try (LsmStore reopened = LsmStore.open(dir, StoreConfig.builder().memtableBytes(1 << 20)
                .walMode(walMode).build())) {
            for (char r : new char[] {'a', 'b'}) {
                for (int i = 0; i < KEYS; i++) {
                    assertArrayEquals(key(r, i), reopened.get(key(r, i)), r + " " + i);
                }
            }
        }
    }

    /**
     * The rule's other side: in WAL mode none, a flush's acknowledged record cut short later
     * (its table holds entries newer than the intact edits record, and no WAL holds them)
     * still fails the open, naming the table, and deletes nothing.
     */
    @Test
    void aDamagedFlushEditWhoseTableHoldsNewerEntriesStillFailsTheOpen() throws Exception {
        Path dir = tmp.resolve("db");
        StoreConfig config = StoreConfig.builder().memtableBytes(1 << 20).walMode(WalSyncMode.NONE)
                .mergePolicy("no-merge").build();
        try (LsmStore store = LsmStore.open(dir, config)) {
            for (char r : new char[] {'a', 'b'}) {
                for (int i = 0; i < KEYS; i++) {
                    store.put(key(r, i), key(r, i));
                }
                store.flush(); // acknowledged: 'b' is durable once this returns
            }
        }
        FileChannelStorageIO plain = new FileChannelStorageIO();
        Path manifest = Manifest.readCurrent(plain, dir);
        Manifest.Log log = Manifest.readLog(plain, manifest);
        // Close wrote nothing more; the last record installs the flush of 'b'. Cut it short.
        long lastRecord = log.offsets().get(log.offsets().size() - 1);
        try (FileChannel c = FileChannel.open(manifest, StandardOpenOption.WRITE)) {
            c.truncate(lastRecord + 20);
        }
        Set<String> before = tables(dir);
        CorruptionException e = assertThrows(CorruptionException.class, () -> LsmStore.open(dir, config).close());
        assertTrue(e.getMessage().contains("newer than") && e.getMessage().contains("repair"), e.getMessage());
        assertEquals(before, tables(dir), "a refused open deletes nothing");
    }
}
