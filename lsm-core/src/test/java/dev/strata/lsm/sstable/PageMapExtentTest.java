package dev.strata.lsm.sstable;

import dev.strata.lsm.Compression;
import dev.strata.lsm.io.FileChannelStorageIO;
import dev.strata.lsm.io.IoPurpose;
import dev.strata.lsm.io.OpenMode;
import dev.strata.lsm.io.PageFile;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A packed table's page map when a multi-page extent (a bloom filter, an overflow value) ends
 * the stream past the capacity of the sink's map arrays: the map names every logical page,
 * the extent's continuation pages with 0 and 0. The arrays grew only for the extent's first
 * page, so the map's writer read past their end ({@code ArrayIndexOutOfBoundsException: Index
 * 256 out of bounds for length 256}, seen in a block compaction of an lz4 table in
 * BlockCompactionKillTest at multiplier 3; a flush or merge that hit it failed on every retry).
 */
class PageMapExtentTest {
    @TempDir
    Path dir;

    @ParameterizedTest
    @ValueSource(ints = {250, 254, 255, 509, 1020})
    void anExtentCrossingTheMapCapacityIsMappedWithItsContinuationPages(int pagesBefore) throws IOException {
        int pageSize = 4096;
        Random rnd = new Random(pagesBefore);
        try (PageFile file = new FileChannelStorageIO().open(dir.resolve(pagesBefore + ".sst"), OpenMode.CREATE,
                IoPurpose.FLUSH)) {
            PageSink sink = new PageSink(file, pageSize, PageCodec.of(Compression.LZ4, 0), dev.strata.lsm.ParallelCompression.OFF);
            byte[] page = new byte[pageSize];
            for (int i = 0; i < pagesBefore; i++) {
                rnd.nextBytes(page);
                assertEquals(i, sink.writePage(page));
            }
            byte[] extent = new byte[3 * pageSize + 100]; // four logical pages
            rnd.nextBytes(extent);
            int extentPage = sink.nextPage();
            sink.writeExtent(extent, extent.length);
            assertEquals(extentPage + 4, sink.nextPage());
            PageSink.PageMap map = sink.writePageMap();
            assertEquals((pagesBefore + 4) * PageFormat.MAP_ENTRY_SIZE, map.length());

            sink.alignForFooter();
            sink.flush();
            ByteBuffer bytes = ByteBuffer.allocate(map.length());
            file.readFully(bytes, map.offset());
            byte[] m = bytes.array();
            int at = extentPage * PageFormat.MAP_ENTRY_SIZE;
            assertEquals(extent.length, PageFormat.getInt(m, at + 8), "the extent's first page has its length");
            for (int p = extentPage + 1; p < extentPage + 4; p++) {
                int e = p * PageFormat.MAP_ENTRY_SIZE;
                assertEquals(0L, PageFormat.getLong(m, e), "continuation page " + p);
                assertEquals(0, PageFormat.getInt(m, e + 8), "continuation page " + p);
            }
        }
    }
}
