package dev.strata.lsm.sstable;

import dev.strata.lsm.cache.BlockCache;
import dev.strata.lsm.io.PageFile;
import dev.strata.lsm.testkit.TestKeys;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The window index of {@link InteriorPage} must answer every search exactly as a binary
 * search over the bare page does, whatever the keys look like: long shared prefixes, keys
 * that tie on their windows, keys that are prefixes of one another, zero and 0xFF bytes,
 * one user key whose versions span many leaves, and trees tall enough that the reader
 * keeps several levels of interior pages itself. Point lookups are checked against the
 * entries the table was written from.
 */
class InteriorPageTest {
    @TempDir
    Path dir;

    private final TableFixture fixture = new TableFixture();

    /** 8 zero bytes then a big-endian counter: the benchmark's key layout. */
    @Test
    void zeroPaddedCounters() throws IOException {
        List<byte[]> keys = new ArrayList<>();
        for (long i = 0; i < 60_000; i++) {
            keys.add(ByteBuffer.allocate(16).putLong(8, i * 7).array());
        }
        checkTable("counters", puts(keys, 40));
    }

    /** Keys that agree far beyond the shared prefix, so most windows tie. */
    @Test
    void keysThatTieOnTheirWindows() throws IOException {
        List<byte[]> keys = new ArrayList<>();
        for (int i = 0; i < 40_000; i++) {
            keys.add(String.format("user/%c/0123456789abcdef/%08d", (char) ('a' + i % 3), i)
                    .getBytes(StandardCharsets.US_ASCII));
        }
        keys.sort(Arrays::compareUnsigned);
        checkTable("ties", puts(keys, 20));
    }

    /** Short keys over {0x00, 0x01, 0xFF}: many are prefixes of others, zero bytes look like padding. */
    @Test
    void prefixesZerosAndHighBytes() throws IOException {
        Random rnd = new Random(3);
        byte[] alphabet = {0x00, 0x01, (byte) 0xFF};
        TreeSet<String> seen = new TreeSet<>();
        List<byte[]> keys = new ArrayList<>();
        while (keys.size() < 30_000) {
            byte[] k = new byte[1 + rnd.nextInt(14)];
            for (int j = 0; j < k.length; j++) {
                k[j] = alphabet[rnd.nextInt(alphabet.length)];
            }
            if (seen.add(HexFormat.of().formatHex(k))) {
                keys.add(k);
            }
        }
        keys.sort(Arrays::compareUnsigned);
        checkTable("prefixes", puts(keys, 60));
    }

    /** Random keys with several versions and tombstones. */
    @Test
    void randomKeysWithVersions() throws IOException {
        checkTable("random", TableFixture.randomEntries(new Random(11), 30_000, 1, 40, 0, 80));
    }

    /** One user key with enough versions to fill many leaves, between other keys. */
    @Test
    void oneKeyAcrossManyLeaves() throws IOException {
        List<InternalEntry> entries = new ArrayList<>();
        byte[] value = new byte[100];
        for (int i = 0; i < 5_000; i++) {
            entries.add(InternalEntry.put(TestKeys.padded("a", i, 5).getBytes(StandardCharsets.US_ASCII), 1, value));
        }
        byte[] hot = "m".getBytes(StandardCharsets.US_ASCII);
        for (long s = 20_000; s >= 1; s--) {
            entries.add(InternalEntry.put(hot, s, value));
        }
        for (int i = 0; i < 5_000; i++) {
            entries.add(InternalEntry.put(TestKeys.padded("z", i, 5).getBytes(StandardCharsets.US_ASCII), 1, value));
        }
        checkTable("versions", entries);
    }

