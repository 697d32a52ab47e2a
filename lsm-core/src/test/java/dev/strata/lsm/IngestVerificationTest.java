package dev.strata.lsm;

import dev.strata.lsm.io.FileChannelStorageIO;
import dev.strata.lsm.io.IoPurpose;
import dev.strata.lsm.io.OpenMode;
import dev.strata.lsm.io.PageFile;
import dev.strata.lsm.sstable.EntryType;
import dev.strata.lsm.sstable.SSTableWriter;
import dev.strata.lsm.sstable.TableOptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import java.util.zip.CRC32C;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link IngestOptions.Verification#INDEX} against {@code FULL}: the lighter check still
 * refuses a wrong format version, fences out of order, a damaged footer or index page, a
 * duplicate key and entries of another sequence number; a damaged leaf passes it and is then
 * caught when read, as a {@link CorruptionException}; {@code FULL} refuses the damaged leaf.
 */
class IngestVerificationTest {
    private static final int KEYS = 20_000;
    private static final int PAGE = 4096;
    private static final IngestOptions INDEX = IngestOptions.defaults().verification(IngestOptions.Verification.INDEX);

    @TempDir
    Path root;

    private static byte[] key(int i) {
        return ByteBuffer.allocate(4).putInt(i).array();
    }

    private static byte[] value(int i) {
        byte[] v = new byte[40];
        ByteBuffer.wrap(v).putInt(i).putInt(~i);
        return v;
    }

    private static StoreConfig config() {
        return StoreConfig.builder().memtableBytes(128 << 10).mergePolicy("size-tiered", Map.of()).build();
    }

    /** A TableWriter file of keys [from, from + KEYS) (every 7th a delete): 250 leaves, an index of height 3. */
    private Path table(String name, int from) {
        Path p = root.resolve(name);
        try (TableWriter w = TableWriter.create(p, config())) {
            for (int i = from; i < from + KEYS; i++) {
                if (i % 7 == 3) {
                    w.delete(key(i));
                } else {
                    w.put(key(i), value(i));
                }
            }
            w.finish();
        }
        return p;
    }

    private static byte[] page(Path file, int pageNo) throws IOException {
        byte[] b = new byte[PAGE];
        ByteBuffer.wrap(Files.readAllBytes(file), pageNo * PAGE, PAGE).get(b);
        return b;
    }

    private static void writePage(Path file, int pageNo, byte[] page) throws IOException {
        try (var ch = java.nio.channels.FileChannel.open(file, java.nio.file.StandardOpenOption.WRITE)) {
            ch.write(ByteBuffer.wrap(page), (long) pageNo * PAGE);
        }
    }

    /** Rewrites the page checksum (CRC32C of bytes [4, P) in bytes 0-3): a page changed on purpose, not damaged. */
    private static byte[] reseal(byte[] page) {
        CRC32C crc = new CRC32C();
        crc.update(page, 4, page.length - 4);
        ByteBuffer.wrap(page).putInt(0, (int) crc.getValue());
        return page;
    }

    /** Page numbers of {@code file}'s pages whose header says {@code type} (1 leaf, 2 interior) at {@code level}. */
    private static List<Integer> pages(Path file, int type, int level) throws IOException {
        byte[] all = Files.readAllBytes(file);
        List<Integer> out = new ArrayList<>();
        for (int p = 0; p < all.length / PAGE - 1; p++) {
            if (all[p * PAGE + 4] == type && all[p * PAGE + 5] == level) {
                out.add(p);
            }
        }
        return out;
    }

    private static int lastPage(Path file) throws IOException {
        return (int) (Files.size(file) / PAGE) - 1;
    }

