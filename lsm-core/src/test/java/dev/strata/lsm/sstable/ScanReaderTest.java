package dev.strata.lsm.sstable;

import dev.strata.lsm.Compression;
import dev.strata.lsm.CorruptionException;
import dev.strata.lsm.cache.BlockCache;
import dev.strata.lsm.io.IoPurpose;
import dev.strata.lsm.io.PageFile;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link SSTableReader#openForScan}, the reader a merge opens its inputs with: it scans the
 * same entries as a plain reader, reads its leaves a window at a time (far fewer reads than
 * leaves), and a damaged page read through the window is still a {@link CorruptionException}
 * naming the file and the page.
 */
class ScanReaderTest {
    @TempDir
    Path dir;

    final TableFixture fixture = new TableFixture();

    private List<InternalEntry> entries() {
        // About 3 MB of leaves, many windows of ReadAheadWindow.WINDOW_BYTES; no overflow values
        // (an overflow extent is read alone, as before).
        return CompressedTableTest.compressibleEntries(new Random(11), 20_000, 0.5, 4096).stream()
                .filter(e -> e.value() == null || e.value().length < 1000).toList();
    }

    /** Scans the table with {@code reader}, checking every entry against {@code expected}. */
    private static void scanEquals(SSTableReader reader, List<InternalEntry> expected) throws IOException {
        TableIterator it = reader.iterator();
        it.seekToFirst();
        int i = 0;
        for (; it.valid(); it.next()) {
            InternalEntry x = expected.get(i++);
            InternalEntry e = it.entry();
            assertArrayEquals(x.key(), e.key());
            assertEquals(x.seqno(), e.seqno());
            assertEquals(x.type(), e.type());
            assertArrayEquals(x.value(), e.value());
        }
        assertEquals(expected.size(), i);
    }

    @ParameterizedTest
    @EnumSource(value = Compression.class, names = {"NONE", "LZ4", "ZSTD"})
    void scansTheSameEntriesInFewReads(Compression codec) throws IOException {
        List<InternalEntry> entries = entries();
        Path path = dir.resolve(codec + ".sst");
        FinishedTable table = fixture.write(path, TableOptions.defaults().withCompression(codec), entries);
        long leaves;
        try (PageFile file = fixture.openForRead(path)) {
            long before = fixture.io.counters().snapshot().reads(IoPurpose.READ);
            scanEquals(SSTableReader.open(file, table.footerOffset(), 1, BlockCache.disabled()), entries);
            leaves = fixture.io.counters().snapshot().reads(IoPurpose.READ) - before;
        }
        try (PageFile file = fixture.openForRead(path)) {
            long before = fixture.io.counters().snapshot().reads(IoPurpose.READ);
            scanEquals(SSTableReader.openForScan(file, table.footerOffset(), 1), entries);
            long reads = fixture.io.counters().snapshot().reads(IoPurpose.READ) - before;
            assertTrue(leaves > 300, "the table has " + leaves + " reads' worth of pages");
            // A window holds 20 or more pages; the interior pages are still read one by one.
            assertTrue(reads * 5 < leaves, "a scan took " + reads + " reads, page by page " + leaves);
        }
    }

    @ParameterizedTest
    @EnumSource(value = Compression.class, names = {"NONE", "LZ4"})
    void aDamagedLeafReadThroughTheWindowIsCorruption(Compression codec) throws IOException {
        List<InternalEntry> entries = entries();
        Path path = dir.resolve(codec + ".sst");
        FinishedTable table = fixture.write(path, TableOptions.defaults().withCompression(codec), entries);
        byte[] bytes = Files.readAllBytes(path);
        // A byte a third of the way in: inside a leaf (or its frame), far past the first window.
        int at = bytes.length / 3;
        bytes[at] ^= 0x5a;
        Files.write(path, bytes);
        try (PageFile file = fixture.openForRead(path)) {
            SSTableReader reader = SSTableReader.openForScan(file, table.footerOffset(), 1);
            CorruptionException e = assertThrows(CorruptionException.class, () -> scanEquals(reader, entries));
            assertTrue(e.getMessage().contains(path.toString()), e.getMessage());
            assertTrue(e.getMessage().contains("page"), e.getMessage());
        }
    }

    /**
     * A merge of many inputs: each input's window shrinks so that they stay within the merge's
     * budget (a full-level merge of thousands of 1 MiB tables held 128 KiB of direct memory per
     * input), never below four blocks, and a small window still scans every entry.
     */
    @ParameterizedTest
    @EnumSource(value = Compression.class, names = {"NONE", "LZ4"})
    void manyInputsShareTheMergeBudgetAndStillScanEverything(Compression codec) throws IOException {
        assertEquals(ReadAheadWindow.WINDOW_BYTES, ReadAheadWindow.forInputs(1));
        assertEquals(ReadAheadWindow.WINDOW_BYTES, ReadAheadWindow.forInputs(128));
        for (int inputs : new int[] {129, 500, 1_000, 4_096, 100_000}) {
            int window = ReadAheadWindow.forInputs(inputs);
            assertEquals(0, window % 4096, inputs + " inputs: window " + window);
            assertTrue(window >= ReadAheadWindow.MIN_WINDOW_BYTES, inputs + " inputs: window " + window);
            assertTrue((long) window * inputs <= ReadAheadWindow.MERGE_BUDGET_BYTES
                    || window == ReadAheadWindow.MIN_WINDOW_BYTES, inputs + " inputs: window " + window);
        }
        List<InternalEntry> entries = entries();
        Path path = dir.resolve(codec + "-small.sst");
        FinishedTable table = fixture.write(path, TableOptions.defaults().withCompression(codec), entries);
        try (PageFile file = fixture.openForRead(path)) {
            scanEquals(SSTableReader.openForScan(file, table.footerOffset(), 1, 100_000), entries);
        }
    }
}
