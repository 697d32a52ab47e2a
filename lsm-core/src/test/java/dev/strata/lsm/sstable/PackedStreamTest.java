package dev.strata.lsm.sstable;

import dev.strata.lsm.Compression;
import dev.strata.lsm.LeafEncoding;
import dev.strata.lsm.cache.BlockCache;
import dev.strata.lsm.io.PageFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A packed table's stream does not depend on how its pages were compressed: on the shared
 * compressor pool, by the writer itself when its window of pages in flight is full, or in
 * whatever order batches complete. The format-3 fixtures written by this build are byte for
 * byte the checked-in ones, and tables far larger than a sink's window, written by several
 * writers at once (so batches queue behind each other's and writers compress their own),
 * are byte for byte the table written alone.
 */
class PackedStreamTest {
    @TempDir
    Path dir;

    final TableFixture fixture = new TableFixture();

    @Test
    void theFixturesWrittenNowAreTheCheckedInBytes() throws Exception {
        for (Compression c : Compression.values()) {
            Path path = dir.resolve("plain-" + c.configName() + ".sst");
            fixture.write(path, TableOptions.defaults().withCompression(c).withLeafEncoding(LeafEncoding.PLAIN,
                    TableOptions.DEFAULT_RESTART_INTERVAL), FormatThreeFixtureTest.fixtureEntries());
            assertArrayEquals(resource(FormatThreeFixtureTest.resource(c)), Files.readAllBytes(path), c.toString());
        }
        for (Compression c : FormatThreeFixtureTest.PREFIX_FIXTURE_CODECS) {
            Path path = dir.resolve("prefix-" + c.configName() + ".sst");
            fixture.write(path, TableOptions.defaults().withCompression(c), FormatThreeFixtureTest.fixtureEntries());
            assertArrayEquals(resource(FormatThreeFixtureTest.prefixResource(c)), Files.readAllBytes(path),
                    c.toString());
        }
    }

    @Test
    void tablesWrittenAtOnceAreTheTableWrittenAlone() throws Exception {
        // About 850 pages of 4 KiB: many windows of pages in flight, with overflow extents between.
        List<InternalEntry> entries = CompressedTableTest.compressibleEntries(new Random(19), 20_000, 0.5, 4096);
        for (Compression c : List.of(Compression.LZ4, Compression.ZSTD)) {
            TableOptions options = TableOptions.defaults().withCompression(c);
            Path alone = dir.resolve("alone-" + c.configName() + ".sst");
            fixture.write(alone, options, entries);
            byte[] expected = Files.readAllBytes(alone);
            assertTrue(expected.length > 400 * 4096 / 4, "a table of many windows: " + expected.length + " bytes");
            int writers = 4;
            ExecutorService pool = Executors.newFixedThreadPool(writers);
            try {
                List<Future<Path>> written = new ArrayList<>();
                for (int w = 0; w < writers; w++) {
                    Path path = dir.resolve("at-once-" + w + "-" + c.configName() + ".sst");
                    written.add(pool.submit(() -> {
                        fixture.write(path, options, entries);
                        return path;
                    }));
                }
                for (Future<Path> f : written) {
                    Path path = f.get();
                    assertArrayEquals(expected, Files.readAllBytes(path), path.toString());
                }
            } finally {
                pool.shutdownNow();
            }
            try (PageFile file = fixture.openForRead(alone)) {
                SSTableReader reader = SSTableReader.open(file, file.size() - 4096, 1, BlockCache.disabled());
                CompressedTableTest.assertEntries(entries, reader);
            }
        }
    }

    private static byte[] resource(String name) throws Exception {
        try (InputStream in = PackedStreamTest.class.getResourceAsStream(name)) {
            assertNotNull(in, "test resource " + name + " is missing");
            return in.readAllBytes();
        }
    }
}
