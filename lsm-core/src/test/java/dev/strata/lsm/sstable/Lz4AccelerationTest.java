package dev.strata.lsm.sstable;

import dev.strata.lsm.Compression;
import dev.strata.lsm.cache.BlockCache;
import dev.strata.lsm.io.PageFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * LZ4's acceleration ({@code lz4Acceleration}) and the compressor pool's hand-offs: tables
 * written faster read back exactly, a codec's per-thread states are never shared, and builds
 * that outnumber the compressor threads write the same files as the building thread.
 */
class Lz4AccelerationTest {
    @TempDir
    Path dir;

    final TableFixture fixture = new TableFixture();

    @Test
    void aTableWrittenAtAHigherAccelerationReadsBackExactly() throws Exception {
        List<InternalEntry> entries = CompressedTableTest.compressibleEntries(new Random(7), 4000, 0.2, 4096);
        TableOptions options = TableOptions.defaults().withCompression(Compression.LZ4);
        FinishedTable one = fixture.write(dir.resolve("a1.sst"), options, entries);
        for (int acceleration : new int[] {2, 8, Compression.MAX_LZ4_ACCELERATION}) {
            Path path = dir.resolve("a" + acceleration + ".sst");
            FinishedTable table = fixture.write(path, options.withLz4Acceleration(acceleration), entries);
            assertEquals(Compression.LZ4, table.footer().compression());
            assertEquals(one.footer().livePages(), table.footer().livePages(), "the same logical pages");
            // A different encoder: at least as many bytes as acceleration 1, and still compressed.
            assertTrue(table.footer().storedBytes() >= one.footer().storedBytes(),
                    "acceleration " + acceleration + ": " + table.footer().storedBytes() + " bytes against "
                            + one.footer().storedBytes());
            try (PageFile file = fixture.openForRead(path)) {
                CompressedTableTest.assertEntries(entries, TableFixture.open(file, table, BlockCache.disabled()));
                CompressedTableTest.assertEntries(entries, TableFixture.open(file, table, BlockCache.create(8 << 20)));
            }
        }
        assertNotEquals(Files.size(dir.resolve("a1.sst")), Files.size(dir.resolve("a65537.sst")),
                "the highest acceleration encodes differently (the option reaches the codec)");
    }

    @Test
    void threadsCompressingWithOneCodecAtOnceNeverShareAState() throws Exception {
        // A fast-reset compressor used by two threads at once throws (lz4-java checks): four
        // threads compressing through one codec prove each compression had a state of its own.
        PageCodec codec = PageCodec.of(Compression.LZ4, Compression.DEFAULT_LEVEL, 3);
        assertEquals("lz4 acceleration 3", codec.toString());
        ExecutorService threads = Executors.newFixedThreadPool(4);
        try {
            List<Future<Integer>> done = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                int seed = t;
                done.add(threads.submit(() -> {
                    Random rnd = new Random(seed);
                    byte[] page = new byte[4096];
                    byte[] packed = new byte[codec.maxCompressedLength(page.length)];
                    byte[] back = new byte[page.length];
                    for (int i = 0; i < 3000; i++) {
                        for (int j = 0; j < page.length; j++) {
                            page[j] = (byte) (j % 50 < 25 ? 'a' + rnd.nextInt(4) : j);
                        }
                        int n = codec.compress(page, 0, page.length, packed, 0);
                        codec.decompress(packed, 0, n, back, page.length);
                        if (!Arrays.equals(page, back)) {
                            throw new AssertionError("page " + i + " of thread " + seed + " did not round-trip");
                        }
                    }
                    return 3000;
                }));
            }
            for (Future<Integer> f : done) {
                assertEquals(3000, f.get());
            }
        } finally {
            threads.shutdownNow();
        }
    }

    @Test
    void moreParallelBuildsThanCompressorsWriteWhatTheBuildingThreadWrites() throws Exception {
        // With more builds than compressor threads, writers find batches no compressor has
        // started and encode them themselves; the files must not change.
        List<InternalEntry> entries = CompressedTableTest.compressibleEntries(new Random(11), 6000, 0.2, 4096);
        TableOptions options = TableOptions.defaults().withCompression(Compression.LZ4);
        byte[] expected = Files.readAllBytes(writeTo(dir.resolve("inline.sst"), options, entries));
        ExecutorService builders = Executors.newFixedThreadPool(6);
        try {
            List<Future<Path>> built = new ArrayList<>();
            for (int b = 0; b < 12; b++) {
                Path path = dir.resolve("parallel-" + b + ".sst");
                built.add(builders.submit(() -> writeTo(path, options.withParallelCompression(true), entries)));
            }
            for (Future<Path> f : built) {
                assertArrayEquals(expected, Files.readAllBytes(f.get()));
            }
        } finally {
            builders.shutdownNow();
        }
    }

    private Path writeTo(Path path, TableOptions options, List<InternalEntry> entries) throws Exception {
        fixture.write(path, options, entries);
        return path;
    }
}
