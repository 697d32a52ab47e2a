package dev.strata.lsm.memtable;

import dev.strata.lsm.sstable.EntryType;
import dev.strata.lsm.sstable.InternalEntry;
import dev.strata.lsm.sstable.InternalIterator;
import dev.strata.lsm.sstable.InternalKeys;
import dev.strata.lsm.sstable.IteratorWalk;
import dev.strata.lsm.testkit.TestSeed;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

class MemtableTest {

    /** Internal key of the model: user key, then sequence number descending. */
    private record IKey(byte[] key, long seqno) implements Comparable<IKey> {
        @Override
        public int compareTo(IKey o) {
            return InternalKeys.compare(key, seqno, o.key, o.seqno);
        }
    }

    private record Val(EntryType type, byte[] value) {
    }

    /**
     * Keys that stress the inline sixteen-byte prefix: lengths 0 to 40, few distinct bytes (so
     * long common prefixes and prefix-of relations are frequent) and zero bytes that look
     * like padding.
     */
    private static byte[] randomKey(Random r) {
        int len = r.nextInt(10) == 0 ? r.nextInt(3) : r.nextInt(41);
        byte[] k = new byte[len];
        for (int i = 0; i < len; i++) {
            k[i] = (byte) (i < 14 && r.nextInt(4) != 0 ? 'a' : r.nextInt(3) == 0 ? 0 : r.nextInt(3) == 0 ? 0xff : 'b');
        }
        return k;
    }

    @ParameterizedTest(name = "offHeap={0}")
    @ValueSource(booleans = {false, true})
    void iteratesSeeksAndGetsLikeASortedMap(boolean offHeap) throws Exception {
        Random r = new Random(42);
        Memtable m = new Memtable(7, offHeap);
        TreeMap<IKey, Val> model = new TreeMap<>();
        List<byte[]> keys = new ArrayList<>();
        for (long seq = 1; seq <= 20_000; seq++) {
            byte[] key = keys.isEmpty() || r.nextInt(3) > 0 ? randomKey(r) : keys.get(r.nextInt(keys.size()));
            keys.add(key);
            boolean delete = r.nextInt(5) == 0;
            byte[] value = new byte[r.nextInt(200)];
            r.nextBytes(value);
            m.add(key, seq, delete ? EntryType.DELETE : EntryType.PUT, delete ? null : value);
            model.put(new IKey(key.clone(), seq), new Val(delete ? EntryType.DELETE : EntryType.PUT, delete ? null : value.clone()));
            Arrays.fill(value, (byte) 1); // the memtable copied it
        }
        assertEquals(model.size(), m.entryCount());
        assertEquals(20_000, m.maxSeqno());
        assertEquals(7, m.walSegment());

        InternalIterator it = m.iterator();
        it.seekToFirst();
        for (Map.Entry<IKey, Val> e : model.entrySet()) {
            assertTrue(it.valid());
            assertArrayEquals(e.getKey().key(), it.key());
            assertEquals(e.getKey().seqno(), it.seqno());
            assertEquals(e.getValue().type(), it.type());
            assertArrayEquals(e.getValue().value(), it.value());
            it.next();
        }
        assertFalse(it.valid());

        for (int i = 0; i < 5_000; i++) {
            byte[] probe = r.nextBoolean() ? keys.get(r.nextInt(keys.size())) : randomKey(r);
            long snapshot = 1 + r.nextInt(20_000);
            Map.Entry<IKey, Val> want = model.ceilingEntry(new IKey(probe, snapshot));
            InternalEntry got = m.get(probe, snapshot);
            if (want == null || !Arrays.equals(want.getKey().key(), probe)) {
                assertNull(got, "no visible version of " + Arrays.toString(probe));
            } else {
                assertEquals(want.getKey().seqno(), got.seqno());
                assertEquals(want.getValue().type(), got.type());
                assertArrayEquals(want.getValue().value(), got.value());
            }
            it.seek(probe);
            Map.Entry<IKey, Val> first = model.ceilingEntry(new IKey(probe, InternalKeys.MAX_SEQNO));
            if (first == null) {
                assertFalse(it.valid());
            } else {
                assertArrayEquals(first.getKey().key(), it.key());
                assertEquals(first.getKey().seqno(), it.seqno());
            }
        }
    }

