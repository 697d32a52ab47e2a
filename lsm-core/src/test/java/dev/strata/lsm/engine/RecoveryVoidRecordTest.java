package dev.strata.lsm.engine;

import dev.strata.lsm.LsmStore;
import dev.strata.lsm.StoreConfig;
import dev.strata.lsm.WriteBatch;
import dev.strata.lsm.io.FileChannelStorageIO;
import dev.strata.lsm.io.ForwardingStorageIO;
import dev.strata.lsm.io.IoPurpose;
import dev.strata.lsm.io.OpenMode;
import dev.strata.lsm.io.PageFile;
import dev.strata.lsm.io.StorageIO;
import dev.strata.lsm.wal.WalSegments;
import dev.strata.lsm.WalSyncMode;
import dev.strata.lsm.wal.WalWriter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * Recovery reads each WAL segment once and skips, in every family, a group that a void record
 * names wherever the void record stands: in the next segment (the usual place) or further on
 * (a void record whose first writing failed is written again in a later segment), when the
 * group's record was already replayed and the replay starts again.
 */
class RecoveryVoidRecordTest {
    @TempDir
    Path dir;

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    private static byte[] batch(long seq, String key, String value) {
        WriteBatch b = new WriteBatch().put(bytes(key), bytes(value));
        byte[] out = new byte[(int) BatchCodec.encodedSize(b)];
        int n = BatchCodec.encode(List.of(b), seq, 1, out);
        return java.util.Arrays.copyOf(out, n);
    }

    private static void segment(StorageIO io, Path dir, long number, byte[]... records) {
        WalWriter w = WalWriter.create(io, dir, number, WalSyncMode.SYNC);
        try {
            for (byte[] r : records) {
                w.append(r);
            }
            w.sync();
        } finally {
            w.close();
        }
    }

    /** Counts the opens of WAL segments for reading, by file name. */
    private static final class CountingIO extends ForwardingStorageIO {
        final Map<String, Integer> reads = new ConcurrentHashMap<>();

        CountingIO() {
            super(new FileChannelStorageIO());
        }

        @Override
        public PageFile open(Path path, OpenMode mode, IoPurpose purpose) throws IOException {
            if (purpose == IoPurpose.WAL && mode == OpenMode.READ) {
                reads.merge(path.getFileName().toString(), 1, Integer::sum);
            }
            return super.open(path, mode, purpose);
        }
    }

    private static StoreConfig config(StorageIO io) {
        return StoreConfig.builder().walMode(WalSyncMode.SYNC).mergePolicy("no-merge").storageIO(io).build();
    }

    /**
     * Writes k1 through a store, then two segments after its own: k2 and k3 (groups 100 and
     * 101), then a void record for k3's group (the usual place) and k4 (group 102). Returns
     * the first added segment's number, far above the file numbers a reopen takes.
     */
    private long storeWithTwoSegments(StorageIO io) throws IOException {
        try (LsmStore store = LsmStore.open(dir, config(io))) {
            store.put(bytes("k1"), bytes("v1"));
        }
        List<Path> existing = WalSegments.list(io, dir);
        long s = WalSegments.parseNumber(existing.get(existing.size() - 1)).orElseThrow() + 1000;
        segment(io, dir, s, batch(100, "k2", "v2"), batch(101, "k3", "v3"));
        segment(io, dir, s + 1, BatchCodec.encodeVoid(101, 1), batch(102, "k4", "v4"));
        return s;
    }

    @Test
    void eachSegmentIsReadOnceWhenEveryVoidRecordIsInTheNextSegment() throws Exception {
        StorageIO io = new FileChannelStorageIO();
        storeWithTwoSegments(io);
        List<Path> segments = WalSegments.list(io, dir);
        CountingIO counting = new CountingIO();
        try (LsmStore store = LsmStore.open(dir, config(counting))) {
            assertArrayEquals(bytes("v1"), store.get(bytes("k1")));
            assertArrayEquals(bytes("v2"), store.get(bytes("k2")));
            assertNull(store.get(bytes("k3")), "voided in the next segment");
            assertArrayEquals(bytes("v4"), store.get(bytes("k4")));
        }
        for (Path segment : segments) {
            String name = segment.getFileName().toString();
            assertEquals(1, counting.reads.getOrDefault(name, 0), "reads of " + name);
        }
    }

    @Test
    void aVoidRecordInTheNextSegmentOrFurtherOnVoidsItsGroup() throws Exception {
        StorageIO io = new FileChannelStorageIO();
        long s = storeWithTwoSegments(io);
        // Further on: k2's group, replayed by the time this segment is read.
        segment(io, dir, s + 2, BatchCodec.encodeVoid(100, 1), batch(103, "k5", "v5"));
        try (LsmStore store = LsmStore.open(dir, config(io))) {
            assertArrayEquals(bytes("v1"), store.get(bytes("k1")));
            assertNull(store.get(bytes("k2")), "voided two segments later");
            assertNull(store.get(bytes("k3")), "voided in the next segment");
            assertArrayEquals(bytes("v4"), store.get(bytes("k4")));
            assertArrayEquals(bytes("v5"), store.get(bytes("k5")));
            store.put(bytes("k6"), bytes("v6"));
        }
        try (LsmStore store = LsmStore.open(dir, config(io))) {
            assertArrayEquals(bytes("v6"), store.get(bytes("k6")), "sequence numbers went on above the replayed ones");
            assertNull(store.get(bytes("k2")));
            assertArrayEquals(bytes("v5"), store.get(bytes("k5")));
        }
    }
}
