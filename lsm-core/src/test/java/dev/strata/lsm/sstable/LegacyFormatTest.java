package dev.strata.lsm.sstable;

import dev.strata.lsm.cache.BlockCache;
import dev.strata.lsm.io.IoPurpose;
import dev.strata.lsm.io.OpenMode;
import dev.strata.lsm.io.PageFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * A table written by the format-version-1 writer (commit 4fff4c5, before the version-2 bump)
 * is checked in as {@code sstable/format1.sst}; this build must open it and read exactly the
 * entries it was written from. The entries are regenerated from a fixed seed
 * ({@link java.util.Random}'s algorithm is specified, so they are the same on every JDK).
 */
class LegacyFormatTest {
    static final String RESOURCE = "/sstable/format1.sst";
    /** Footer offset of the table in the resource (its last page). */
    static final long FOOTER_OFFSET_PAGES_FROM_END = 1;

    @TempDir
    Path dir;

    /** 1500 keys of 20-200 bytes, values of 0-300 bytes, some versions and tombstones, four overflow values. */
    static List<InternalEntry> entries() {
        List<InternalEntry> entries = new ArrayList<>(TableFixture.randomEntries(new Random(20261124), 1500, 20, 200, 0, 300));
        Random rnd = new Random(7);
        for (int i = 100; i < entries.size(); i += entries.size() / 4) {
            InternalEntry e = entries.get(i);
            byte[] big = new byte[3000 + rnd.nextInt(6000)];
            rnd.nextBytes(big);
            entries.set(i, InternalEntry.put(e.key(), e.seqno(), big));
        }
        return entries;
    }

    private Path copyResource() throws IOException {
        Path path = dir.resolve("format1.sst");
        try (InputStream in = LegacyFormatTest.class.getResourceAsStream(RESOURCE)) {
            assertNotNull(in, "test resource " + RESOURCE + " is missing");
            Files.copy(in, path);
        }
        return path;
    }

    @Test
    void formatOneTableOpensAndReadsIdentically() throws IOException {
        List<InternalEntry> expected = entries();
        Path path = copyResource();
        TableFixture fixture = new TableFixture();
        try (PageFile file = fixture.io.open(path, OpenMode.READ, IoPurpose.READ)) {
            long footerOffset = file.size() - FOOTER_OFFSET_PAGES_FROM_END * 4096;
            for (BlockCache cache : List.of(BlockCache.disabled(), BlockCache.create(4 << 20))) {
                SSTableReader reader = SSTableReader.open(file, footerOffset, 1, cache);
                Footer f = reader.footer();
                assertEquals(1, f.formatVersion());
                assertEquals(expected.stream().map(e -> java.util.HexFormat.of().formatHex(e.key())).distinct().count(), 1500);
                assertEquals(expected.size(), f.entryCount());
                assertEquals(expected.stream().filter(InternalEntry::isTombstone).count(), f.tombstoneCount());
                assertEquals(3, f.height(), "the resource has two interior levels");
                TableIterator it = reader.iterator();
                it.seekToFirst();
                List<InternalEntry> read = new ArrayList<>();
                while (it.valid()) {
                    read.add(it.entry());
                    it.next();
                }
                assertEquals(expected, read);
                InternalEntry newest = null;
                for (InternalEntry e : expected) {
                    assertEquals(e, reader.get(e.key(), e.seqno()));
                    if (newest == null || !Arrays.equals(newest.key(), e.key())) {
                        newest = e;
                        assertEquals(e, reader.get(e.key()));
                    }
                }
                assertNull(reader.get(new byte[] {0}));
            }
        }
    }
}
