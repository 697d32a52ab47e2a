package dev.strata.lsm.sstable;

import dev.strata.lsm.blockmerge.KeySliceIterator;
import dev.strata.lsm.cache.BlockCache;
import dev.strata.lsm.io.PageFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A table iterator moves both ways over trees of one, two and three levels and more: prev
 * crosses leaf and interior-page boundaries through the root-to-leaf path, seekToLast and
 * seekForPrev land where a sorted list says, and direction changes anywhere keep the order.
 * The key slice over a table is checked the same way.
 */
class TableIteratorBothWaysTest {
    @TempDir
    Path dir;

    private final TableFixture fixture = new TableFixture();

    @Test
    void readsEveryTableBackwardsAsTheReverseOfForwards() throws IOException {
        Random rnd = new Random(11);
        int[] sizes = {1, 3, 60, 2_000, 40_000};
        for (int n : sizes) {
            List<InternalEntry> entries = TableFixture.randomEntries(rnd, n, 1, 24, 0, 40);
            Path path = dir.resolve("t" + n + ".sst");
            FinishedTable table = fixture.write(path, TableOptions.defaults(), entries);
            try (PageFile file = fixture.openForRead(path)) {
                SSTableReader reader = TableFixture.open(file, table, BlockCache.create(0));
                TableIterator it = reader.iterator();
                it.seekToLast();
                for (int i = entries.size() - 1; i >= 0; i--) {
                    assertTrue(it.valid(), n + " keys: entry " + i);
                    InternalEntry e = entries.get(i);
                    assertArrayEquals(e.key(), it.key(), n + " keys: entry " + i);
                    assertEquals(e.seqno(), it.seqno(), n + " keys: entry " + i);
                    assertArrayEquals(e.value(), it.value(), n + " keys: entry " + i);
                    it.prev();
                }
                assertFalse(it.valid(), n + " keys: before the first entry");
                if (n == 40_000) {
                    assertTrue(table.footer().height() >= 3, "the large table has interior levels above the first: "
                            + table.footer().height());
                }
            }
        }
    }

    @Test
    void randomWalksMatchASortedList() throws IOException {
        Random rnd = new Random(12);
        for (int round = 0; round < 6; round++) {
            int n = round == 0 ? 1 : 1 + rnd.nextInt(round < 3 ? 300 : 30_000);
            // Small values and some large ones (overflow extents), keys of 1 to 30 bytes.
            List<InternalEntry> entries = TableFixture.randomEntries(rnd, n, 1, 30, 0, round == 4 ? 5_000 : 60);
            Path path = dir.resolve("w" + round + ".sst");
            FinishedTable table = fixture.write(path, new TableOptions(round % 2 == 0 ? 4096 : 8192, 10), entries);
            IteratorWalk.Targets targets = targets(entries);
            try (PageFile file = fixture.openForRead(path)) {
                SSTableReader reader = TableFixture.open(file, table, BlockCache.create(round % 3 == 0 ? 0 : 1 << 20));
                IteratorWalk.walk(reader.iterator(), entries, rnd, 3_000, targets, "table of " + n + " keys");

                // A slice of the table, both ways.
                byte[] from = rnd.nextBoolean() ? null : targets.key(rnd);
                byte[] to = rnd.nextBoolean() ? null : targets.key(rnd);
                if (from != null && to != null && InternalKeys.compareUserKeys(from, to) > 0) {
                    byte[] t = from;
                    from = to;
                    to = t;
                }
                List<InternalEntry> slice = new ArrayList<>();
                for (InternalEntry e : entries) {
                    if ((from == null || InternalKeys.compareUserKeys(e.key(), from) >= 0)
                            && (to == null || InternalKeys.compareUserKeys(e.key(), to) < 0)) {
                        slice.add(e);
                    }
                }
                try (KeySliceIterator sliced = new KeySliceIterator(reader.iterator(), from, to)) {
                    IteratorWalk.walk(sliced, slice, rnd, 2_000, targets, "slice [" + InternalKeys.describe(from) + ", "
                            + InternalKeys.describe(to) + ") of a table of " + n + " keys");
                }
            }
        }
    }

    /** Seek targets: the table's keys, their prefixes and extensions, random keys; its seqnos and others. */
    static IteratorWalk.Targets targets(List<InternalEntry> entries) {
        return new IteratorWalk.Targets() {
            @Override
            public byte[] key(Random rnd) {
                if (entries.isEmpty() || rnd.nextInt(5) == 0) {
                    byte[] k = new byte[rnd.nextInt(6)];
                    rnd.nextBytes(k);
                    return k;
                }
                byte[] k = entries.get(rnd.nextInt(entries.size())).key();
                return switch (rnd.nextInt(4)) {
                    case 0 -> java.util.Arrays.copyOf(k, rnd.nextInt(k.length + 1));
                    case 1 -> java.util.Arrays.copyOf(k, k.length + 1);
                    default -> k;
                };
            }

            @Override
            public long seqno(Random rnd) {
                if (entries.isEmpty() || rnd.nextInt(4) == 0) {
                    return rnd.nextInt(3) == 0 ? 0 : rnd.nextInt(3) == 0 ? InternalKeys.MAX_SEQNO : rnd.nextInt(2_000_000);
                }
                long s = entries.get(rnd.nextInt(entries.size())).seqno();
                return s + rnd.nextInt(3) - 1;
            }
        };
    }
}