    private List<String> names(Path dir) throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.map(p -> p.getFileName().toString()).filter(n -> !n.endsWith(".wal")).sorted().toList();
        }
    }

    private static void assertRejected(LsmStore store, Path file, IngestOptions options, String... words) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> store.ingest(List.of(file), options),
                file + " with " + options);
        assertTrue(e.getMessage().contains(file.getFileName().toString()), e.getMessage());
        for (String w : words) {
            assertTrue(e.getMessage().contains(w), "'" + w + "' in: " + e.getMessage());
        }
    }

    @Test
    void theIndexCheckTakesAGoodFileAndTheStoreEqualsTheModel() throws IOException {
        Path good = table("good.sst", 0);
        assertFalse(pages(good, 2, 2).isEmpty(), "the test wants an index of height 3 (level-2 interior pages)");
        // Resealing an unchanged page gives the same bytes: the helper writes the format's checksum.
        byte[] leaf = page(good, pages(good, 1, 0).get(0));
        assertArrayEquals(leaf, reseal(leaf.clone()));
        try (LsmStore store = LsmStore.open(root.resolve("s"), config())) {
            store.put(key(KEYS + 5), "written".getBytes());
            store.ingest(List.of(good), INDEX.deleteFiles(true));
            assertFalse(Files.exists(good));
            try (Cursor c = store.scan(null, null)) {
                for (int i = 0; i < KEYS; i++) {
                    if (i % 7 == 3) {
                        continue;
                    }
                    assertTrue(c.next(), "missing key " + i);
                    assertArrayEquals(key(i), c.key());
                    assertArrayEquals(value(i), c.value(), "key " + i);
                }
                assertTrue(c.next());
                assertArrayEquals(key(KEYS + 5), c.key());
                assertFalse(c.next());
            }
        }
    }

    @Test
    void theIndexCheckRefusesWhatItCanSeeAndChangesNothing() throws IOException {
        Path dir = root.resolve("s");
        try (LsmStore store = LsmStore.open(dir, config())) {
            for (int i = 0; i < 50; i++) {
                store.put(key(1_000_000 + i), "v".getBytes());
            }
            store.flush();
            long seq = store.stats().lastSequence();
            List<String> files = names(dir);

            // A damaged footer (one byte of its key bounds).
            Path footer = table("footer.sst", 0);
            byte[] fp = page(footer, lastPage(footer));
            fp[200] ^= 0x40;
            writePage(footer, lastPage(footer), fp);
            assertRejected(store, footer, INDEX, "checksum mismatch in footer");

            // A wrong format version: 9 (unknown), and 4 (a store's ingested table, not TableWriter's).
            for (int version : new int[] {9, 4}) {
                Path v = table("version" + version + ".sst", 0);
                byte[] p = page(v, lastPage(v));
                ByteBuffer.wrap(p).putShort(6, (short) version);
                writePage(v, lastPage(v), reseal(p));
                assertRejected(store, v, INDEX, "version");
                assertRejected(store, v, IngestOptions.defaults(), "version");
            }

            // A damaged index page (a level-1 interior page, checksum left as it was).
            Path index = table("index.sst", 0);
            int interior = pages(index, 2, 1).get(1);
            byte[] ip = page(index, interior);
            ip[40] ^= 0x01;
            writePage(index, interior, ip);
            assertRejected(store, index, INDEX, "corrupt");

            // Fences out of order: the min key of a leaf's cell set below the previous leaf's
            // max key, the page resealed (a well-formed page holding a wrong index).
            Path unsorted = table("unsorted.sst", 0);
            interior = pages(unsorted, 2, 1).get(1);
            byte[] up = page(unsorted, interior);
            int cell = ByteBuffer.wrap(up).getShort(PAGE - 2 * 3) & 0xffff; // slot 2
            assertEquals(4, up[cell], "a 4-byte key's length varint");
            up[cell + 1] = 0; // the key's first byte: keys here are 0x0000xxxx, so it sorts first
            up[cell + 3] = 0;
            writePage(unsorted, interior, reseal(up));
            assertRejected(store, unsorted, INDEX, "out of order");

            // An upper cell whose key is not its subtree's last: the level-2 root's first cell.
            Path upper = table("upper.sst", 0);
            int rootPage = pages(upper, 2, 2).get(0);
            byte[] rp = page(upper, rootPage);
            int first = ByteBuffer.wrap(rp).getShort(PAGE - 2) & 0xffff;
            rp[first + 4] ^= 0x01; // the last byte of its 4-byte key
            writePage(upper, rootPage, reseal(rp));
            assertRejected(store, upper, INDEX, "subtree");

            // A duplicate key (two versions: a store's table, not TableWriter's).
            Path dup = root.resolve("dup.sst");
            try (PageFile f = new FileChannelStorageIO().open(dup, OpenMode.CREATE_NEW, IoPurpose.FLUSH)) {
                SSTableWriter w = new SSTableWriter(f, TableOptions.of(store.config()));
                w.add(key(1), 2, EntryType.PUT, "a".getBytes());
                w.add(key(1), 1, EntryType.PUT, "b".getBytes());
                w.finishDurably();
            }
            assertRejected(store, dup, INDEX);
            assertRejected(store, dup, IngestOptions.defaults(), "duplicate");

            assertEquals(seq, store.stats().lastSequence(), "a rejected ingest took a sequence number");
            assertEquals(files, names(dir), "a rejected ingest changed the store's directory");
            assertNull(store.get(key(5)));
        }
    }

    @Test
    void aDamagedLeafPassesTheIndexCheckAndIsCaughtWhenReadButFullVerificationRefusesIt() throws IOException {
        Path damaged = table("leaf.sst", 0);
        int leafPage = pages(damaged, 1, 0).get(100);
        byte[] lp = page(damaged, leafPage);
        lp[lp.length / 2] ^= 0x10;
        writePage(damaged, leafPage, lp);
        try (LsmStore store = LsmStore.open(root.resolve("full"), config())) {
            assertRejected(store, damaged, IngestOptions.defaults(), "corrupt");
            assertNull(store.get(key(0)));
        }
        try (LsmStore store = LsmStore.open(root.resolve("index"), config())) {
            store.ingest(List.of(damaged), INDEX);
            int corrupt = 0;
            for (int i = 0; i < KEYS; i++) {
                try {
                    byte[] v = store.get(key(i));
                    if (i % 7 == 3) {
                        assertNull(v, "key " + i);
                    } else {
                        assertArrayEquals(value(i), v, "key " + i);
                    }
                } catch (CorruptionException e) {
                    assertTrue(e.getMessage().contains("page " + leafPage), e.getMessage());
                    corrupt++;
                }
            }
            assertTrue(corrupt > 0 && corrupt < 200, "keys of the one damaged leaf fail, the others read: " + corrupt);
            CorruptionException e = assertThrows(CorruptionException.class, () -> {
                try (Cursor c = store.scan(null, null)) {
                    while (c.next()) {
                        c.value();
                    }
                }
            });
            assertTrue(e.getMessage().contains("page " + leafPage), e.getMessage());
        }
    }

    @Test
    void verificationOptionIsKeptAndValidated() {
        assertEquals(IngestOptions.Verification.FULL, IngestOptions.defaults().verification());
        IngestOptions o = IngestOptions.defaults().verification(IngestOptions.Verification.INDEX).deleteFiles(true);
        assertEquals(IngestOptions.Verification.INDEX, o.verification());
        assertTrue(o.isDeleteFiles());
        assertTrue(o.toString().contains("INDEX"), o.toString());
        assertThrows(IllegalArgumentException.class, () -> IngestOptions.defaults().verification(null));
    }
}