    /** The smallest and largest sequence numbers added, range tombstones included; 0 while empty. */
    @ParameterizedTest(name = "offHeap={0}")
    @ValueSource(booleans = {false, true})
    void tracksItsFirstAndLastSequenceNumbers(boolean offHeap) {
        Memtable m = new Memtable(1, offHeap);
        assertEquals(0, m.minSeqno());
        assertEquals(0, m.maxSeqno());
        m.add(new byte[] {5}, 7, dev.strata.lsm.sstable.EntryType.PUT, new byte[] {1});
        m.add(new byte[] {3}, 9, dev.strata.lsm.sstable.EntryType.MERGE, new byte[] {1});
        assertEquals(7, m.minSeqno());
        assertEquals(9, m.maxSeqno());
        m.addRangeTombstone(new byte[] {0}, new byte[] {9}, 4);
        m.addRangeTombstone(new byte[] {0}, new byte[] {9}, 12);
        assertEquals(4, m.minSeqno());
        assertEquals(12, m.maxSeqno());
    }

    @ParameterizedTest(name = "offHeap={0}")
    @ValueSource(booleans = {false, true})
    void accountsForWhatTheEntriesOccupy(boolean offHeap) {
        Memtable m = new Memtable(1, offHeap);
        assertTrue(m.isEmpty());
        assertEquals(0, m.approximateBytes());
        m.add(new byte[16], 1, EntryType.PUT, new byte[100]);
        long one = m.approximateBytes();
        assertTrue(one >= 116 + ArenaSkipList.NODE_FIXED_BYTES + 8, "key, value, node and a pointer: " + one);
        m.add(new byte[16], 2, EntryType.DELETE, null);
        assertTrue(m.approximateBytes() - one >= 16 + ArenaSkipList.NODE_FIXED_BYTES + 8);
        assertFalse(m.isEmpty());
        assertEquals(offHeap, m.offHeap());
        // Direct memory is charged exactly as the heap's arrays are: the budget sees the same figure.
        Memtable other = new Memtable(1, !offHeap);
        other.add(new byte[16], 1, EntryType.PUT, new byte[100]);
        other.add(new byte[16], 2, EntryType.DELETE, null);
        assertEquals(m.approximateBytes(), other.approximateBytes());
    }

    @ParameterizedTest(name = "offHeap={0}")
    @ValueSource(booleans = {false, true})
    void takesValuesLargerThanAnArenaChunk(boolean offHeap) {
        Memtable m = new Memtable(1, offHeap);
        byte[] big = new byte[3 << 20];
        new Random(1).nextBytes(big);
        m.add("small".getBytes(), 1, EntryType.PUT, "v".getBytes());
        m.add("big".getBytes(), 2, EntryType.PUT, big);
        m.add("tiny".getBytes(), 3, EntryType.PUT, new byte[0]);
        assertArrayEquals(big, m.get("big".getBytes(), 10).value());
        assertArrayEquals("v".getBytes(), m.get("small".getBytes(), 10).value());
        assertArrayEquals(new byte[0], m.get("tiny".getBytes(), 10).value());
        assertNull(m.get("big".getBytes(), 1), "not visible before its sequence number");
    }