    /** Keys near the maximum size: two cells per level-1 page, a tree of height 7 from 3,000 keys. */
    @Test
    void tallTreeOfLongKeys() throws IOException {
        List<byte[]> keys = new ArrayList<>();
        int keySize = TableOptions.maxKeySize(TableOptions.defaults().pageSize()) - 40;
        for (int i = 0; i < 3_000; i++) {
            byte[] k = new byte[keySize];
            Arrays.fill(k, (byte) ('a' + i % 5));
            System.arraycopy(TestKeys.padded("", 3 * i, 8).getBytes(StandardCharsets.US_ASCII), 0, k, i % 2 * 100, 8);
            keys.add(k);
        }
        keys.sort(Arrays::compareUnsigned);
        checkTable("tall", puts(keys, 10));
    }

    /**
     * A table iterator's seek and a point lookup walk the interior pages held by the reader:
     * with them read once (and the level-1 pages within the cache's pin budget), each asks the
     * block cache for its leaf only, whatever the height, and lands where the entries say.
     */
    @Test
    void seeksAskTheCacheForTheLeafOnly() throws IOException {
        // a 64 MiB cache: a 32 MiB pin budget holds every level-1 page of the table
        assertEquals(1.0, cacheLookupsPerSeek(64 << 20, true));
    }

    @Test
    void levelOnePagesGoThroughTheCacheOnceThePinBudgetIsSpent() throws IOException {
        // a 24 KiB cache: its 12 KiB budget holds one or two of the table's level-1 pages (each charged its weight,
        // about 5 KiB, once the budget has room for the most a page can weigh, 8 KiB)
        double perSeek = cacheLookupsPerSeek(24 << 10, false);
        assertTrue(perSeek > 1.5 && perSeek <= 2.0, "cache lookups per seek " + perSeek);
    }

    @Test
    void levelOnePagesAreChargedTheirWeightAndADeletedFilesReadersGiveTheBudgetBack() throws IOException {
        List<byte[]> keys = new ArrayList<>();
        for (long i = 0; i < 60_000; i++) {
            keys.add(ByteBuffer.allocate(16).putLong(8, i * 7).array());
        }
        Path path = dir.resolve("pins.sst");
        FinishedTable table = fixture.write(path, TableOptions.defaults(), puts(keys, 40));
        try (PageFile file = fixture.openForRead(path)) {
            BlockCache cache = BlockCache.create(64 << 20);
            SSTableReader reader = TableFixture.open(file, table, cache);
            SSTableReader again = TableFixture.open(file, table, cache); // a second version's reader of the file
            for (int i = 0; i < keys.size(); i += 50) {
                reader.iterator().seek(keys.get(i), InternalKeys.MAX_SEQNO);
                again.iterator().seek(keys.get(i), InternalKeys.MAX_SEQNO);
            }
            long pinned = reader.pinnedBytes();
            assertTrue(pinned > 0, "level-1 pages held");
            assertEquals(pinned + again.pinnedBytes(), cache.pinnedBytes());
            // Every level-1 page was met: charged by weight, a page costs its 4 KiB image and its index,
            // well under the 8 KiB each was charged before (about 5 KiB here).
            int levelOnePages = levelOnePages(reader);
            assertTrue(pinned > levelOnePages * 4096L && pinned < levelOnePages * 6L * 1024,
                    "pinned " + pinned + " for " + levelOnePages + " level-1 pages");
            // The file is deleted: both readers give their budget back at once, not when collected.
            cache.invalidateFile(reader.fileNumber(), 1 << 16);
            assertEquals(0, cache.pinnedBytes());
            assertEquals(0, reader.pinnedBytes());
            assertEquals(0, again.pinnedBytes());
            cache.invalidateFile(reader.fileNumber(), 1 << 16); // once only
            assertEquals(0, cache.pinnedBytes());
        }
    }

    /** The level-1 pages of {@code reader}'s table: the children of the pages at level 2 and above. */
    private static int levelOnePages(SSTableReader reader) throws IOException {
        return countAt(reader, reader.footer().rootPage(), reader.footer().height() - 1);
    }

    private static int countAt(SSTableReader reader, int pageNo, int level) throws IOException {
        if (level == 1) {
            return 1;
        }
        InteriorPage page = reader.interiorPage(pageNo, level);
        int n = 0;
        for (int i = 0; i < page.count(); i++) {
            n += countAt(reader, page.child(i), level - 1);
        }
        return n;
    }

