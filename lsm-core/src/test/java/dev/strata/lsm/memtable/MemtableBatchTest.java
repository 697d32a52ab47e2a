package dev.strata.lsm.memtable;

import dev.strata.lsm.sstable.EntryType;
import dev.strata.lsm.sstable.InternalEntry;
import dev.strata.lsm.sstable.InternalIterator;
import dev.strata.lsm.sstable.InternalKeys;
import dev.strata.lsm.testkit.TestSeed;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.AtomicReferenceArray;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@link Memtable#addBatch}: the sorted batch insert that resumes each search from the last one's path. */
class MemtableBatchTest {

    private record IKey(byte[] key, long seqno) implements Comparable<IKey> {
        @Override
        public int compareTo(IKey o) {
            return InternalKeys.compare(key, seqno, o.key, o.seqno);
        }
    }

    private record Val(EntryType type, byte[] value) {
    }

    /** Keys with long common prefixes, prefix-of relations, zero bytes and lengths 0 to 40 (as MemtableTest's). */
    private static byte[] randomKey(Random r) {
        int len = r.nextInt(10) == 0 ? r.nextInt(3) : r.nextInt(41);
        byte[] k = new byte[len];
        for (int i = 0; i < len; i++) {
            k[i] = (byte) (i < 14 && r.nextInt(4) != 0 ? 'a' : r.nextInt(3) == 0 ? 0 : r.nextInt(3) == 0 ? 0xff : 'b');
        }
        return k;
    }

    /**
     * Batches of 1 to 300 entries in random order (repeated keys within a batch and across
     * batches, puts, deletes and merge operands, some sequence numbers out of order with
     * earlier batches) give the memtable that adding the same entries one by one gives:
     * the same entries both ways, the same point reads at every snapshot, the same counts.
     */
    @ParameterizedTest(name = "offHeap={0}")
    @ValueSource(booleans = {false, true})
    void batchesGiveWhatOneByOneInsertsGive(boolean offHeap) throws Exception {
        long seed = TestSeed.orRandom();
        Random r = new Random(seed);
        Memtable batched = new Memtable(1, offHeap);
        Memtable single = new Memtable(1, offHeap);
        TreeMap<IKey, Val> model = new TreeMap<>();
        List<byte[]> pool = new ArrayList<>();
        long seq = 1_000_000;
        EntryType[] kinds = {EntryType.PUT, EntryType.PUT, EntryType.PUT, EntryType.DELETE, EntryType.MERGE};
        for (int b = 0; b < 400; b++) {
            int n = 1 + (r.nextInt(4) == 0 ? r.nextInt(300) : r.nextInt(20));
            byte[][] keys = new byte[n][];
            long[] seqnos = new long[n];
            EntryType[] types = new EntryType[n];
            byte[][] values = new byte[n][];
            // Usually consecutive sequence numbers in batch order; sometimes shuffled, or below earlier batches'.
            long base = r.nextInt(20) == 0 ? r.nextInt(1_000_000 - n) + 1 : seq;
            for (int i = 0; i < n; i++) {
                byte[] key = !pool.isEmpty() && r.nextInt(3) == 0 ? pool.get(r.nextInt(pool.size())) : randomKey(r);
                pool.add(key);
                keys[i] = key;
                seqnos[i] = base + i;
                types[i] = kinds[r.nextInt(kinds.length)];
                if (types[i] != EntryType.DELETE) {
                    values[i] = new byte[r.nextInt(30)];
                    r.nextBytes(values[i]);
                }
            }
            if (r.nextBoolean()) {
                for (int i = n - 1; i > 0; i--) {
                    int j = r.nextInt(i + 1);
                    long t = seqnos[i];
                    seqnos[i] = seqnos[j];
                    seqnos[j] = t;
                }
            }
            if (base == seq) {
                seq += n;
            } else if (model.keySet().stream().anyMatch(k -> k.seqno >= base && k.seqno < base + n)) {
                continue; // sequence numbers already taken: skip this batch
            }
            batched.addBatch(keys, seqnos, types, values, n);
            for (int i = 0; i < n; i++) {
                single.add(keys[i], seqnos[i], types[i], values[i]);
                model.put(new IKey(keys[i], seqnos[i]), new Val(types[i], values[i]));
            }
        }
        String context = "seed " + seed;
        assertEquals(model.size(), single.entryCount(), context);
        assertEquals(model.size(), batched.entryCount(), context);
        assertEquals(single.liveKeyCount(), batched.liveKeyCount(), context);
        assertEquals(single.deletedKeyCount(), batched.deletedKeyCount(), context);
        assertEquals(single.minSeqno(), batched.minSeqno(), context);
        assertEquals(single.maxSeqno(), batched.maxSeqno(), context);
        assertTrue(batched.approximateBytes() > 0, context);

        // Forward and backward, entry by entry, against the model.
        InternalIterator it = batched.iterator();
        it.seekToFirst();
        for (Map.Entry<IKey, Val> e : model.entrySet()) {
            assertTrue(it.valid(), context);
            assertEntry(e, it, context);
            it.next();
        }
        assertTrue(!it.valid(), context);
        it.seekToLast();
        for (Map.Entry<IKey, Val> e : model.descendingMap().entrySet()) {
            assertTrue(it.valid(), context);
            assertEntry(e, it, context);
            it.prev();
        }
        assertTrue(!it.valid(), context);

        // Point reads at snapshots: the newest version at or below each.
        for (int i = 0; i < 3000; i++) {
            byte[] key = pool.get(r.nextInt(pool.size()));
            long snapshot = r.nextInt(4) == 0 ? InternalKeys.MAX_SEQNO : r.nextInt((int) seq + 1);
            Map.Entry<IKey, Val> expected = model.ceilingEntry(new IKey(key, snapshot));
            InternalEntry got = batched.get(key, snapshot);
            if (expected == null || !Arrays.equals(expected.getKey().key, key)) {
                assertNull(got, context);
            } else {
                assertNotNull(got, context);
                assertEquals(expected.getKey().seqno, got.seqno(), context);
                assertEquals(expected.getValue().type, got.type(), context);
                assertArrayEquals(expected.getValue().value, got.value(), context);
            }
        }
    }

