package dev.strata.lsm;

import dev.strata.lsm.wal.WalWriter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The size limits a configuration allows are the ones the write path can take. */
class WriteLimitsTest {
    @TempDir
    Path dir;

    @Test
    void maxValueBytesIsCappedBelowTheWalRecordLimit() {
        int limit = StoreConfig.maxValueBytesLimit(4096);
        // One put of the largest key and the largest value still fits one WAL record.
        int maxKey = StoreConfig.builder().build().maxKeyBytes();
        assertTrue(12L + 1 + 5 + maxKey + 5 + limit <= WalWriter.MAX_RECORD_SIZE, "limit " + limit);
        assertEquals(limit, StoreConfig.builder().maxValueBytes(limit).build().maxValueBytes());
        ConfigException e = assertThrows(ConfigException.class,
                () -> StoreConfig.builder().maxValueBytes(1 << 30).build());
        assertTrue(e.getMessage().contains("maxValueBytes") && e.getMessage().contains(String.valueOf(limit))
                && e.getMessage().contains("WAL"), e.getMessage());
        // The larger the page, the larger the key, the smaller the value limit.
        assertTrue(StoreConfig.maxValueBytesLimit(65536) < limit);
    }

    @Test
    void aBatchLargerThanOneWalRecordIsRejectedAndChangesNothing() throws IOException {
        try (LsmStore store = LsmStore.open(dir)) {
            store.put("k".getBytes(), "v".getBytes());
            long seq = store.stats().lastSequence();
            List<Path> walBefore = files();
            // 17 values of 64 MiB (one array, shared): 1,088 MiB, more than one WAL record holds.
            byte[] value = new byte[store.config().maxValueBytes()];
            WriteBatch batch = new WriteBatch();
            for (int i = 0; i < 17; i++) {
                batch.put(("big" + i).getBytes(), value);
            }
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> store.write(batch));
            assertTrue(e.getMessage().contains("batch") && e.getMessage().contains(String.valueOf(WalWriter.MAX_RECORD_SIZE)),
                    e.getMessage());
            assertEquals(seq, store.stats().lastSequence());
            assertNull(store.get("big0".getBytes()));
            assertEquals(walBefore, files(), "the WAL segments changed");
            store.put("k2".getBytes(), "v2".getBytes());
            assertArrayEquals("v2".getBytes(), store.get("k2".getBytes()));
        }
    }

    private List<Path> files() throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.map(Path::getFileName).sorted().toList();
        }
    }
}