    @ParameterizedTest(name = "offHeap={0}")
    @ValueSource(booleans = {false, true})
    void movesBothWaysLikeASortedList(boolean offHeap) throws Exception {
        Random r = new Random(43);
        for (int round = 0; round < 4; round++) {
            Memtable m = new Memtable(1, offHeap);
            TreeMap<IKey, Val> model = new TreeMap<>();
            List<byte[]> keys = new ArrayList<>();
            int n = round == 0 ? 0 : round == 1 ? 1 : 5_000 * round;
            for (long seq = 1; seq <= n; seq++) {
                // Prefix-heavy keys, and many versions of a few of them.
                byte[] key = keys.isEmpty() || r.nextInt(3) > 0 ? randomKey(r) : keys.get(r.nextInt(Math.min(keys.size(), 20)));
                keys.add(key);
                boolean delete = r.nextInt(5) == 0;
                byte[] value = new byte[r.nextInt(50)];
                r.nextBytes(value);
                m.add(key, seq, delete ? EntryType.DELETE : EntryType.PUT, delete ? null : value);
                model.put(new IKey(key.clone(), seq), new Val(delete ? EntryType.DELETE : EntryType.PUT,
                        delete ? null : value.clone()));
            }
            List<InternalEntry> expected = new ArrayList<>();
            model.forEach((k, v) -> expected.add(new InternalEntry(k.key(), k.seqno(), v.type(), v.value())));
            int entries = n;
            IteratorWalk.walk(m.iterator(), expected, r, 20_000, new IteratorWalk.Targets() {
                @Override
                public byte[] key(Random rnd) {
                    return keys.isEmpty() || rnd.nextInt(3) == 0 ? randomKey(rnd) : keys.get(rnd.nextInt(keys.size()));
                }

                @Override
                public long seqno(Random rnd) {
                    return rnd.nextInt(10) == 0 ? InternalKeys.MAX_SEQNO : rnd.nextInt(entries + 2);
                }
            }, "memtable of " + n + " entries");
        }
    }

    @ParameterizedTest(name = "offHeap={0}")
    @ValueSource(booleans = {false, true})
    void readersSeeSortedCompleteEntriesWhileOneThreadAdds(boolean offHeap) throws Exception {
        Memtable m = new Memtable(1, offHeap);
        int n = 200_000;
        AtomicBoolean done = new AtomicBoolean();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        List<Thread> readers = new ArrayList<>();
        long seed = TestSeed.orRandom();
        System.out.println("readers seed=" + seed + " (replay the readers' keys with -Dstrata.test.seed=" + seed + ")");
        for (int t = 0; t < 2; t++) {
            long readerSeed = seed + t;
            Thread reader = new Thread(() -> {
                try {
                    Random r = new Random(readerSeed);
                    while (!done.get()) {
                        InternalIterator it = m.iterator();
                        byte[] from = new byte[8];
                        r.nextBytes(from);
                        it.seek(from);
                        byte[] prev = null;
                        for (int i = 0; i < 1000 && it.valid(); i++, it.next()) {
                            byte[] key = it.key();
                            // Versions of one key (the writer overwrites) sit side by side.
                            if (prev != null && Arrays.compareUnsigned(prev, key) > 0) {
                                throw new AssertionError("out of order");
                            }
                            // Each value repeats its key's first byte: a torn entry would show.
                            byte[] value = it.value();
                            for (byte b : value) {
                                if (b != key[0]) {
                                    throw new AssertionError("value does not belong to its key");
                                }
                            }
                            prev = key;
                        }
                        // Backwards: each step follows a back link while nodes are linked in.
                        it.seekForPrev(from);
                        byte[] after = null;
                        for (int i = 0; i < 1000 && it.valid(); i++, it.prev()) {
                            byte[] key = it.key();
                            if (after != null && Arrays.compareUnsigned(key, after) > 0) {
                                throw new AssertionError("out of order backwards");
                            }
                            if (Arrays.compareUnsigned(key, from) > 0) {
                                throw new AssertionError("seekForPrev landed after its target");
                            }
                            byte[] value = it.value();
                            for (byte b : value) {
                                if (b != key[0]) {
                                    throw new AssertionError("value does not belong to its key");
                                }
                            }
                            after = key;
                        }
                    }
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                }
            });
            reader.start();
            readers.add(reader);
        }
        Random r = new Random(3);
        List<byte[]> written = new ArrayList<>();
        for (int i = 1; i <= n; i++) {
            // One in three a newer version of a recent key (linked in front of it without a search).
            byte[] key;
            if (!written.isEmpty() && r.nextInt(3) == 0) {
                key = written.get(written.size() - 1 - r.nextInt(Math.min(1000, written.size())));
            } else {
                key = new byte[12];
                r.nextBytes(key);
                written.add(key);
            }
            byte[] value = new byte[1 + r.nextInt(64)];
            Arrays.fill(value, key[0]);
            m.add(key, i, EntryType.PUT, value);
        }
        done.set(true);
        for (Thread reader : readers) {
            reader.join();
        }
        if (failure.get() != null) {
            throw new AssertionError(failure.get());
        }
        assertEquals(n, m.entryCount());
    }