    private static void assertEntry(Map.Entry<IKey, Val> e, InternalIterator it, String context) throws Exception {
        assertArrayEquals(e.getKey().key, it.key(), context);
        assertEquals(e.getKey().seqno, it.seqno(), context);
        assertEquals(e.getValue().type, it.type(), context);
        assertArrayEquals(e.getValue().type == EntryType.DELETE ? null : e.getValue().value, it.value(), context);
    }

    /**
     * While one thread adds batches of 1 to 256 entries, readers iterating both ways see keys
     * in order and whole entries, and a point read of any entry of an already added batch finds
     * it or a newer version of its key: the batch path publishes each node as a single insert does.
     */
    @ParameterizedTest(name = "offHeap={0}")
    @ValueSource(booleans = {false, true})
    void readersSeeSortedCompleteEntriesWhileBatchesAreAdded(boolean offHeap) throws Exception {
        Memtable m = new Memtable(1, offHeap);
        int n = 80_000;
        AtomicReferenceArray<byte[]> keyOf = new AtomicReferenceArray<>(n + 1);
        AtomicLong added = new AtomicLong();
        AtomicBoolean done = new AtomicBoolean();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        long seed = TestSeed.orRandom();
        List<Thread> readers = new ArrayList<>();
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
                        for (int i = 0; i < 500 && it.valid(); i++, it.next()) {
                            byte[] key = it.key();
                            if (prev != null && Arrays.compareUnsigned(prev, key) > 0) {
                                throw new AssertionError("out of order");
                            }
                            checkValue(key, it.value());
                            prev = key;
                        }
                        it.seekForPrev(from);
                        byte[] after = null;
                        for (int i = 0; i < 500 && it.valid(); i++, it.prev()) {
                            byte[] key = it.key();
                            if (after != null && Arrays.compareUnsigned(key, after) > 0) {
                                throw new AssertionError("out of order backwards");
                            }
                            checkValue(key, it.value());
                            after = key;
                        }
                        long upTo = added.get();
                        for (int i = 0; i < 50 && upTo > 0; i++) {
                            long s = 1 + (long) r.nextInt((int) upTo);
                            byte[] key = keyOf.get((int) s);
                            InternalEntry e = m.get(key, upTo);
                            if (e == null || e.seqno() < s || e.seqno() > upTo) {
                                throw new AssertionError("entry " + s + " of an added batch not found at snapshot "
                                        + upTo + ": " + e);
                            }
                            checkValue(key, e.value());
                        }
                    }
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                }
            });
            reader.start();
            readers.add(reader);
        }
        Random r = new Random(seed);
        List<byte[]> written = new ArrayList<>();
        long seq = 1;
        while (seq <= n) {
            int size = (int) Math.min(n - seq + 1, 1 + r.nextInt(r.nextBoolean() ? 16 : 256));
            byte[][] keys = new byte[size][];
            long[] seqnos = new long[size];
            EntryType[] types = new EntryType[size];
            byte[][] values = new byte[size][];
            for (int i = 0; i < size; i++) {
                byte[] key;
                if (!written.isEmpty() && r.nextInt(3) == 0) {
                    key = written.get(written.size() - 1 - r.nextInt(Math.min(1000, written.size())));
                } else {
                    key = new byte[12];
                    r.nextBytes(key);
                    written.add(key);
                }
                keys[i] = key;
                seqnos[i] = seq + i;
                types[i] = EntryType.PUT;
                values[i] = new byte[1 + r.nextInt(64)];
                Arrays.fill(values[i], key[0]);
                keyOf.set((int) (seq + i), key);
            }
            m.addBatch(keys, seqnos, types, values, size);
            seq += size;
            added.set(seq - 1);
        }
        done.set(true);
        for (Thread reader : readers) {
            reader.join();
        }
        if (failure.get() != null) {
            throw new AssertionError("seed " + seed, failure.get());
        }
        assertEquals(n, m.entryCount());
    }

    private static void checkValue(byte[] key, byte[] value) {
        for (byte b : value) {
            if (b != key[0]) {
                throw new AssertionError("value does not belong to its key");
            }
        }
    }

    @Test
    void refusesARepeatedSequenceNumberOrCountBeyondTheArraysAndAddsNothing() {
        Memtable m = new Memtable(1);
        byte[][] keys = {{1}, {2}, {3}};
        EntryType[] types = {EntryType.PUT, EntryType.PUT, EntryType.PUT};
        byte[][] values = {{1}, {2}, {3}};
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> m.addBatch(keys, new long[] {5, 6, 5}, types, values, 3));
        assertTrue(e.getMessage().contains("repeats a sequence number"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> m.addBatch(keys, new long[] {5, 90, 5}, types, values, 3));
        e = assertThrows(IllegalArgumentException.class, () -> m.addBatch(keys, new long[] {1, 2, 3}, types, values, 4));
        assertTrue(e.getMessage().contains("does not fit"), e.getMessage());
        assertTrue(m.isEmpty());
        assertEquals(0, m.maxSeqno());

        m.addBatch(keys, new long[] {7, 9, 8}, types, values, 2);
        assertEquals(2, m.entryCount());
        assertEquals(7, m.minSeqno());
        assertEquals(9, m.maxSeqno());
        assertNull(m.get(new byte[] {3}, InternalKeys.MAX_SEQNO));
    }
}
