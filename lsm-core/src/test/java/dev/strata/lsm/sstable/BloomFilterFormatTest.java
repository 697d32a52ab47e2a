package dev.strata.lsm.sstable;

import dev.strata.lsm.cache.BlockCache;
import dev.strata.lsm.io.IoPurpose;
import dev.strata.lsm.io.OpenMode;
import dev.strata.lsm.io.PageFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The bloom extent's two versions (docs/format.md, "Bloom extent"): this code builds blocked
 * filters (version 2) and still reads, probes and extends standard ones (version 1). A table
 * written before the blocked filter (commit 102bf21: SSTable format 2 with a version-1 filter)
 * is checked in as {@code sstable/format2-bloom1.sst}; its keys are regenerated from the seed
 * it was written with.
 */
class BloomFilterFormatTest {
    private static final String RESOURCE = "/sstable/format2-bloom1.sst";

    @TempDir
    Path dir;

    private static List<InternalEntry> resourceEntries() {
        return TableFixture.randomEntries(new Random(20261125), 3000, 8, 64, 0, 100);
    }

    @Test
    void aTableWithAStandardFilterStillAnswersWithoutFalseNegatives() throws IOException {
        Path path = dir.resolve("format2-bloom1.sst");
        try (InputStream in = BloomFilterFormatTest.class.getResourceAsStream(RESOURCE)) {
            assertNotNull(in, "test resource " + RESOURCE + " is missing");
            Files.copy(in, path);
        }
        List<InternalEntry> entries = resourceEntries();
        try (PageFile file = new TableFixture().io.open(path, OpenMode.READ, IoPurpose.READ)) {
            SSTableReader reader = SSTableReader.open(file, file.size() - 4096, 1, BlockCache.disabled());
            assertEquals(2, reader.footer().formatVersion());
            for (InternalEntry e : entries) {
                assertTrue(reader.mightContain(e.key()), "no false negatives in the version-1 filter");
                assertNotNull(reader.get(e.key()));
            }
            long keys = reader.footer().bloomKeys();
            int falsePositives = 0;
            int probes = 100_000;
            for (int i = 0; i < probes; i++) {
                falsePositives += reader.mightContain(("absent-" + i).getBytes(StandardCharsets.UTF_8)) ? 1 : 0;
            }
            double theory = BloomFilter.expectedFalsePositiveRate(keys, keys * 10, BloomFilter.optimalHashes(10));
            double measured = (double) falsePositives / probes;
            assertTrue(measured <= 2 * theory && measured >= theory / 2, "standard filter's false positives "
                    + measured + " vs theory " + theory);
        }
    }

    @Test
    void newFiltersAreBlockedAndMatchTheirTheory() {
        int keys = 200_000;
        long[] hashes = new long[keys];
        for (int i = 0; i < keys; i++) {
            hashes[i] = BloomFilter.hash(("present-" + i).getBytes(StandardCharsets.UTF_8));
        }
        BloomFilter f = BloomFilter.build(hashes, keys, 10);
        assertTrue(f.blocked());
        assertEquals(0, f.numBits() % BloomFilter.BLOCK_BITS);
        for (int i = 0; i < keys; i++) {
            assertTrue(f.mightContain(("present-" + i).getBytes(StandardCharsets.UTF_8)), "no false negatives");
        }
        int falsePositives = 0;
        int probes = 400_000;
        for (int i = 0; i < probes; i++) {
            falsePositives += f.mightContain(("absent-" + i).getBytes(StandardCharsets.UTF_8)) ? 1 : 0;
        }
        double measured = (double) falsePositives / probes;
        double blocked = BloomFilter.expectedBlockedFalsePositiveRate(keys, f.numBits(), f.numHashes());
        double standard = BloomFilter.expectedFalsePositiveRate(keys, f.numBits(), f.numHashes());
        System.out.printf("blocked bloom, 10 bits/key, k=%d: measured %.5f, blocked theory %.5f, standard %.5f%n",
                f.numHashes(), measured, blocked, standard);
        assertTrue(blocked > standard && blocked < 1.5 * standard, "blocking costs a little: " + blocked + " vs "
                + standard);
        assertTrue(measured >= blocked * 0.85 && measured <= blocked * 1.15, "measured " + measured
                + " vs blocked theory " + blocked);
        BloomFilter decoded = BloomFilter.decode(f.encode());
        assertEquals(f, decoded);
        assertEquals(BloomFilter.FORMAT_VERSION, f.encode()[0]);
    }

    @Test
    void aLargeFilterBuiltByTwoThreadsIsTheOneBuiltByOne() {
        int n = BloomFilter.PARALLEL_BUILD_KEYS * 3 + 12_345;
        long[] flat = new long[n];
        long[][] chunks = new long[(n + 9_999) / 10_000][];
        Random rnd = new Random(17);
        for (int i = 0; i < n; i++) {
            flat[i] = rnd.nextLong();
            if (i % 10_000 == 0) {
                chunks[i / 10_000] = new long[10_000];
            }
            chunks[i / 10_000][i % 10_000] = flat[i];
        }
        byte[] one = BloomFilter.build(flat, n, n + 1000L, 10).encode();
        for (int round = 0; round < 3; round++) {
            assertTrue(java.util.Arrays.equals(one, BloomFilter.build(chunks, n, n + 1000L, 10).encode()),
                    "round " + round);
        }
        // Below the parallel threshold, and the chunks' last one partly filled.
        assertTrue(java.util.Arrays.equals(BloomFilter.build(flat, 25_001, 25_001, 10).encode(),
                BloomFilter.build(chunks, 25_001, 25_001, 10).encode()));
    }

    @Test
    void aStandardFilterStaysStandardWhenExtended() {
        long[] hashes = new long[1000];
        for (int i = 0; i < hashes.length; i++) {
            hashes[i] = BloomFilter.hash(("k" + i).getBytes(StandardCharsets.UTF_8));
        }
        byte[] blockedBytes = BloomFilter.build(hashes, 1000, 2000, 10).encode();
        // The same bit array relabelled as version 1 is a valid standard filter (any multiple of 64 bits is).
        byte[] standardBytes = blockedBytes.clone();
        standardBytes[0] = BloomFilter.FORMAT_VERSION_STANDARD;
        BloomFilter standard = BloomFilter.decode(standardBytes);
        assertNotNull(standard);
        assertFalse(standard.blocked());
        BloomFilter extended = standard.copyForAppend();
        long h = BloomFilter.hash("new key".getBytes(StandardCharsets.UTF_8));
        extended.add(h);
        assertTrue(extended.mightContainHash(h));
        assertEquals(BloomFilter.FORMAT_VERSION_STANDARD, extended.encode()[0], "an extended version-1 filter stays version 1");
    }

    @Test
    void malformedExtentsAreRejected() {
        byte[] ok = BloomFilter.build(new long[] {1, 2, 3}, 3, 10).encode();
        byte[] badVersion = ok.clone();
        badVersion[0] = 3;
        assertNull(BloomFilter.decode(badVersion));
        // A blocked filter must hold whole 512-bit blocks.
        byte[] partialBlock = new byte[BloomFilter.HEADER_SIZE + 64 / 8];
        partialBlock[0] = BloomFilter.FORMAT_VERSION;
        PageFormat.putShort(partialBlock, 2, 7);
        PageFormat.putLong(partialBlock, 8, 64);
        assertNull(BloomFilter.decode(partialBlock));
        partialBlock[0] = BloomFilter.FORMAT_VERSION_STANDARD;
        assertNotNull(BloomFilter.decode(partialBlock), "64 bits is a valid standard filter");
    }
}
