package dev.strata.lsm.engine;

import dev.strata.lsm.ColumnFamily;
import dev.strata.lsm.FamilyOptions;
import dev.strata.lsm.IngestOptions;
import dev.strata.lsm.LsmStore;
import dev.strata.lsm.Snapshot;
import dev.strata.lsm.StoreConfig;
import dev.strata.lsm.TableWriter;
import dev.strata.lsm.TestAccess;
import dev.strata.lsm.sstable.EntryType;
import dev.strata.lsm.sstable.InternalEntry;
import dev.strata.lsm.sstable.TableIterator;
import dev.strata.lsm.testkit.TestKeys;
import dev.strata.lsm.version.Component;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Sequence numbers in bottommost outputs (docs/engine.md): a merge whose output is bottommost
 * writes a put that is the only version of its key any reader at or above the oldest snapshot
 * can see with sequence number 0, as RocksDB's compaction does; everything else keeps its own.
 * Read back from the tables, and through snapshots, range tombstones, merge operands and a
 * reopen.
 */
class BottommostSequenceZeroTest {
    @TempDir
    Path dir;

    private static byte[] key(int i) {
        return TestKeys.padded("key-", i, 8).getBytes();
    }

    private static byte[] value(int i, int round) {
        return ("value " + i + " round " + round).getBytes();
    }

    private static StoreConfig config() {
        return StoreConfig.builder().memtableBytes(4 << 20).build();
    }

    /** Every entry of every table of the store's current version, with each table's footer bounds checked. */
    private static List<InternalEntry> tableEntries(LsmStore store) throws IOException {
        return tableEntries(store, store.defaultColumnFamily());
    }

    /** {@link #tableEntries(LsmStore)} of column family {@code family}. */
    private static List<InternalEntry> tableEntries(LsmStore store, ColumnFamily family) throws IOException {
        List<InternalEntry> out = new ArrayList<>();
        for (Component c : TestAccess.engine(store).currentVersion(family.id()).components()) {
            long min = Long.MAX_VALUE;
            long max = Long.MIN_VALUE;
            try (TableIterator it = c.reader().iterator()) {
                for (it.seekToFirst(); it.valid(); it.next()) {
                    out.add(new InternalEntry(it.key(), it.seqno(), it.type(),
                            it.type() == EntryType.DELETE ? null : it.value()));
                    min = Math.min(min, it.seqno());
                    max = Math.max(max, it.seqno());
                }
            }
            for (var t : c.reader().rangeTombstones().tombstones()) {
                min = Math.min(min, t.seqno());
                max = Math.max(max, t.seqno());
            }
            if (min <= max) {
                assertEquals(min, c.reader().footer().minSeqno(), "footer minSeqno of " + c.id());
                assertEquals(max, c.reader().footer().maxSeqno(), "footer maxSeqno of " + c.id());
                assertEquals(min, c.meta().minSeqno(), "manifest minSeqno of " + c.id());
                assertEquals(max, c.meta().maxSeqno(), "manifest maxSeqno of " + c.id());
            }
        }
        return out;
    }

    private static long newestSequence(LsmStore store, byte[] key) {
        InternalEntry e = TestAccess.engine(store).latestInMemtables(key);
        assertTrue(e != null, "the memtable holds the write just made");
        return e.seqno();
    }

    @Test
    void aMergeToTheBottomWritesSequenceNumberZero() throws IOException {
        int keys = 2000;
        try (LsmStore store = LsmStore.open(dir, config())) {
            for (int i = 0; i < keys; i++) {
                store.put(key(i), value(i, 0));
            }
            store.flush();
            for (int i = 0; i < keys; i += 3) {
                store.put(key(i), value(i, 1));
            }
            store.delete(key(1));
            store.flush();
            store.compactRange(null, null);
            List<InternalEntry> entries = tableEntries(store);
            assertEquals(keys - 1, entries.size(), "one version of each live key, the tombstone dropped");
            for (InternalEntry e : entries) {
                assertEquals(EntryType.PUT, e.type());
                assertEquals(0, e.seqno(), "the only version of " + new String(e.key()) + " at the bottom");
            }
            for (int i = 0; i < keys; i++) {
                byte[] expected = i == 1 ? null : value(i, i % 3 == 0 ? 1 : 0);
                assertArrayEquals(expected, store.get(key(i)), "key " + i);
            }
            // A newer write still shadows the zeroed version, in memory and once merged.
            store.put(key(5), value(5, 2));
            assertTrue(newestSequence(store, key(5)) > 0);
            assertArrayEquals(value(5, 2), store.get(key(5)));
            store.compactRange(null, null);
            assertArrayEquals(value(5, 2), store.get(key(5)));
        }
    }