    /**
     * Overwrites of a few keys (most go in front of the key's newest node without a search),
     * some with older sequence numbers than the key's newest (those must search): both
     * directions of iteration, seeks, point reads and the key counts match a sorted model.
     */
    @ParameterizedTest(name = "offHeap={0}")
    @ValueSource(booleans = {false, true})
    void overwritesLinkedWithoutASearchKeepTheListSortedBothWays(boolean offHeap) throws Exception {
        long seed = TestSeed.orRandom();
        Random r = new Random(seed);
        Memtable m = new Memtable(1, offHeap);
        TreeMap<IKey, Val> model = new TreeMap<>();
        List<byte[]> keys = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            keys.add(randomKey(r));
        }
        long seq = 1_000;
        for (int i = 0; i < 20_000; i++) {
            byte[] key = keys.get(r.nextInt(keys.size()));
            // One in ten goes below every sequence number used so far: an older version.
            long s = r.nextInt(10) == 0 ? 1 + r.nextInt(999) : ++seq;
            IKey ik = new IKey(key.clone(), s);
            if (model.containsKey(ik)) {
                continue;
            }
            boolean delete = r.nextInt(4) == 0;
            byte[] value = ("v" + i).getBytes();
            m.add(key, s, delete ? EntryType.DELETE : EntryType.PUT, delete ? null : value);
            model.put(ik, new Val(delete ? EntryType.DELETE : EntryType.PUT, delete ? null : value));
        }
        assertEquals(model.size(), m.entryCount(), "seed " + seed);
        int live = 0;
        int deleted = 0;
        byte[] previous = null;
        for (Map.Entry<IKey, Val> e : model.entrySet()) {
            if (previous == null || !Arrays.equals(previous, e.getKey().key())) {
                if (e.getValue().type() == EntryType.DELETE) {
                    deleted++;
                } else {
                    live++;
                }
            }
            previous = e.getKey().key();
        }
        assertEquals(live, m.liveKeyCount(), "seed " + seed);
        assertEquals(deleted, m.deletedKeyCount(), "seed " + seed);

