package dev.strata.lsm.sstable;

import dev.strata.lsm.io.FileChannelStorageIO;
import dev.strata.lsm.io.IoPurpose;
import dev.strata.lsm.io.OpenMode;
import dev.strata.lsm.io.PageFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SSTableWriterValidationTest {
    @TempDir
    Path dir;

    private SSTableWriter writer(PageFile file) throws IOException {
        return new SSTableWriter(file, TableOptions.defaults());
    }

    private PageFile open() throws IOException {
        return new FileChannelStorageIO().open(dir.resolve("v.sst"), OpenMode.CREATE, IoPurpose.FLUSH);
    }

    @Test
    void unsortedKeysAreRejectedNamingBothKeys() throws IOException {
        try (PageFile file = open()) {
            SSTableWriter w = writer(file);
            w.add("banana".getBytes(StandardCharsets.US_ASCII), 5, EntryType.PUT, new byte[1]);
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> w.add("apple".getBytes(StandardCharsets.US_ASCII), 9, EntryType.PUT, new byte[1]));
            assertTrue(e.getMessage().contains("\"apple\"") && e.getMessage().contains("\"banana\""), e.getMessage());
            // The writer is still usable after a rejected entry.
            w.add("cherry".getBytes(StandardCharsets.US_ASCII), 1, EntryType.PUT, new byte[1]);
            assertEquals(2, w.finish().footer().entryCount());
        }
    }

    @Test
    void sameKeyMustDescendBySequenceNumber() throws IOException {
        try (PageFile file = open()) {
            SSTableWriter w = writer(file);
            w.add(new byte[] {1}, 5, EntryType.PUT, new byte[1]);
            w.add(new byte[] {1}, 4, EntryType.DELETE, null);
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> w.add(new byte[] {1}, 4, EntryType.PUT, new byte[1]));
            assertTrue(e.getMessage().contains("0x01@4"), e.getMessage());
        }
    }

    @Test
    void oversizedKeyIsRejectedNamingBothSizes() throws IOException {
        try (PageFile file = open()) {
            SSTableWriter w = writer(file);
            int max = TableOptions.defaults().maxKeySize();
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> w.add(new byte[max + 1], 1, EntryType.PUT, new byte[0]));
            assertTrue(e.getMessage().contains((max + 1) + " bytes") && e.getMessage().contains(max + " bytes"),
                    e.getMessage());
            w.add(new byte[max], 1, EntryType.PUT, new byte[0]);
        }
    }

    @Test
    void badArgumentsAreRejected() throws IOException {
        try (PageFile file = open()) {
            SSTableWriter w = writer(file);
            assertThrows(IllegalArgumentException.class, () -> w.add(null, 1, EntryType.PUT, new byte[0]));
            assertThrows(IllegalArgumentException.class, () -> w.add(new byte[1], 1, EntryType.PUT, null));
            assertThrows(IllegalArgumentException.class, () -> w.add(new byte[1], -1, EntryType.PUT, new byte[0]));
            assertThrows(IllegalArgumentException.class,
                    () -> w.add(new byte[1], InternalKeys.MAX_SEQNO + 1, EntryType.PUT, new byte[0]));
            w.finish();
            assertThrows(IllegalStateException.class, () -> w.add(new byte[1], 1, EntryType.PUT, new byte[0]));
        }
    }

    @Test
    void pageSizeMustBeAPowerOfTwoInRange() {
        assertThrows(IllegalArgumentException.class, () -> new TableOptions(2048, 10));
        assertThrows(IllegalArgumentException.class, () -> new TableOptions(6000, 10));
        assertThrows(IllegalArgumentException.class, () -> new TableOptions(131072, 10));
        assertThrows(IllegalArgumentException.class, () -> new TableOptions(4096, -1));
        assertEquals(992, TableOptions.defaults().maxKeySize());
    }
}
