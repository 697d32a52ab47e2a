package dev.strata.lsm.sstable;

import dev.strata.lsm.cache.BlockCache;
import dev.strata.lsm.io.IoPurpose;
import dev.strata.lsm.io.IoStats;
import dev.strata.lsm.io.PageFile;
import dev.strata.lsm.testkit.TestKeys;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Point lookups, seeks and the IO they cost, on a table of even keys "k00000000", "k00000002", ... */
class SSTableLookupTest {
    private static final int KEYS = 120_000;

    @TempDir
    Path dir;

    private final TableFixture fixture = new TableFixture();
    private FinishedTable table;
    private Path path;

    private static byte[] key(int i) {
        return TestKeys.padded("k", i, 8).getBytes(StandardCharsets.US_ASCII);
    }

    private static byte[] value(int i) {
        byte[] v = new byte[100];
        new Random(i).nextBytes(v);
        return v;
    }

    @BeforeEach
    void writeTable() throws IOException {
        List<InternalEntry> entries = new ArrayList<>(KEYS);
        for (int i = 0; i < KEYS; i++) {
            entries.add(InternalEntry.put(key(2 * i), i + 1, value(2 * i)));
        }
        path = dir.resolve("lookup.sst");
        table = fixture.write(path, TableOptions.defaults(), entries);
    }

    @Test
    void presentAndAbsentKeys() throws IOException {
        try (PageFile file = fixture.openForRead(path)) {
            SSTableReader reader = TableFixture.open(file, table, BlockCache.create(64 << 20));
            Random rnd = new Random(5);
            for (int n = 0; n < 20_000; n++) {
                int i = rnd.nextInt(2 * KEYS + 10) - 5;
                InternalEntry e = i >= 0 ? reader.get(key(i)) : reader.get(new byte[] {(byte) i});
                if (i >= 0 && i % 2 == 0 && i < 2 * KEYS) {
                    assertNotNull(e, "key " + i);
                    assertArrayEquals(value(i), e.value());
                    assertEquals(i / 2 + 1, e.seqno());
                } else {
                    assertNull(e, "key " + i);
                }
            }
            assertNull(reader.get(new byte[0]));
            assertNull(reader.get("l".getBytes(StandardCharsets.US_ASCII)));
            // A snapshot older than the entry does not see it.
            assertNull(reader.get(key(10), 5));
            assertNotNull(reader.get(key(10), 6));
        }
    }

    @Test
    void seekBeforeBetweenAndAfter() throws IOException {
        try (PageFile file = fixture.openForRead(path)) {
            SSTableReader reader = TableFixture.open(file, table, BlockCache.create(64 << 20));
            TableIterator it = reader.iterator();

            it.seek("a".getBytes(StandardCharsets.US_ASCII));
            assertTrue(it.valid());
            assertArrayEquals(key(0), it.key());

            for (int i : new int[] {1, 7, 999, 12_345, 2 * KEYS - 5}) {
                it.seek(key(i));
                assertTrue(it.valid());
                assertArrayEquals(key(i + 1), it.key(), "between keys lands on the next key");
                it.seek(key(i + 1));
                assertArrayEquals(key(i + 1), it.key(), "exact key");
                it.next();
                assertArrayEquals(key(i + 3), it.key());
            }

            it.seek(key(2 * KEYS - 2));
            assertTrue(it.valid());
            it.next();
            assertFalse(it.valid(), "past the last key");

            it.seek(key(2 * KEYS));
            assertFalse(it.valid(), "seek after the last key");
            it.seek("z".getBytes(StandardCharsets.US_ASCII));
            assertFalse(it.valid());

            // Iterating from a mid-table seek crosses leaf and interior boundaries in order.
            it.seek(key(40_001));
            int expected = 40_002;
            while (it.valid()) {
                assertArrayEquals(key(expected), it.key());
                expected += 2;
                it.next();
            }
            assertEquals(2 * KEYS, expected);
        }
    }

    @Test
    void uncachedLookupReadsExactlyHeightPages() throws IOException {
        try (PageFile file = fixture.openForRead(path)) {
            SSTableReader reader = TableFixture.open(file, table, BlockCache.disabled());
            int height = reader.footer().height();
            assertTrue(height >= 3, "table should be at least 3 levels tall, is " + height);
            Random rnd = new Random(3);
            for (int n = 0; n < 500; n++) {
                int i = 2 * rnd.nextInt(KEYS);
                IoStats before = fixture.io.counters().snapshot();
                assertNotNull(reader.get(key(i)));
                IoStats delta = fixture.io.counters().snapshot().minus(before);
                assertEquals(height, delta.reads(IoPurpose.READ), "page reads for one lookup");
                assertEquals((long) height * 4096, delta.bytesRead(IoPurpose.READ), "bytes read for one lookup");
                assertEquals(height, delta.totalReads(), "no other reads");
                assertEquals(0, delta.totalBytesWritten());
            }
        }
    }

    @Test
    void cachedLookupReadsNothing() throws IOException {
        try (PageFile file = fixture.openForRead(path)) {
            BlockCache cache = BlockCache.create(64 << 20);
            SSTableReader reader = TableFixture.open(file, table, cache);
            assertNotNull(reader.get(key(100)));
            IoStats before = fixture.io.counters().snapshot();
            long lookups = cache.stats().hitCount() + cache.stats().missCount();
            assertNotNull(reader.get(key(100)));
            assertEquals(0, fixture.io.counters().snapshot().minus(before).totalReads());
            // The reader keeps its interior pages (level 1 within the pin budget); the leaf comes from the cache.
            assertEquals(lookups + 1, cache.stats().hitCount() + cache.stats().missCount(), cache.stats().toString());
            assertTrue(cache.stats().hitCount() >= 1, cache.stats().toString());
        }
    }

    @Test
    void bloomFalsePositiveRateIsWithinTwiceTheory() throws IOException {
        try (PageFile file = fixture.openForRead(path)) {
            SSTableReader reader = TableFixture.open(file, table, BlockCache.disabled());
            int probes = 200_000;
            int falsePositives = 0;
            for (int i = 0; i < probes; i++) {
                // Odd numbers and keys past the end are all absent.
                if (reader.mightContain(key(2 * i + 1))) {
                    falsePositives++;
                }
            }
            int k = BloomFilter.optimalHashes(10);
            double theory = BloomFilter.expectedFalsePositiveRate(KEYS, (long) KEYS * 10, k);
            double measured = (double) falsePositives / probes;
            System.out.printf("bloom: measured %.5f, theory %.5f (k=%d)%n", measured, theory, k);
            assertTrue(measured <= 2 * theory, "false-positive rate " + measured + " vs theory " + theory);
            assertTrue(measured >= theory / 2, "suspiciously low rate " + measured + " vs theory " + theory);
            for (int i = 0; i < KEYS; i++) {
                assertTrue(reader.mightContain(key(2 * i)), "no false negatives");
            }
        }
    }
}
