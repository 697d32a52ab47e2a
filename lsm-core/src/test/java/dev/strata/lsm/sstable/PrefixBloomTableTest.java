package dev.strata.lsm.sstable;

import dev.strata.lsm.PrefixExtractor;
import dev.strata.lsm.cache.BlockCache;
import dev.strata.lsm.io.IoPurpose;
import dev.strata.lsm.io.OpenMode;
import dev.strata.lsm.io.PageFile;
import dev.strata.lsm.testkit.TestKeys;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The prefix bloom of one table: written with an extractor, its footer names it after a
 * round trip, its filter admits every key and every prefix present and (here) no absent
 * prefix, and is trusted only under the same extractor; an in-place merge keeps the name and
 * adds the new keys' prefixes.
 */
class PrefixBloomTableTest {
    @TempDir
    Path dir;

    private final TableFixture fixture = new TableFixture();

    private static byte[] key(String group, int i) {
        return TestKeys.padded(group, i, 5).getBytes();
    }

    private static List<InternalEntry> entries(String[] groups, int perGroup, int step, long seq) {
        List<InternalEntry> out = new ArrayList<>();
        for (String g : groups) {
            for (int i = 0; i < perGroup; i += step) {
                out.add(InternalEntry.put(key(g, i), seq, new byte[20]));
            }
        }
        return out;
    }

    @Test
    void aTableRecordsItsExtractorAndAnswersForItsPrefixes() throws IOException {
        PrefixExtractor two = PrefixExtractor.fixed(2);
        TableOptions options = TableOptions.defaults().withPrefixExtractor(two);
        Path path = dir.resolve("p.sst");
        FinishedTable t = fixture.write(path, options, entries(new String[] {"aa", "ac", "zz"}, 500, 1, 1));
        assertEquals("fixed:2", t.footer().prefixBloom());
        try (PageFile file = fixture.openForRead(path)) {
            SSTableReader r = TableFixture.open(file, t, BlockCache.disabled());
            assertEquals(t.footer(), r.footer(), "the footer survives the round trip");
            assertEquals("fixed:2", r.footer().prefixBloom());
            for (String present : new String[] {"aa", "ac", "zz", "aa0", "zz00499"}) {
                assertTrue(r.mayHoldPrefix(two, present.getBytes()), present);
            }
            for (String absent : new String[] {"ab", "mm", "zy", "ba"}) {
                assertFalse(r.mayHoldPrefix(two, absent.getBytes()), absent);
            }
            assertTrue(r.mightContain(key("ac", 7)), "whole keys are still in the filter");
            assertTrue(r.mayHoldPrefix(two, "m".getBytes()), "a prefix shorter than N cannot be judged");
            assertTrue(r.mayHoldPrefix(PrefixExtractor.fixed(3), "mmm".getBytes()), "another extractor is not trusted");
            assertTrue(r.mayHoldPrefix(null, "mm".getBytes()));
        }
        Path plain = dir.resolve("plain.sst");
        FinishedTable p = fixture.write(plain, TableOptions.defaults(), entries(new String[] {"aa"}, 10, 1, 1));
        assertEquals("", p.footer().prefixBloom());
        try (PageFile file = fixture.openForRead(plain)) {
            assertTrue(TableFixture.open(file, p, BlockCache.disabled()).mayHoldPrefix(two, "mm".getBytes()),
                    "a table without a prefix bloom is never skipped");
        }
    }

    @Test
    void anInPlaceMergeKeepsTheExtractorAndAddsTheNewPrefixes() throws IOException {
        PrefixExtractor two = PrefixExtractor.fixed(2);
        TableOptions options = TableOptions.defaults().withBloomReserve(0.5).withPrefixExtractor(two);
        Path path = dir.resolve("m.sst");
        FinishedTable v1 = fixture.write(path, options, entries(new String[] {"aa", "zz"}, 4000, 2, 1));
        try (PageFile file = fixture.io.open(path, OpenMode.READ_WRITE, IoPurpose.MERGE)) {
            SSTableReader base = TableFixture.open(file, v1, BlockCache.disabled());
            assertFalse(base.mayHoldPrefix(two, "mm".getBytes()));
            List<InternalEntry> input = List.of(InternalEntry.put(key("mm", 1), 2, new byte[20]));
            EntryListIterator in = new EntryListIterator(input);
            in.seekToFirst();
            BlockMergeResult r = BlockMergeWriter.merge(file, base, options, in, BlockMergeWriter.Retention.keepAll());
            assertFalse(r.bloomRebuilt());
            assertEquals("fixed:2", r.table().footer().prefixBloom());
            SSTableReader v2 = TableFixture.open(file, r.table(), BlockCache.disabled());
            assertTrue(v2.mayHoldPrefix(two, "mm".getBytes()), "the merged key's prefix was added");
            assertTrue(v2.mayHoldPrefix(two, "aa".getBytes()));
        }
        // Merged in place under another extractor, the version no longer claims one.
        Path other = dir.resolve("o.sst");
        FinishedTable o1 = fixture.write(other, options, entries(new String[] {"aa", "zz"}, 4000, 2, 1));
        TableOptions three = options.withPrefixExtractor(PrefixExtractor.fixed(3));
        try (PageFile file = fixture.io.open(other, OpenMode.READ_WRITE, IoPurpose.MERGE)) {
            SSTableReader base = TableFixture.open(file, o1, BlockCache.disabled());
            EntryListIterator in = new EntryListIterator(List.of(InternalEntry.put(key("mm", 1), 2, new byte[20])));
            in.seekToFirst();
            BlockMergeResult r = BlockMergeWriter.merge(file, base, three, in, BlockMergeWriter.Retention.keepAll());
            assertEquals("", r.table().footer().prefixBloom());
        }
    }
}