    @Test
    void aSnapshotTakenBeforeTheMergeReadsItsOwnVersions() throws IOException {
        int keys = 1000;
        try (LsmStore store = LsmStore.open(dir, config())) {
            for (int i = 0; i < keys; i++) {
                store.put(key(i), value(i, 0));
            }
            long before = newestSequence(store, key(keys - 1));
            Snapshot snap = store.snapshot();
            for (int i = 0; i < keys; i += 2) {
                store.put(key(i), value(i, 1)); // overwritten after the snapshot
            }
            for (int i = keys; i < keys + 100; i++) {
                store.put(key(i), value(i, 1)); // new after the snapshot
            }
            store.delete(key(1)); // deleted after the snapshot
            store.compactRange(null, null);
            List<InternalEntry> entries = tableEntries(store);
            int zeroed = 0;
            for (InternalEntry e : entries) {
                if (e.seqno() == 0) {
                    zeroed++;
                    assertEquals(EntryType.PUT, e.type());
                } else {
                    assertTrue(e.seqno() > before, "only versions newer than the snapshot keep a sequence number: "
                            + new String(e.key()) + "@" + e.seqno());
                }
            }
            assertEquals(keys, zeroed, "every version the snapshot reads is at sequence number 0");
            for (int i = 0; i < keys + 100; i++) {
                assertArrayEquals(i < keys ? value(i, 0) : null, snap.get(key(i)), "snapshot, key " + i);
                byte[] latest = i == 1 ? null : value(i, i >= keys || i % 2 == 0 ? 1 : 0);
                assertArrayEquals(latest, store.get(key(i)), "latest, key " + i);
            }
            snap.close();
            store.compactRange(null, null);
            for (InternalEntry e : tableEntries(store)) {
                assertEquals(0, e.seqno(), "with no snapshot left every version is zeroed: " + new String(e.key()));
            }
            assertNull(store.get(key(1)));
            assertArrayEquals(value(2, 1), store.get(key(2)));
            assertArrayEquals(value(3, 0), store.get(key(3)));
        }
    }

    @Test
    void keysWrittenAfterARangeTombstoneStayVisibleThroughABottomMerge() throws IOException {
        int keys = 500;
        try (LsmStore store = LsmStore.open(dir, config())) {
            for (int i = 0; i < keys; i++) {
                store.put(key(i), value(i, 0));
            }
            store.flush();
            Snapshot snap = store.snapshot();
            store.deleteRange(key(100), key(400));
            for (int i = 150; i < 250; i++) {
                store.put(key(i), value(i, 1)); // written after the tombstone, inside its range
            }
            store.flush();
            store.compactRange(null, null);
            // The snapshot keeps the tombstone and the versions under it; the newer keys stay visible.
            for (int i = 0; i < keys; i++) {
                assertArrayEquals(value(i, 0), snap.get(key(i)), "snapshot, key " + i);
                byte[] latest = i >= 150 && i < 250 ? value(i, 1) : i >= 100 && i < 400 ? null : value(i, 0);
                assertArrayEquals(latest, store.get(key(i)), "latest, key " + i);
            }
            long tombstones = TestAccess.engine(store).currentVersion().components().stream()
                    .mapToLong(c -> c.reader().rangeTombstones().tombstones().size()).sum();
            assertTrue(tombstones > 0, "the snapshot keeps the tombstone in the bottom output");
            for (InternalEntry e : tableEntries(store)) {
                int i = Integer.parseInt(new String(e.key()).substring(4));
                if (i >= 100 && i < 400 && e.seqno() == 0) {
                    throw new AssertionError("key " + i + " under a kept range tombstone was zeroed");
                }
            }
            snap.close();
            store.compactRange(null, null);
            List<InternalEntry> entries = tableEntries(store);
            assertEquals(keys - 300 + 100, entries.size(), "the tombstone dropped the keys it covers");
            for (InternalEntry e : entries) {
                assertEquals(0, e.seqno(), new String(e.key()));
            }
            assertEquals(0, TestAccess.engine(store).currentVersion().components().stream()
                    .mapToLong(c -> c.reader().rangeTombstones().tombstones().size()).sum(),
                    "no snapshot needs the tombstone at the bottom");
        }
        try (LsmStore store = LsmStore.open(dir, config())) {
            for (int i = 0; i < keys; i++) {
                byte[] latest = i >= 150 && i < 250 ? value(i, 1) : i >= 100 && i < 400 ? null : value(i, 0);
                assertArrayEquals(latest, store.get(key(i)), "after reopen, key " + i);
            }
        }
    }

