package dev.strata.lsm.engine;

import dev.strata.lsm.ColumnFamily;
import dev.strata.lsm.FamilyOptions;
import dev.strata.lsm.LsmStore;
import dev.strata.lsm.StoreConfig;
import dev.strata.lsm.WalSyncMode;
import dev.strata.lsm.io.FileChannelStorageIO;
import dev.strata.lsm.wal.WalSegments;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * WAL retention with several column families, atomic flush off and on: once every family has
 * flushed what it held, no segment below the one being written is needed, and none is on disk
 * when the last flush returns (the flush lane used to delete them only after the memtable left
 * its list, which is what flush() waits for, so a caller looking right after found them).
 * Every acknowledged write still reads back after a reopen.
 */
class WalRetentionAcrossFamiliesTest {
    @TempDir
    Path tmp;

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    private static List<Long> segments(Path dir) throws IOException {
        return WalSegments.list(new FileChannelStorageIO(), dir).stream()
                .map(p -> WalSegments.parseNumber(p).orElseThrow()).sorted().toList();
    }

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void flushingEveryFamilyLeavesOnlyTheSegmentBeingWritten(boolean atomic) throws IOException {
        Path dir = tmp.resolve("store");
        StoreConfig config = StoreConfig.builder().walMode(WalSyncMode.ASYNC).atomicFlush(atomic)
                .memtableBytes(1 << 20).mergePolicy("no-merge")
                .family("a", FamilyOptions.defaults()).family("b", FamilyOptions.defaults()).build();
        try (LsmStore store = LsmStore.open(dir, config)) {
            List<ColumnFamily> all = List.of(store.defaultColumnFamily(), store.columnFamily("a"),
                    store.columnFamily("b"));
            for (int round = 0; round < 2; round++) {
                for (ColumnFamily f : all) {
                    store.put(f, bytes("k" + round), bytes(f.name() + round));
                }
                for (ColumnFamily f : all) {
                    store.flushColumnFamily(f);
                }
                List<Long> left = segments(dir);
                assertEquals(1, left.size(), "round " + round + ": every family flushed, yet segments " + left);
            }
            store.put(all.get(1), bytes("after"), bytes("unflushed"));
        }
        try (LsmStore store = LsmStore.open(dir, config)) {
            for (String name : List.of("default", "a", "b")) {
                ColumnFamily f = name.equals("default") ? store.defaultColumnFamily() : store.columnFamily(name);
                for (int round = 0; round < 2; round++) {
                    assertArrayEquals(bytes(f.name() + round), store.get(f, bytes("k" + round)), name + round);
                }
            }
            assertArrayEquals(bytes("unflushed"), store.get(store.columnFamily("a"), bytes("after")));
        }
    }

    /**
     * Family a's memtable is created when the store opens and stays empty while the default
     * family rolls the log (each of its flushes switches its memtable, which starts a new
     * segment) and family b holds an unflushed write from the first segment, so those
     * segments stay; then a takes one write. What a needs kept is the segment of that write,
     * not the one its memtable was created at: once b flushes, every segment before a's write
     * goes. Before, a's memtable kept its creation segment (a's log number) and pinned every
     * segment from there until a flushed.
     */
    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void aFamilysFirstWriteNotItsMemtablesCreationDecidesWhatItKeeps(boolean atomic) throws IOException {
        Path dir = tmp.resolve("store");
        int rolls = 5;
        StoreConfig config = StoreConfig.builder().walMode(WalSyncMode.ASYNC).atomicFlush(atomic)
                .memtableBytes(1 << 20).mergePolicy("no-merge")
                .family("a", FamilyOptions.defaults()).family("b", FamilyOptions.defaults()).build();
        try (LsmStore store = LsmStore.open(dir, config)) {
            ColumnFamily a = store.columnFamily("a");
            ColumnFamily b = store.columnFamily("b");
            ColumnFamily d = store.defaultColumnFamily();
            long opened = segments(dir).get(segments(dir).size() - 1);
            store.put(b, bytes("b-key"), bytes("b-value")); // holds the segments from here on
            for (int i = 0; i < rolls; i++) {
                store.put(d, bytes("d" + i), bytes("d-value" + i));
                store.flushColumnFamily(d);
            }
            List<Long> beforeWriteSegments = segments(dir);
            long beforeWrite = beforeWriteSegments.get(beforeWriteSegments.size() - 1);
            if (!atomic) {
                assertEquals(opened, beforeWriteSegments.get(0), "b's write holds the segments: " + beforeWriteSegments);
                assertEquals(rolls + 1, beforeWriteSegments.size(), "the default family rolled the log: "
                        + beforeWriteSegments);
            }
            store.put(a, bytes("a-key"), bytes("a-value")); // into the segment being written, beforeWrite
            store.flushColumnFamily(b);
            List<Long> left = segments(dir);
            assertEquals(true, left.stream().allMatch(n -> n >= beforeWrite), "a's one write is in segment "
                    + beforeWrite + ", b flushed, the default family holds nothing, yet segments " + left + " are kept");
            if (!atomic) {
                // (With atomic flush b's flush takes a's write along, and that segment goes too.)
                assertEquals(beforeWrite, left.get(0), "a's write is in segment " + beforeWrite + ": " + left);
            }
        }
        try (LsmStore store = LsmStore.open(dir, config)) {
            assertArrayEquals(bytes("a-value"), store.get(store.columnFamily("a"), bytes("a-key")));
            assertArrayEquals(bytes("b-value"), store.get(store.columnFamily("b"), bytes("b-key")));
            for (int i = 0; i < rolls; i++) {
                assertArrayEquals(bytes("d-value" + i), store.get(bytes("d" + i)));
            }
        }
    }
}
