package dev.strata.lsm.engine;

import dev.strata.lsm.CorruptionException;
import dev.strata.lsm.IngestOptions;
import dev.strata.lsm.LsmStore;
import dev.strata.lsm.StoreConfig;
import dev.strata.lsm.StoreException;
import dev.strata.lsm.TableWriter;
import dev.strata.lsm.WalSyncMode;
import dev.strata.lsm.fault.CrashImages;
import dev.strata.lsm.io.FileChannelStorageIO;
import dev.strata.lsm.io.ForwardingStorageIO;
import dev.strata.lsm.io.ForwardingStorageIO.ForwardingPageFile;
import dev.strata.lsm.io.IoPurpose;
import dev.strata.lsm.io.OpenMode;
import dev.strata.lsm.io.PageFile;
import dev.strata.lsm.testkit.TestKeys;
import dev.strata.lsm.version.FlushGroupRecord;
import dev.strata.lsm.version.Manifest;
import dev.strata.lsm.version.TableFiles;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * WAL mode none: a flush's (or an ingest's) manifest append tears — half the record reaches
 * the file, then EIO — and the process is killed before the engine cuts the manifest back.
 * The flush never returned, so nothing its table holds was acknowledged; the crash image
 * (copied inside the failing append, exactly what a kill then leaves) must open without it.
 * Before the flush intent, the open refused: the unreferenced table held entries newer than
 * the intact edits and no WAL segment vouched for them. An acknowledged edit damaged later
 * must still fail the open and delete nothing.
 */
class TornFlushEditTest {
    private static final int KEYS = 1200;

    @TempDir
    Path tmp;

    /** Tears the first manifest append made once armed, copying the directory right after the half record. */
    static final class TearNextManifestAppendIO extends ForwardingStorageIO {
        final Path dir;
        final Path image;
        volatile boolean armed;
        volatile boolean tore;

        TearNextManifestAppendIO(Path dir, Path image) {
            super(new FileChannelStorageIO());
            this.dir = dir;
            this.image = image;
        }

        @Override
        public PageFile open(Path path, OpenMode mode, IoPurpose purpose) throws IOException {
            PageFile f = super.open(path, mode, purpose);
            if (purpose != IoPurpose.MANIFEST || !path.getFileName().toString().startsWith("MANIFEST-")) {
                return f; // FLUSHGROUP, CURRENT and FAMILIES are written as MANIFEST IO too
            }
            return new ForwardingPageFile(f) {
                @Override
                public long append(ByteBuffer src) throws IOException {
                    if (tear(src)) {
                        super.append(half(src));
                        crash();
                    }
                    return super.append(src);
                }

                @Override
                public void write(ByteBuffer src, long position) throws IOException {
                    if (tear(src)) {
                        super.write(half(src), position);
                        crash();
                    }
                    super.write(src, position);
                }
            };
        }

        private synchronized boolean tear(ByteBuffer src) {
            if (!armed || src.remaining() < 2) {
                return false;
            }
            armed = false;
            return true;
        }

        private void crash() throws IOException {
            CrashImages.copy(dir, image); // the kill: the page cache holds what was written, nothing more
            tore = true;
            throw new IOException("Input/output error (injected torn append)");
        }

        private static ByteBuffer half(ByteBuffer src) {
            ByteBuffer h = src.duplicate();
            h.limit(h.position() + src.remaining() / 2);
            return h;
        }
    }

    private static byte[] key(char range, int i) {
        return TestKeys.padded(range + "-", i, 6).getBytes(UTF_8);
    }