    /** Seeks a 60,000-entry table of height >= 3 through a cache of {@code capacity} bytes; checks every entry found. */
    private double cacheLookupsPerSeek(long capacity, boolean allPinned) throws IOException {
        List<byte[]> keys = new ArrayList<>();
        for (long i = 0; i < 60_000; i++) {
            keys.add(ByteBuffer.allocate(16).putLong(8, i * 7).array());
        }
        List<InternalEntry> entries = puts(keys, 40);
        Path path = dir.resolve("seeks-" + capacity + ".sst");
        FinishedTable table = fixture.write(path, TableOptions.defaults(), entries);
        try (PageFile file = fixture.openForRead(path)) {
            BlockCache cache = BlockCache.create(capacity);
            SSTableReader reader = TableFixture.open(file, table, cache);
            assertTrue(reader.footer().height() >= 3, "want a page above level 1, height " + reader.footer().height());
            Random rnd = new Random(5);
            for (int n = 0; n < 2_000; n++) { // the reader now holds the pages it met
                reader.iterator().seek(keys.get(rnd.nextInt(keys.size())), InternalKeys.MAX_SEQNO);
            }
            assertTrue(reader.pinnedBytes() > 0, "level-1 pages held");
            assertEquals(reader.pinnedBytes(), cache.pinnedBytes(), "the cache counts what its one reader holds");
            assertTrue(cache.pinnedBytes() <= capacity / 2, "pinned " + cache.pinnedBytes() + " of " + capacity);
            if (!allPinned) {
                assertTrue(cache.pinnedBytes() + 4096 * 2 > capacity / 2, "the budget is spent: " + cache.pinnedBytes());
            }
            int seeks = 2_000;
            long before = cache.hits() + cache.misses();
            TableIterator it = reader.iterator();
            for (int n = 0; n < seeks; n++) {
                int i = rnd.nextInt(keys.size());
                it.seek(keys.get(i), InternalKeys.MAX_SEQNO);
                assertTrue(it.valid());
                assertEquals(entries.get(i), it.entry(), "seek " + n);
                assertEquals(entries.get(i), reader.get(keys.get(i), InternalKeys.MAX_SEQNO), "get " + n);
            }
            long lookups = cache.hits() + cache.misses() - before;
            return lookups / 2.0 / seeks; // a seek and a get each
        }
    }

    private static List<InternalEntry> puts(List<byte[]> sortedKeys, int valueSize) {
        List<InternalEntry> entries = new ArrayList<>(sortedKeys.size());
        for (int i = 0; i < sortedKeys.size(); i++) {
            entries.add(InternalEntry.put(sortedKeys.get(i), 1 + i % 100, new byte[valueSize]));
        }
        return entries;
    }

    /**
     * Writes the table, then for every interior page compares the indexed search with the
     * bare one on probes around every max key, and compares point lookups with and without
     * a cache (indexed and bare interior pages).
     */
    private void checkTable(String name, List<InternalEntry> entries) throws IOException {
        Path path = dir.resolve(name + ".sst");
        FinishedTable table = fixture.write(path, TableOptions.defaults(), entries);
        try (PageFile file = fixture.openForRead(path)) {
            SSTableReader bare = TableFixture.open(file, table, BlockCache.disabled());
            SSTableReader cached = TableFixture.open(file, table, BlockCache.create(64 << 20));
            assertTrue(bare.footer().height() >= 3, name + ": want two interior levels, height "
                    + bare.footer().height());
            int[] pagesChecked = new int[1];
            checkSubtree(bare, bare.footer().rootPage(), bare.footer().height() - 1, pagesChecked);
            assertTrue(pagesChecked[0] > 4, name + ": " + pagesChecked[0] + " interior pages");
            Random rnd = new Random(name.hashCode());
            for (int n = 0; n < 20_000; n++) {
                InternalEntry e = entries.get(rnd.nextInt(entries.size()));
                long seqno = rnd.nextBoolean() ? InternalKeys.MAX_SEQNO : e.seqno() + rnd.nextInt(3) - 1;
                byte[] key = n % 4 == 0 ? mutate(e.key(), rnd) : e.key();
                InternalEntry expected = newestAtOrBelow(entries, key, seqno);
                String what = name + ": lookup of " + HexFormat.of().formatHex(key) + " at " + seqno;
                assertEquals(expected, bare.get(key, seqno), what + " without a cache");
                assertEquals(expected, cached.get(key, seqno), what + " with a cache");
            }
        }
    }

