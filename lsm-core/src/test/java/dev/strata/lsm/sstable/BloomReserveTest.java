package dev.strata.lsm.sstable;

import dev.strata.lsm.cache.BlockCache;
import dev.strata.lsm.io.IoPurpose;
import dev.strata.lsm.io.OpenMode;
import dev.strata.lsm.io.PageFile;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * BL6 at the table layer: keys merged in place are added to the bloom filter's reserve; the
 * filter is rebuilt exactly when the keys added exceed the reserve (40% middle levels, 10%
 * last level), and within the reserve the measured false-positive rate stays within 1.5× the
 * design rate for 10 bits per key.
 */
class BloomReserveTest {
    @TempDir
    Path dir;

    private final TableFixture fixture = new TableFixture();

    @ParameterizedTest
    @ValueSource(doubles = {0.4, 0.1})
    void filterIsRebuiltExactlyWhenAppendedKeysExceedTheReserve(double reserve) throws IOException {
        int baseKeys = 4000;
        List<InternalEntry> base = new ArrayList<>();
        for (int k = 0; k < baseKeys; k++) {
            base.add(InternalEntry.put(BlockMergeWriterTest.key(2 * k), 1, new byte[20]));
        }
        TableOptions options = TableOptions.defaults().withBloomReserve(reserve);
        Path path = dir.resolve("bloom.sst");
        FinishedTable table = fixture.write(path, options, base);
        long capacity = (long) Math.floor(baseKeys * (1 + reserve));
        assertEquals(capacity, table.footer().bloomCapacity());
        int next = 1;
        long seq = 2;
        int rounds = 0;
        boolean rebuilt = false;
        Random rnd = new Random(9);
        while (!rebuilt) {
            // New odd keys (absent from the filter unless it reports a false positive).
            List<InternalEntry> input = new ArrayList<>();
            for (int i = 0; i < 150; i++, next += 2) {
                input.add(InternalEntry.put(BlockMergeWriterTest.key(next), seq++, new byte[20]));
            }
            long keysBefore = table.footer().bloomKeys();
            long capacityBefore = table.footer().bloomCapacity();
            BlockMergeResult r;
            try (PageFile file = fixture.io.open(path, OpenMode.READ_WRITE, IoPurpose.MERGE)) {
                SSTableReader reader = SSTableReader.open(file, table.footerOffset(), 1, BlockCache.disabled());
                // Count the keys the old filter does not admit: exactly those are added.
                long absent = input.stream().filter(e -> !reader.mightContain(e.key())).count();
                EntryListIterator in = new EntryListIterator(input);
                in.seekToFirst();
                r = BlockMergeWriter.merge(file, reader, options, in, BlockMergeWriter.Retention.keepAll());
                Footer f = r.table().footer();
                rebuilt = r.bloomRebuilt();
                assertEquals(keysBefore + absent > capacityBefore, rebuilt, "round " + rounds);
                if (rebuilt) {
                    long distinct = f.entryCount();
                    assertEquals(distinct, f.bloomKeys());
                    assertEquals((long) Math.floor(distinct * (1 + reserve)), f.bloomCapacity());
                    assertEquals(r.leavesReused(), r.leavesReadForBloom());
                } else {
                    assertEquals(keysBefore + absent, f.bloomKeys());
                    assertEquals(capacityBefore, f.bloomCapacity());
                    assertEquals(0, r.leavesReadForBloom());
                    measureFalsePositives(file, r.table(), reserve, rnd);
                }
                SSTableReader merged = SSTableReader.open(file, r.table().footerOffset(), 1, BlockCache.disabled());
                for (InternalEntry e : input) {
                    assertTrue(merged.mightContain(e.key()), "no false negatives");
                }
                for (int k = 0; k < baseKeys; k += 37) {
                    assertTrue(merged.mightContain(BlockMergeWriterTest.key(2 * k)), "no false negatives");
                }
            }
            table = r.table();
            rounds++;
        }
        int expectedRounds = (int) Math.ceil((baseKeys * reserve + 1) / 150.0);
        assertTrue(Math.abs(rounds - expectedRounds) <= 1, "rebuilt after " + rounds + " rounds, expected about "
                + expectedRounds);
    }

    private static void measureFalsePositives(PageFile file, FinishedTable table, double reserve, Random rnd)
            throws IOException {
        SSTableReader reader = SSTableReader.open(file, table.footerOffset(), 1, BlockCache.disabled());
        int probes = 100_000;
        int positives = 0;
        for (int i = 0; i < probes; i++) {
            byte[] absent = ("absent-" + rnd.nextLong()).getBytes();
            positives += reader.mightContain(absent) ? 1 : 0;
        }
        double rate = (double) positives / probes;
        double design = BloomFilter.expectedFalsePositiveRate(1, 10, BloomFilter.optimalHashes(10));
        assertTrue(rate <= 1.5 * design, "false-positive rate " + rate + " above 1.5 x design rate " + design
                + " (reserve " + reserve + ", " + table.footer().bloomKeys() + "/" + table.footer().bloomCapacity() + " keys)");
    }
}
