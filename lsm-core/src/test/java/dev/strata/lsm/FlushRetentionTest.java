package dev.strata.lsm;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.Map;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A flush writes the versions a reader can still see, not every version in the memtable. */
class FlushRetentionTest {
    private static final int VERSIONS = 2000;
    private static final int VALUE_BYTES = 1000;

    private static StoreConfig config() {
        return StoreConfig.builder().memtableBytes(64L << 20).mergePolicy("no-merge", Map.of()).build();
    }

    private static byte[] value(int version) {
        byte[] v = new byte[VALUE_BYTES];
        java.util.Arrays.fill(v, (byte) version);
        v[0] = (byte) (version >>> 8);
        return v;
    }

    @Test
    void overwrittenVersionsAreNotFlushed(@TempDir Path dir) {
        byte[] key = "hot".getBytes(UTF_8);
        try (LsmStore store = LsmStore.open(dir, config())) {
            for (int i = 0; i < VERSIONS; i++) {
                store.put(key, value(i));
            }
            store.delete("gone".getBytes(UTF_8));
            store.flush();
            long flushed = store.stats().flushBytesWritten();
            // Two entries (one value, one tombstone) fit in a few pages; all versions would take 2 MB.
            assertTrue(flushed < 64 * 1024, "flushed " + flushed + " bytes");
            assertArrayEquals(value(VERSIONS - 1), store.get(key));
            assertNull(store.get("gone".getBytes(UTF_8)));
        }
        try (LsmStore store = LsmStore.open(dir, config())) {
            assertArrayEquals(value(VERSIONS - 1), store.get(key));
        }
    }

    @Test
    void versionsThatSnapshotsSeeAreFlushed(@TempDir Path dir) {
        byte[] key = "hot".getBytes(UTF_8);
        try (LsmStore store = LsmStore.open(dir, config())) {
            Snapshot early = null;
            Snapshot late = null;
            for (int i = 0; i < VERSIONS; i++) {
                store.put(key, value(i));
                if (i == 10) {
                    early = store.snapshot();
                } else if (i == 1500) {
                    late = store.snapshot();
                }
            }
            store.flush();
            long flushed = store.stats().flushBytesWritten();
            assertTrue(flushed < 64 * 1024, "three versions, not " + VERSIONS + ": flushed " + flushed + " bytes");
            assertArrayEquals(value(10), early.get(key));
            assertArrayEquals(value(1500), late.get(key));
            assertArrayEquals(value(VERSIONS - 1), store.get(key));
            early.close();
            late.close();
        }
    }
}