    @Test
    void mergeOperandsFullyMergedAtTheBottomAreZeroed() throws IOException {
        StoreConfig cfg = config().toBuilder().mergeOperator("uint64add").build();
        try (LsmStore store = LsmStore.open(dir, cfg)) {
            for (int round = 0; round < 5; round++) {
                for (int i = 0; i < 100; i++) {
                    store.merge(key(i), counter(i + 1));
                }
                store.flush();
            }
            Snapshot snap = store.snapshot();
            for (int i = 0; i < 50; i++) {
                store.merge(key(i), counter(1000)); // after the snapshot: an operand that stays one
            }
            store.compactRange(null, null);
            for (InternalEntry e : tableEntries(store)) {
                int i = Integer.parseInt(new String(e.key()).substring(4));
                if (e.seqno() == 0) {
                    assertEquals(EntryType.PUT, e.type(), "only a full merge is zeroed");
                    assertArrayEquals(counter(5L * (i + 1)), e.value());
                } else {
                    assertEquals(EntryType.MERGE, e.type(), "key " + i);
                    assertTrue(i < 50);
                }
            }
            for (int i = 0; i < 100; i++) {
                assertArrayEquals(counter(5L * (i + 1)), snap.get(key(i)), "snapshot, key " + i);
                assertArrayEquals(counter(5L * (i + 1) + (i < 50 ? 1000 : 0)), store.get(key(i)), "key " + i);
            }
            snap.close();
            store.compactRange(null, null);
            for (InternalEntry e : tableEntries(store)) {
                assertEquals(0, e.seqno());
                assertEquals(EntryType.PUT, e.type());
            }
        }
        try (LsmStore store = LsmStore.open(dir, cfg)) {
            for (int i = 0; i < 100; i++) {
                assertArrayEquals(counter(5L * (i + 1) + (i < 50 ? 1000 : 0)), store.get(key(i)), "key " + i);
            }
        }
    }

    private static byte[] counter(long n) {
        return ByteBuffer.allocate(8).putLong(n).array(); // uint64add: big-endian
    }

    @Test
    void aReopenAfterEverythingIsAtTheBottomContinuesSequenceNumbers() throws IOException {
        int keys = 1000;
        long last;
        try (LsmStore store = LsmStore.open(dir, config())) {
            for (int i = 0; i < keys; i++) {
                store.put(key(i), value(i, 0));
            }
            last = newestSequence(store, key(keys - 1));
            store.compactRange(null, null);
            for (InternalEntry e : tableEntries(store)) {
                assertEquals(0, e.seqno(), "everything merged to the bottom and zeroed");
            }
            assertTrue(TestAccess.engine(store).currentVersion().lastSequence() >= last);
        }
        for (int reopen = 0; reopen < 2; reopen++) {
            try (LsmStore store = LsmStore.open(dir, config())) {
                assertTrue(TestAccess.engine(store).currentVersion().lastSequence() >= last,
                        "the manifest keeps the last sequence number, not the tables' largest");
                Snapshot before = store.snapshot();
                store.put(key(7), value(7, reopen + 1));
                long next = newestSequence(store, key(7));
                assertTrue(next > last, "the next write's sequence number " + next + " is above every earlier one ("
                        + last + ")");
                last = next;
                assertArrayEquals(value(7, reopen), before.get(key(7)), "a snapshot from before the write");
                assertArrayEquals(value(7, reopen + 1), store.get(key(7)));
                before.close();
                store.compactRange(null, null);
                assertArrayEquals(value(7, reopen + 1), store.get(key(7)));
                assertFalse(tableEntries(store).stream().anyMatch(e -> e.seqno() != 0));
            }
        }
    }

    @Test
    void familiesShareSnapshotsAndTheSequenceSpace() throws IOException {
        int keys = 500;
        long last;
        try (LsmStore store = LsmStore.open(dir, config())) {
            ColumnFamily a = store.createColumnFamily("a", FamilyOptions.defaults());
            for (int i = 0; i < keys; i++) {
                store.put(a, key(i), value(i, 0));
                store.put(key(i), value(i, 0));
            }
            long before = TestAccess.engine(store).latestInMemtables(a.id(), key(keys - 1)).seqno();
            Snapshot snap = store.snapshot(); // taken on the store: it holds every family's versions
            for (int i = 0; i < 100; i++) {
                store.put(a, key(i), value(i, 1));
            }
            store.compactRange(a, null, null);
            int zeroed = 0;
            for (InternalEntry e : tableEntries(store, a)) {
                if (e.seqno() == 0) {
                    zeroed++;
                } else {
                    assertTrue(e.seqno() > before, "family a keeps the numbers above the snapshot: " + e.seqno());
                }
            }
            assertEquals(keys, zeroed);
            for (int i = 0; i < keys; i++) {
                assertArrayEquals(value(i, 0), snap.get(a, key(i)), "snapshot, family a, key " + i);
                assertArrayEquals(value(i, i < 100 ? 1 : 0), store.get(a, key(i)), "family a, key " + i);
            }
            snap.close();
            store.compactRange(a, null, null);
            store.compactRange(null, null);
            assertFalse(tableEntries(store, a).stream().anyMatch(e -> e.seqno() != 0));
            assertFalse(tableEntries(store).stream().anyMatch(e -> e.seqno() != 0));
            store.put(key(0), value(0, 2));
            last = newestSequence(store, key(0));
            store.flush();
            store.compactRange(null, null);
        }
        try (LsmStore store = LsmStore.open(dir, config())) {
            ColumnFamily a = store.columnFamily("a");
            store.put(a, key(1), value(1, 3));
            long next = TestAccess.engine(store).latestInMemtables(a.id(), key(1)).seqno();
            assertTrue(next > last, "family a's next write " + next + " is above the default family's last " + last);
            assertArrayEquals(value(1, 3), store.get(a, key(1)));
            assertArrayEquals(value(0, 2), store.get(key(0)));
            assertArrayEquals(value(2, 1), store.get(a, key(2)));
        }
    }