    static Set<String> tables(Path dir) throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.map(p -> p.getFileName().toString()).filter(n -> TableFiles.parseNumber(n) >= 0)
                    .collect(Collectors.toCollection(TreeSet::new));
        }
    }

    private static StoreConfig.Builder none() {
        return StoreConfig.builder().memtableBytes(4 << 20).walMode(WalSyncMode.NONE).mergePolicy("no-merge");
    }

    private static void assertRange(LsmStore store, char r, boolean present) {
        for (int i = 0; i < KEYS; i++) {
            if (present) {
                assertArrayEquals(key(r, i), store.get(key(r, i)), r + " " + i);
            } else {
                assertNull(store.get(key(r, i)), r + " " + i + " was never acknowledged");
            }
        }
    }

    private static Set<String> unreferenced(Path dir) throws IOException {
        FileChannelStorageIO plain = new FileChannelStorageIO();
        Path manifest = Manifest.readCurrent(plain, dir);
        assertTrue(Manifest.readLog(plain, manifest).tailDamaged(), "the image's manifest ends in the torn record");
        Set<Long> referenced = Manifest.referencedTables(plain, manifest);
        Set<String> out = new TreeSet<>(tables(dir));
        out.removeIf(n -> referenced.contains(TableFiles.parseNumber(n)));
        return out;
    }

    /** With atomic flush (the default in mode none: a flush group of one table) and without (the family's flush lane). */
    @ParameterizedTest
    @ValueSource(booleans = {true, false})
    void aTornFlushEditFollowedByAKillOpensWithoutTheUnacknowledgedFlush(boolean atomicFlush) throws Exception {
        Path dir = tmp.resolve("db");
        Path image = tmp.resolve("crashed");
        TearNextManifestAppendIO io = new TearNextManifestAppendIO(dir, image);
        try (LsmStore store = LsmStore.open(dir, none().atomicFlush(atomicFlush).storageIO(io).build())) {
            for (int i = 0; i < KEYS; i++) {
                store.put(key('a', i), key('a', i));
            }
            store.flush(); // acknowledged
            for (int i = 0; i < KEYS; i++) {
                store.put(key('b', i), key('b', i));
            }
            io.armed = true;
            store.flush(); // its edit tears; the group retries into a new manifest and returns
            assertTrue(io.tore, "the flush's manifest append tore");
            assertRange(store, 'b', true);
        }
        Set<String> unreferenced = unreferenced(image);
        assertFalse(unreferenced.isEmpty(), "the flush's table is in the image, unreferenced");
        try (LsmStore reopened = LsmStore.open(image, none().build())) {
            assertRange(reopened, 'a', true);
            assertRange(reopened, 'b', false);
        }
        Set<String> left = tables(image);
        assertTrue(left.stream().noneMatch(unreferenced::contains), "the never-installed table is deleted: " + left);
        assertFalse(Files.exists(image.resolve(FlushGroupRecord.FILE)), "the intent is gone once resolved");
        // The live store, which went on after the failed append, holds both.
        try (LsmStore reopened = LsmStore.open(dir, none().build())) {
            assertRange(reopened, 'a', true);
            assertRange(reopened, 'b', true);
        }
    }

    /**
     * The other side: flush 'b' was acknowledged; while the next flush is under way (its intent
     * on disk) the process dies, and later the acknowledged edit of 'b' is found cut short. The
     * table of 'b' holds entries newer than the intact edits but none above the intent's
     * sequence number: the open must refuse, pointing at repair, and delete nothing.
     */
    @Test
    void anAcknowledgedFlushEditDamagedLaterStillFailsTheOpenBesideAnIntent() throws Exception {
        Path dir = tmp.resolve("db");
        Path image = tmp.resolve("crashed");
        TearNextManifestAppendIO io = new TearNextManifestAppendIO(dir, image);
        try (LsmStore store = LsmStore.open(dir, none().storageIO(io).build())) {
            for (char r : new char[] {'a', 'b', 'c'}) {
                for (int i = 0; i < KEYS; i++) {
                    store.put(key(r, i), key(r, i));
                }
                if (r == 'c') {
                    io.armed = true; // the image: c's table written and its intent on disk, its edit torn
                }
                store.flush();
            }
        }
        assertTrue(io.tore);
        assertTrue(Files.exists(image.resolve(FlushGroupRecord.FILE)), "c's intent is in the image");
        // Drop c's torn half record and cut b's acknowledged record short: media damage.
        FileChannelStorageIO plain = new FileChannelStorageIO();
        Path manifest = Manifest.readCurrent(plain, image);
        Manifest.Log log = Manifest.readLog(plain, manifest);
        long lastIntact = log.offsets().get(log.offsets().size() - 1);
        try (FileChannel c = FileChannel.open(manifest, StandardOpenOption.WRITE)) {
            c.truncate(lastIntact + 20);
        }
        Set<String> before = tables(image);
        CorruptionException e = assertThrows(CorruptionException.class,
                () -> LsmStore.open(image, none().build()).close());
        assertTrue(e.getMessage().contains("newer than") && e.getMessage().contains("repair"), e.getMessage());
        assertEquals(before, tables(image), "a refused open deletes nothing");
        assertTrue(Files.exists(image.resolve(FlushGroupRecord.FILE)), "nor the intent");
    }

    /** An ingest of three files whose edit tears, then a kill: the image opens with none of them. */
    @Test
    void aTornIngestEditFollowedByAKillIngestsNothing() throws Exception {
        Path dir = tmp.resolve("db");
        Path image = tmp.resolve("crashed");
        List<Path> files = new ArrayList<>();
        for (char r : new char[] {'x', 'y', 'z'}) {
            Path f = tmp.resolve(r + ".sst");
            try (TableWriter w = TableWriter.create(f, StoreConfig.defaults())) {
                for (int i = 0; i < KEYS; i++) {
                    w.put(key(r, i), key(r, i));
                }
                w.finish();
            }
            files.add(f);
        }
        TearNextManifestAppendIO io = new TearNextManifestAppendIO(dir, image);
        try (LsmStore store = LsmStore.open(dir, none().storageIO(io).build())) {
            for (int i = 0; i < KEYS; i++) {
                store.put(key('a', i), key('a', i));
            }
            store.flush();
            io.armed = true; // the memtable is empty: the next manifest append is the ingest's edit
            assertThrows(StoreException.class, () -> store.ingest(files, IngestOptions.defaults()));
            assertTrue(io.tore, "the ingest's manifest append tore");
            assertNull(store.get(key('y', 7)), "a failed ingest is not visible");
        }
        Set<String> unreferenced = unreferenced(image);
        assertEquals(3, unreferenced.size(), "the three ingested tables are in the image, unreferenced: " + unreferenced);
        try (LsmStore reopened = LsmStore.open(image, none().build())) {
            assertRange(reopened, 'a', true);
            for (char r : new char[] {'x', 'y', 'z'}) {
                assertRange(reopened, r, false);
            }
            assertNotNull(reopened.get(key('a', 0)));
        }
        assertTrue(tables(image).stream().noneMatch(unreferenced::contains), "the ingest's tables are deleted");
        // And the ingest, repeated on the reopened image, takes all three.
        try (LsmStore reopened = LsmStore.open(image, none().build())) {
            reopened.ingest(files, IngestOptions.defaults());
            for (char r : new char[] {'x', 'y', 'z'}) {
                assertRange(reopened, r, true);
            }
        }
    }
}