    /** The first entry (in internal-key order) for {@code key} with a sequence number <= {@code seqno}. */
    private static InternalEntry newestAtOrBelow(List<InternalEntry> sorted, byte[] key, long seqno) {
        int lo = 0;
        int hi = sorted.size();
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            InternalEntry e = sorted.get(mid);
            int c = Arrays.compareUnsigned(e.key(), key);
            if (c < 0 || (c == 0 && e.seqno() > seqno)) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo < sorted.size() && Arrays.equals(sorted.get(lo).key(), key) ? sorted.get(lo) : null;
    }

    private void checkSubtree(SSTableReader reader, int pageNo, int level, int[] pagesChecked) throws IOException {
        byte[] bytes = reader.interiorPage(pageNo, level).bytes();
        InteriorPage indexed = InteriorPage.indexed(bytes, level);
        int count = TreePages.count(bytes);
        Random rnd = new Random(pageNo);
        for (int i = 0; i < count; i++) {
            assertEquals(TreePages.child(bytes, TreePages.cellOffset(bytes, i), level), indexed.child(i),
                    "child number of cell " + i + " on level " + level);
            int off = TreePages.maxKeyOffset(bytes, TreePages.cellOffset(bytes, i), level);
            byte[] key = TreePages.userKey(bytes, off);
            long seqno = TreePages.trailer(bytes, off) >>> 8;
            for (long s : new long[] {seqno, seqno + 1, Math.max(0, seqno - 1), 0, InternalKeys.MAX_SEQNO}) {
                checkSearch(bytes, level, indexed, key, s);
            }
            for (int m = 0; m < 6; m++) {
                checkSearch(bytes, level, indexed, mutate(key, rnd), rnd.nextBoolean() ? seqno : InternalKeys.MAX_SEQNO);
            }
        }
        checkSearch(bytes, level, indexed, new byte[0], InternalKeys.MAX_SEQNO);
        byte[] high = new byte[30];
        Arrays.fill(high, (byte) 0xFF);
        checkSearch(bytes, level, indexed, high, 0);
        pagesChecked[0]++;
        if (level > 1) {
            for (int i = 0; i < count; i++) {
                checkSubtree(reader, TreePages.child(bytes, TreePages.cellOffset(bytes, i), level), level - 1,
                        pagesChecked);
            }
        }
    }

    private static void checkSearch(byte[] bytes, int level, InteriorPage indexed, byte[] key, long seqno) {
        assertEquals(TreePages.searchInterior(bytes, level, key, seqno), indexed.search(key, seqno),
                () -> "search for " + HexFormat.of().formatHex(key) + " at " + seqno + " on level " + level);
    }

    /** A key near {@code key}: shortened, extended with 0x00 or 0xFF, or with one byte nudged. */
    private static byte[] mutate(byte[] key, Random rnd) {
        switch (rnd.nextInt(5)) {
            case 0:
                return Arrays.copyOf(key, rnd.nextInt(key.length + 1));
            case 1:
                return Arrays.copyOf(key, key.length + 1 + rnd.nextInt(3));
            case 2: {
                byte[] k = Arrays.copyOf(key, key.length + 1);
                k[key.length] = (byte) 0xFF;
                return k;
            }
            default: {
                if (key.length == 0) {
                    return new byte[] {1};
                }
                byte[] k = key.clone();
                int j = rnd.nextInt(k.length);
                k[j] += rnd.nextBoolean() ? 1 : -1;
                return k;
            }
        }
    }
}