    @Test
    void anIngestedTableKeepsItsGlobalNumberUntilABottomMergeRewritesIt() throws IOException {
        Path storeDir = dir.resolve("store");
        long ingestedAt;
        try (LsmStore store = LsmStore.open(storeDir, config())) {
            for (int i = 0; i < 1000; i++) {
                store.put(key(i), value(i, 0));
            }
            store.compactRange(null, null);
            assertFalse(tableEntries(store).stream().anyMatch(e -> e.seqno() != 0));
            Snapshot snap = store.snapshot();
            Path external = dir.resolve("ingest.sst");
            try (TableWriter w = TableWriter.create(external, store.config())) {
                for (int i = 500; i < 1500; i++) {
                    w.put(key(i), value(i, 1));
                }
                w.finish();
            }
            store.ingest(List.of(external), IngestOptions.defaults());
            List<InternalEntry> entries = tableEntries(store);
            ingestedAt = entries.stream().mapToLong(InternalEntry::seqno).max().orElseThrow();
            assertTrue(ingestedAt > 0, "the ingested table reads at its global number");
            assertEquals(1000, entries.stream().filter(e -> e.seqno() == ingestedAt).count());
            for (int i = 0; i < 1500; i++) {
                assertArrayEquals(i < 500 ? value(i, 0) : value(i, 1), store.get(key(i)), "key " + i);
                assertArrayEquals(i < 1000 ? value(i, 0) : null, snap.get(key(i)), "snapshot, key " + i);
            }
            store.compactRange(null, null);
            for (int i = 0; i < 1500; i++) {
                assertArrayEquals(i < 1000 ? value(i, 0) : null, snap.get(key(i)), "snapshot after the merge, key " + i);
            }
            snap.close();
            store.compactRange(null, null);
            entries = tableEntries(store);
            assertEquals(1500, entries.size());
            assertFalse(entries.stream().anyMatch(e -> e.seqno() != 0), "rewritten at the bottom, zeroed");
            for (int i = 0; i < 1500; i++) {
                assertArrayEquals(i < 500 ? value(i, 0) : value(i, 1), store.get(key(i)), "key " + i);
            }
        }
        try (LsmStore store = LsmStore.open(storeDir, config())) {
            store.put(key(700), value(700, 2));
            assertTrue(newestSequence(store, key(700)) > ingestedAt, "numbering continues above the ingest's");
            assertArrayEquals(value(700, 2), store.get(key(700)));
            assertArrayEquals(value(701, 1), store.get(key(701)));
        }
    }

    @Test
    void keysKeepTheirOrderWhenSeveralVersionsSurvive() throws IOException {
        try (LsmStore store = LsmStore.open(dir, config())) {
            store.put(key(1), value(1, 0));
            Snapshot s1 = store.snapshot();
            store.put(key(1), value(1, 1));
            Snapshot s2 = store.snapshot();
            store.put(key(1), value(1, 2));
            store.compactRange(null, null);
            List<InternalEntry> entries = tableEntries(store);
            assertEquals(3, entries.size());
            long[] seqs = entries.stream().mapToLong(InternalEntry::seqno).toArray();
            assertTrue(seqs[0] > seqs[1] && seqs[1] > 0 && seqs[2] == 0, Arrays.toString(seqs));
            assertArrayEquals(value(1, 0), s1.get(key(1)));
            assertArrayEquals(value(1, 1), s2.get(key(1)));
            assertArrayEquals(value(1, 2), store.get(key(1)));
            s1.close();
            s2.close();
        }
    }
}
