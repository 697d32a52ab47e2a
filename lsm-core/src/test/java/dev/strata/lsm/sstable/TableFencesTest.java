package dev.strata.lsm.sstable;

import dev.strata.lsm.cache.BlockCache;
import dev.strata.lsm.io.PageFile;
import dev.strata.lsm.testkit.TestSeed;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Fences read from a table's interior pages, at leaf resolution and above it. */
class TableFencesTest {
    @TempDir
    Path dir;

    static double bytes(InternalEntry e) {
        return e.key().length + (e.value() == null ? 0 : e.value().length) + 12;
    }

    /** Mean absolute error, over ranges between entry quantiles, of the fraction estimated vs the bytes there. */
    static double meanError(TableFences fences, List<InternalEntry> entries) {
        double total = entries.stream().mapToDouble(TableFencesTest::bytes).sum();
        double error = 0;
        int ranges = 0;
        for (int i = 0; i < 10; i++) {
            byte[] from = entries.get(i * entries.size() / 10).key();
            byte[] to = entries.get(Math.min(entries.size() - 1, (i + 1) * entries.size() / 10 + 7)).key();
            double real = 0;
            for (InternalEntry e : entries) {
                if (InternalKeys.compareUserKeys(e.key(), from) >= 0 && InternalKeys.compareUserKeys(e.key(), to) < 0) {
                    real += bytes(e);
                }
            }
            error += Math.abs(fences.fraction(from, to) - real / total);
            ranges++;
        }
        return error / ranges;
    }

    @Test
    void leafFencesAndCoarserFences() throws IOException {
        long seed = TestSeed.orDefault(7);
        List<InternalEntry> entries = TableFixture.randomEntries(new Random(seed), 30_000, 8, 16, 10, 40);
        TableFixture fixture = new TableFixture();
        Path path = dir.resolve("t.sst");
        FinishedTable table = fixture.write(path, TableOptions.defaults(), entries);
        try (PageFile file = fixture.openForRead(path)) {
            SSTableReader reader = TableFixture.open(file, table, BlockCache.disabled());
            Footer f = reader.footer();
            assertTrue(f.height() >= 3, "the table needs interior pages above level 1; height " + f.height());

            TableFences leaves = TableFences.read(reader, TableFences.DEFAULT_PAGE_BUDGET);
            assertEquals(f.leafCount(), leaves.size(), "one fence per leaf");
            assertEquals(f.leafCount(), leaves.leaves(), 1e-9);
            assertEquals(1, leaves.fraction(null, null), 1e-9);
            double fine = meanError(leaves, entries);
            assertTrue(fine < 0.01, "leaf fences: mean error " + fine + " (seed " + seed + ")");

            TableFences coarse = TableFences.read(reader, 1); // stops at the root's cells
            assertTrue(coarse.size() > 1 && coarse.size() < f.leafCount(), "fences " + coarse.size());
            assertEquals(f.leafCount(), coarse.leaves(), 1e-6, "the root's children share every leaf");
            double rough = meanError(coarse, entries);
            assertTrue(rough < 0.05, "root fences: mean error " + rough + " (seed " + seed + ")");
            assertTrue(reader.fences() == reader.fences(), "read once, then kept");
        }
    }
}
