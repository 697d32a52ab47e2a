package dev.strata.lsm;

import dev.strata.lsm.sstable.TableOptions;
import dev.strata.lsm.io.FileChannelStorageIO;
import dev.strata.lsm.io.IoPurpose;
import dev.strata.lsm.io.OpenMode;
import dev.strata.lsm.io.PageFile;
import dev.strata.lsm.sstable.EntryType;
import dev.strata.lsm.sstable.SSTableWriter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@link TableWriter} and {@link LsmStore#ingest}: against a model, bad files, snapshots. */
class IngestTest {
    @TempDir
    Path root;

    private static byte[] key(int i) {
        return ByteBuffer.allocate(4).putInt(i).array();
    }

    private static StoreConfig config(String policy) {
        return StoreConfig.builder().memtableBytes(128 << 10).mergePolicy(policy, Map.of()).build();
    }

    private static void assertSame(TreeMap<Integer, byte[]> model, LsmStore store, String where) {
        try (Cursor c = store.scan(null, null)) {
            for (Map.Entry<Integer, byte[]> e : model.entrySet()) {
                assertTrue(c.next(), where + ": missing key " + e.getKey());
                assertArrayEquals(key(e.getKey()), c.key(), where);
                assertArrayEquals(e.getValue(), c.value(), where + ": key " + e.getKey());
            }
            assertFalse(c.next(), where + ": extra keys");
        }
    }

    /** The store's files but its WAL segments, which the store's own sweep deletes whenever a flush is done. */
    private List<String> names(Path dir) throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.map(p -> p.getFileName().toString()).filter(n -> !n.endsWith(".wal")).sorted().toList();
        }
    }

    @Test
    void ingestedAndWrittenKeysAgreeWithAModelAcrossReopens() throws IOException {
        for (String policy : List.of("size-tiered", "no-merge")) {
            long seed = new Random().nextLong();
            String replay = policy + " seed " + seed;
            Random rnd = new Random(seed);
            Path dir = root.resolve(policy);
            TreeMap<Integer, byte[]> model = new TreeMap<>();
            int file = 0;
            for (int phase = 0; phase < 3; phase++) {
                try (LsmStore store = LsmStore.open(dir, config(policy))) {
                    assertSame(model, store, "reopened, " + replay);
                    for (int round = 0; round < 4; round++) {
                        for (int i = 0; i < 500; i++) {
                            int k = rnd.nextInt(5000);
                            if (rnd.nextInt(5) == 0) {
                                store.delete(key(k));
                                model.remove(k);
                            } else {
                                byte[] v = ("w" + phase + "." + round + "." + i).getBytes();
                                store.put(key(k), v);
                                model.put(k, v);
                            }
                        }
                        // Two files, each a sorted random slice (overlapping the written keys, not each other).
                        List<Path> files = new ArrayList<>();
                        TreeMap<Integer, byte[]> after = new TreeMap<>(model);
                        Snapshot before = store.snapshot();
                        TreeMap<Integer, byte[]> beforeModel = new TreeMap<>(model);
                        int lo = rnd.nextInt(2500);
                        for (int part = 0; part < 2; part++) {
                            Path p = root.resolve("ext-" + policy + "-" + (file++) + ".sst");
                            try (TableWriter w = TableWriter.create(p, store.config())) {
                                int from = lo + part * 1250;
                                for (int k = from; k < from + 1250; k += 1 + rnd.nextInt(4)) {
                                    if (rnd.nextInt(6) == 0) {
                                        w.delete(key(k));
                                        after.remove(k);
                                    } else {
                                        byte[] v = ("i" + file + "." + k).getBytes();
                                        w.put(key(k), v);
                                        after.put(k, v);
                                    }
                                }
                                w.finish();
                            }
                            files.add(p);
                        }
                        store.ingest(files, IngestOptions.defaults().deleteFiles(rnd.nextBoolean()));
                        model = after;
                        assertSame(model, store, "after ingest " + file + ", " + replay);
                        try (Cursor c = before.scan(null, null)) {
                            int n = 0;
                            while (c.next()) {
                                n++;
                            }
                            assertEquals(beforeModel.size(), n, "a snapshot taken before the ingest, " + replay);
                        }
                        before.close();
                    }
                    store.awaitMerges();
                    assertEquals(0, store.stats().policyErrors(), replay);
                    assertSame(model, store, "end of phase " + phase + ", " + replay);
                }
            }
        }
    }

    private static Object inode(Path p) throws IOException {
        return Files.readAttributes(p, java.nio.file.attribute.BasicFileAttributes.class).fileKey();
    }

    private static List<Path> tables(Path dir) throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.filter(p -> p.toString().endsWith(".sst")).toList();
        }
    }

    private static Path external(Path p, int from, int to, String value, StoreConfig config) {
        try (TableWriter w = TableWriter.create(p, config)) {
            for (int k = from; k < to; k++) {
                w.put(key(k), (value + k).getBytes());
            }
            w.finish();
        }
        return p;
    }

    @Test
    void aMovedFileIsLinkedInAndAKeptOneIsLeftAsItWas() throws IOException {
        StoreConfig config = config("no-merge");
        Path dir = root.resolve("db");
        try (LsmStore store = LsmStore.open(dir, config)) {
            for (int k = 0; k < 3000; k++) {
                store.put(key(k), ("w" + k).getBytes());
            }
            // Kept (the default): the store copies the file; the external file's bytes stay as they were.
            Path kept = external(root.resolve("kept.sst"), 0, 1000, "kept", config);
            byte[] keptBytes = Files.readAllBytes(kept);
            store.ingest(List.of(kept), IngestOptions.defaults());
            assertArrayEquals(keptBytes, Files.readAllBytes(kept), "a kept external file is not changed");
            for (Path t : tables(dir)) {
                assertFalse(inode(t).equals(inode(kept)), "a kept external file is not linked: " + t);
            }
            // Moved: the store's table is the external file itself (a hard link), and its name is gone.
            Path moved = external(root.resolve("moved.sst"), 1000, 2000, "moved", config);
            Object movedInode = inode(moved);
            store.ingest(List.of(moved), IngestOptions.defaults().deleteFiles(true));
            assertFalse(Files.exists(moved));
            assertTrue(tables(dir).stream().anyMatch(t -> {
                try {
                    return inode(t).equals(movedInode);
                } catch (IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            }), "a moved external file is linked into the store");
            // What a kill during a move leaves: the external file with a global-sequence footer
            // appended. It is ingested again as a table of its entries, newer than every write.
            Path left = external(root.resolve("left.sst"), 2000, 3000, "left", config);
            try (dev.strata.lsm.io.PageFile f = new FileChannelStorageIO().open(left, OpenMode.READ_WRITE, IoPurpose.FLUSH)) {
                var reader = dev.strata.lsm.repair.StoreRepair.openAtLastFooter(f, 0);
                SSTableWriter.appendGlobalSeqno(f, reader.footer(), 1);
            }
            store.ingest(List.of(left), IngestOptions.defaults());
            store.put(key(2500), "after".getBytes());
        }
        try (LsmStore store = LsmStore.open(dir, config)) {
            for (int k = 0; k < 3000; k += 7) {
                String expected = k == 2500 ? "after" : (k < 1000 ? "kept" : k < 2000 ? "moved" : "left") + k;
                assertArrayEquals(expected.getBytes(), store.get(key(k)), "key " + k + " after reopening");
            }
        }
    }

    @Test
    void anIngestedTableGoesToTheDeepestLevelNothingAboveOverlaps() throws IOException {
        try (LsmStore store = LsmStore.open(root.resolve("s"), config("no-merge"))) {
            for (int i = 0; i < 1000; i++) {
                store.put(key(i), "old".getBytes());
            }
            store.flush();
            Path p = root.resolve("far.sst");
            try (TableWriter w = TableWriter.create(p, store.config())) {
                for (int i = 5000; i < 6000; i++) {
                    w.put(key(i), "ingested".getBytes());
                }
                w.finish();
            }
            store.ingest(List.of(p), IngestOptions.defaults());
            assertArrayEquals("ingested".getBytes(), store.get(key(5500)));
            assertArrayEquals("old".getBytes(), store.get(key(500)));
            assertEquals(2, store.stats().componentCount());
            // Overlapping the flushed table: the ingested version wins.
            Path q = root.resolve("over.sst");
            try (TableWriter w = TableWriter.create(q, store.config())) {
                w.put(key(10), "new".getBytes()).delete(key(11));
                w.finish();
            }
            store.put(key(12), "memtable".getBytes());
            store.ingest(List.of(q), IngestOptions.defaults());
            assertArrayEquals("new".getBytes(), store.get(key(10)));
            assertNull(store.get(key(11)));
            assertArrayEquals("memtable".getBytes(), store.get(key(12)));
            store.put(key(10), "written after".getBytes());
            assertArrayEquals("written after".getBytes(), store.get(key(10)));
        }
    }

    @Test
    void badFilesAreRejectedNamingTheProblemAndChangeNothing() throws IOException {
        Path dir = root.resolve("s");
        try (LsmStore store = LsmStore.open(dir, config("size-tiered"))) {
            for (int i = 0; i < 100; i++) {
                store.put(key(i), "v".getBytes());
            }
            store.flush();
            long seq = store.stats().lastSequence();
            List<String> files = names(dir);

            // Duplicate keys (two versions of one key: a table of a store, not of a TableWriter).
            Path dup = root.resolve("dup.sst");
            try (PageFile f = new FileChannelStorageIO().open(dup, OpenMode.CREATE_NEW, IoPurpose.FLUSH)) {
                SSTableWriter w = new SSTableWriter(f, TableOptions.of(store.config()));
                w.add(key(1), 2, EntryType.PUT, "a".getBytes());
                w.add(key(1), 1, EntryType.PUT, "b".getBytes());
                w.finishDurably();
            }
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> store.ingest(List.of(dup), IngestOptions.defaults()));
            assertTrue(e.getMessage().contains("dup.sst") && e.getMessage().contains("duplicate"), e.getMessage());

            // A corrupt page.
            Path good = root.resolve("good.sst");
            try (TableWriter w = TableWriter.create(good, store.config())) {
                for (int i = 1000; i < 3000; i++) {
                    w.put(key(i), new byte[40]);
                }
                w.finish();
            }
            Path corrupt = root.resolve("corrupt.sst");
            Files.copy(good, corrupt);
            try (FileChannel ch = FileChannel.open(corrupt, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
                ch.write(ByteBuffer.wrap(new byte[] {0x55}), 100);
            }
            e = assertThrows(IllegalArgumentException.class, () -> store.ingest(List.of(corrupt), IngestOptions.defaults()));
            assertTrue(e.getMessage().contains("corrupt.sst"), e.getMessage());

            // Not a table, another page size, overlapping files, a file listed twice, nothing at all.
            Path junk = root.resolve("junk.sst");
            Files.write(junk, new byte[8192]);
            e = assertThrows(IllegalArgumentException.class, () -> store.ingest(List.of(junk), IngestOptions.defaults()));
            assertTrue(e.getMessage().contains("junk.sst"), e.getMessage());
            Path bigPages = root.resolve("big.sst");
            try (TableWriter w = TableWriter.create(bigPages, StoreConfig.builder().pageSize(8192).build())) {
                w.put(key(5000), "x".getBytes());
                w.finish();
            }
            e = assertThrows(IllegalArgumentException.class,
                    () -> store.ingest(List.of(bigPages), IngestOptions.defaults()));
            assertTrue(e.getMessage().contains("8192"), e.getMessage());
            Path overlapping = root.resolve("overlapping.sst");
            try (TableWriter w = TableWriter.create(overlapping, store.config())) {
                w.put(key(2000), "x".getBytes());
                w.finish();
            }
            e = assertThrows(IllegalArgumentException.class,
                    () -> store.ingest(List.of(good, overlapping), IngestOptions.defaults()));
            assertTrue(e.getMessage().contains("overlap"), e.getMessage());
            assertThrows(IllegalArgumentException.class, () -> store.ingest(List.of(good, good), IngestOptions.defaults()));
            assertThrows(IllegalArgumentException.class, () -> store.ingest(List.of(), IngestOptions.defaults()));
            assertThrows(IllegalArgumentException.class, () -> store.ingest(List.of(root.resolve("none.sst")),
                    IngestOptions.defaults()));

            assertEquals(seq, store.stats().lastSequence(), "a rejected ingest took a sequence number");
            assertEquals(files, names(dir), "a rejected ingest changed the store's directory");
            assertNull(store.get(key(1500)));
            assertTrue(Files.exists(good), "a rejected ingest deleted an external file");
            // The good file alone goes in.
            store.ingest(List.of(good), IngestOptions.defaults().deleteFiles(true));
            assertEquals(40, store.get(key(1500)).length);
            assertFalse(Files.exists(good));
        }
    }

    @Test
    void tableWriterRefusesWhatAStoreWouldRefuse() {
        StoreConfig config = StoreConfig.builder().maxValueBytes(100).build();
        Path p = root.resolve("w.sst");
        try (TableWriter w = TableWriter.create(p, config)) {
            w.put(key(2), "a".getBytes());
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> w.put(key(1), "b".getBytes()));
            assertTrue(e.getMessage().contains("increasing"), e.getMessage());
            IllegalArgumentException dup = assertThrows(IllegalArgumentException.class, () -> w.put(key(2), "b".getBytes()));
            assertTrue(dup.getMessage().contains("increasing"), dup.getMessage());
            assertThrows(IllegalArgumentException.class, () -> w.delete(key(2)));
            assertThrows(IllegalArgumentException.class, () -> w.put(key(3), new byte[101]));
            assertThrows(IllegalArgumentException.class, () -> w.put(new byte[5000], "b".getBytes()));
            assertThrows(IllegalArgumentException.class, () -> w.put(null, "b".getBytes()));
            assertEquals(1, w.entryCount());
            // A rejected key changed nothing: the next key in order is taken.
            w.put(key(3), "c".getBytes());
            assertEquals(2, w.entryCount());
        }
        assertFalse(Files.exists(p), "an unfinished table file is deleted on close");
        assertThrows(IllegalArgumentException.class, () -> TableWriter.create(root, config), "exists");
        try (TableWriter w = TableWriter.create(root.resolve("empty.sst"), config)) {
            assertThrows(IllegalStateException.class, w::finish);
        }
    }
}