        assertIteratesBothWaysLike(model, m, seed);
        for (byte[] key : keys) {
            for (long snapshot : new long[] {500, 1_000, seq / 2, seq}) {
                assertReadsLike(model, m, key, snapshot, seed);
            }
        }
    }

    /** Iterating {@code m} forward and backward gives {@code model}'s keys and sequence numbers in order. */
    private static void assertIteratesBothWaysLike(TreeMap<IKey, Val> model, Memtable m, long seed)
            throws java.io.IOException {
        InternalIterator it = m.iterator();
        it.seekToFirst();
        for (IKey k : model.keySet()) {
            assertTrue(it.valid(), "seed " + seed);
            assertArrayEquals(k.key(), it.key(), "seed " + seed);
            assertEquals(k.seqno(), it.seqno(), "seed " + seed);
            it.next();
        }
        assertFalse(it.valid(), "seed " + seed);
        it.seekToLast();
        for (IKey k : model.descendingKeySet()) {
            assertTrue(it.valid(), "seed " + seed);
            assertArrayEquals(k.key(), it.key(), "seed " + seed);
            assertEquals(k.seqno(), it.seqno(), "seed " + seed);
            it.prev();
        }
        assertFalse(it.valid(), "seed " + seed);
    }

    /** A point read of {@code key} at {@code snapshot} finds what {@code model} holds there, or nothing. */
    private static void assertReadsLike(TreeMap<IKey, Val> model, Memtable m, byte[] key, long snapshot, long seed)
            throws java.io.IOException {
        Map.Entry<IKey, Val> want = model.ceilingEntry(new IKey(key, snapshot));
        InternalEntry got = m.get(key, snapshot);
        if (want == null || !Arrays.equals(want.getKey().key(), key)) {
            assertNull(got, "seed " + seed);
        } else {
            assertEquals(want.getKey().seqno(), got.seqno(), "seed " + seed);
            assertArrayEquals(want.getValue().value(), got.value(), "seed " + seed);
        }
    }

    /**
     * Ascending runs (the finger: each insert of a run starts from the last search's
     * predecessors) mixed with random inserts, new versions of keys already there (some
     * linked without a search, which leaves the finger where it was), runs that start below
     * the finger, and the caller's key array overwritten after each insert: both directions
     * of iteration and a seek to every entry (which walks the upper levels) match a sorted
     * model, and so do point reads.
     */
    @ParameterizedTest(name = "offHeap={0}")
    @ValueSource(booleans = {false, true})
    void ascendingRunsInsertedFromTheFingerKeepEveryLevelSorted(boolean offHeap) throws Exception {
        long seed = TestSeed.orRandom();
        Random r = new Random(seed);
        Memtable m = new Memtable(1, offHeap);
        TreeMap<IKey, Val> model = new TreeMap<>();
        List<byte[]> keys = new ArrayList<>();
        long seq = 0;
        while (model.size() < 30_000) {
            int length = r.nextInt(4) == 0 ? 1 : 1 + r.nextInt(r.nextBoolean() ? 20 : 2_000);
            List<byte[]> run = new ArrayList<>(length);
            for (int i = 0; i < length; i++) {
                run.add(!keys.isEmpty() && r.nextInt(4) == 0 ? keys.get(r.nextInt(keys.size()))
                        : r.nextBoolean() ? randomKey(r) : String.format("key-%08d", r.nextInt(1_000_000)).getBytes());
            }
            if (r.nextInt(5) > 0) {
                run.sort(Arrays::compareUnsigned);
            }
            for (byte[] key : run) {
                keys.add(key);
                boolean delete = r.nextInt(6) == 0;
                byte[] value = ("v" + seq).getBytes();
                byte[] handed = key.clone();
                m.add(handed, ++seq, delete ? EntryType.DELETE : EntryType.PUT, delete ? null : value);
                Arrays.fill(handed, (byte) (r.nextBoolean() ? 0 : 0xff));   // the caller reuses its array
                model.put(new IKey(key, seq), new Val(delete ? EntryType.DELETE : EntryType.PUT, delete ? null : value));
            }
        }
        assertEquals(model.size(), m.entryCount(), "seed " + seed);
        assertIteratesBothWaysLike(model, m, seed);
        InternalIterator seeker = m.iterator();
        for (IKey k : model.keySet()) {
            seeker.seek(k.key(), k.seqno());
            assertTrue(seeker.valid(), "seed " + seed);
            assertArrayEquals(k.key(), seeker.key(), "seed " + seed);
            assertEquals(k.seqno(), seeker.seqno(), "seed " + seed);
        }
        for (int i = 0; i < 5_000; i++) {
            byte[] probe = r.nextBoolean() ? keys.get(r.nextInt(keys.size())) : randomKey(r);
            assertReadsLike(model, m, probe, 1 + r.nextInt((int) seq), seed);
        }
    }

    @ParameterizedTest(name = "offHeap={0}")
    @ValueSource(booleans = {false, true})
    void pointReadsFindEveryVersionBySnapshotAndKeepTheNewestWhenInsertedOutOfOrder(boolean offHeap) {
        Memtable m = new Memtable(1, offHeap);
        byte[] key = "a-key-longer-than-sixteen-bytes".getBytes();
        // Twenty versions: a snapshot between them walks past more newer versions than the index walks.
        for (long seq = 10; seq <= 200; seq += 10) {
            m.add(key, seq, seq % 30 == 0 ? EntryType.DELETE : EntryType.PUT, ("v" + seq).getBytes());
        }
        for (long snapshot = 1; snapshot <= 210; snapshot++) {
            InternalEntry got = m.get(key, snapshot);
            long want = snapshot / 10 * 10;
            if (want < 10) {
                assertNull(got, "nothing at " + snapshot);
                continue;
            }
            assertEquals(Math.min(want, 200), got.seqno(), "snapshot " + snapshot);
        }
        // An older version added after a newer one: the newer stays the key's newest.
        Memtable late = new Memtable(1, offHeap);
        late.add("k".getBytes(), 10, EntryType.PUT, "ten".getBytes());
        late.add("k".getBytes(), 5, EntryType.PUT, "five".getBytes());
        assertArrayEquals("ten".getBytes(), late.get("k".getBytes(), 100).value());
        assertArrayEquals("five".getBytes(), late.get("k".getBytes(), 9).value());
        assertNull(late.get("k".getBytes(), 4));
        assertNull(late.get("j".getBytes(), 100));
        assertNull(late.get(new byte[0], 100));
    }

    @ParameterizedTest(name = "offHeap={0}")
    @ValueSource(booleans = {false, true})
    void pointReadsSeeEveryVisibleKeyWhileTheIndexGrows(boolean offHeap) throws Exception {
        Memtable m = new Memtable(1, offHeap);
        int n = 150_000;
        java.util.concurrent.atomic.AtomicLong visible = new java.util.concurrent.atomic.AtomicLong();
        AtomicBoolean done = new AtomicBoolean();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        long seed = TestSeed.orRandom();
        System.out.println("point readers seed=" + seed + " (replay with -Dstrata.test.seed=" + seed + ")");
        List<Thread> readers = new ArrayList<>();
        for (int t = 0; t < 2; t++) {
            long readerSeed = seed + t;
            Thread reader = new Thread(() -> {
                try {
                    Random r = new Random(readerSeed);
                    while (!done.get()) {
                        // As the store does: the sequence number first, then the read.
                        long seq = visible.get();
                        if (seq == 0) {
                            continue;
                        }
                        long i = 1 + Math.floorMod(r.nextLong(), seq);
                        InternalEntry e = m.get(pointKey(i), seq);
                        if (e == null || e.seqno() != i || !Arrays.equals(e.value(), pointKey(-i))) {
                            throw new AssertionError("key " + i + " visible at " + seq + " read as " + e);
                        }
                        if (m.get(pointKey(seq + n), seq) != null) {
                            throw new AssertionError("a key never added was found");
                        }
                    }
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                }
            });
            reader.start();
            readers.add(reader);
        }
        for (long i = 1; i <= n; i++) {
            m.add(pointKey(i), i, EntryType.PUT, pointKey(-i));
            visible.set(i);
        }
        done.set(true);
        for (Thread reader : readers) {
            reader.join();
        }
        if (failure.get() != null) {
            throw new AssertionError(failure.get());
        }
        for (long i = 1; i <= n; i += 997) {
            assertEquals(i, m.get(pointKey(i), n).seqno());
        }
    }

    private static byte[] pointKey(long i) {
        return ("key:" + i).getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    }
}
