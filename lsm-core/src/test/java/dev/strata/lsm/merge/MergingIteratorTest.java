package dev.strata.lsm.merge;

import dev.strata.lsm.sstable.EntryListIterator;
import dev.strata.lsm.sstable.EntryType;
import dev.strata.lsm.sstable.InternalEntry;
import dev.strata.lsm.sstable.InternalKeys;
import dev.strata.lsm.sstable.IteratorWalk;
import dev.strata.lsm.testkit.TestKeys;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

/**
 * The merging iterator against a model: inputs of random sorted entries — long runs from one
 * input, interleaved keys, versions of one key in several inputs, exact (key, seqno)
 * duplicates — come out in internal-key order, each (key, seqno) once, the copy of the input
 * listed first.
 */
class MergingIteratorTest {
    @Test
    void mergesInInternalKeyOrderAndTheFirstInputWinsADuplicate() throws IOException {
        Random rnd = new Random(5);
        for (int round = 0; round < 300; round++) {
            int n = 1 + rnd.nextInt(5);
            List<List<InternalEntry>> inputs = new ArrayList<>();
            // The model: (key, seqno) -> value of the first input holding it.
            TreeMap<String, InternalEntry> model = new TreeMap<>();
            for (int i = 0; i < n; i++) {
                TreeMap<String, InternalEntry> sorted = new TreeMap<>();
                int entries = rnd.nextInt(round % 3 == 0 ? 400 : 40);
                int base = rnd.nextInt(200);
                for (int e = 0; e < entries; e++) {
                    // Runs (dense keys from one input) and scattered keys, a few seqnos each.
                    int k = rnd.nextBoolean() ? base + e : rnd.nextInt(1000);
                    long seq = 1 + rnd.nextInt(4);
                    byte[] key = TestKeys.padded("k", k, 4).getBytes();
                    InternalEntry entry = new InternalEntry(key, seq, EntryType.PUT, ("v" + i + "-" + e).getBytes());
                    sorted.putIfAbsent(order(key, seq), entry);
                }
                List<InternalEntry> list = new ArrayList<>(sorted.values());
                inputs.add(list);
                for (InternalEntry entry : list) {
                    model.putIfAbsent(order(entry.key(), entry.seqno()), entry);
                }
            }
            List<EntryListIterator> its = new ArrayList<>();
            for (List<InternalEntry> in : inputs) {
                its.add(new EntryListIterator(in));
            }
            try (MergingIterator m = new MergingIterator(its)) {
                m.seekToFirst();
                for (InternalEntry expected : model.values()) {
                    assertEquals(new String(expected.key()) + "@" + expected.seqno(),
                            m.valid() ? new String(m.key()) + "@" + m.seqno() : "the end", "round " + round);
                    assertArrayEquals(expected.value(), m.value(), "round " + round);
                    m.next();
                }
                assertFalse(m.valid(), "round " + round);
            }
        }
    }

    /**
     * Random walks both ways over the same kind of inputs: seeks by user and internal key,
     * seekForPrev, seekToFirst/Last, and next/prev with direction changes anywhere (each
     * change repositions every other input) show the model's entries, each (key, seqno) once
     * and the copy of the first input holding it, whichever way the iterator came.
     */
    @Test
    void walksBothWaysWithDirectionChangesAndDuplicates() throws IOException {
        Random rnd = new Random(6);
        for (int round = 0; round < 200; round++) {
            int n = rnd.nextInt(6);
            List<List<InternalEntry>> inputs = new ArrayList<>();
            TreeMap<String, InternalEntry> model = new TreeMap<>();
            for (int i = 0; i < n; i++) {
                TreeMap<String, InternalEntry> sorted = new TreeMap<>();
                int entries = rnd.nextInt(round % 3 == 0 ? 300 : 30);
                int base = rnd.nextInt(100);
                for (int e = 0; e < entries; e++) {
                    int k = rnd.nextBoolean() ? base + e : rnd.nextInt(300);
                    long seq = 1 + rnd.nextInt(4);
                    byte[] key = TestKeys.padded("k", k, 4).getBytes();
                    EntryType type = rnd.nextInt(6) == 0 ? EntryType.DELETE : EntryType.PUT;
                    InternalEntry entry = new InternalEntry(key, seq, type,
                            type == EntryType.DELETE ? null : ("v" + i + "-" + e).getBytes());
                    sorted.putIfAbsent(order(key, seq), entry);
                }
                List<InternalEntry> list = new ArrayList<>(sorted.values());
                inputs.add(list);
                for (InternalEntry entry : list) {
                    model.putIfAbsent(order(entry.key(), entry.seqno()), entry);
                }
            }
            List<EntryListIterator> its = new ArrayList<>();
            for (List<InternalEntry> in : inputs) {
                its.add(new EntryListIterator(in));
            }
            try (MergingIterator m = new MergingIterator(its)) {
                IteratorWalk.walk(m, new ArrayList<>(model.values()), rnd, 400, new IteratorWalk.Targets() {
                    @Override
                    public byte[] key(Random r) {
                        int k = r.nextInt(420) - 10;
                        String s = TestKeys.padded("k", Math.max(0, k), 4);
                        return (r.nextInt(5) == 0 ? s.substring(0, r.nextInt(s.length() + 1)) : s).getBytes();
                    }

                    @Override
                    public long seqno(Random r) {
                        return r.nextInt(6);
                    }
                }, "round " + round + " (" + n + " inputs)");
            }
        }
    }

    /** A string that sorts as internal keys do: user key ascending, then seqno descending. */
    private static String order(byte[] key, long seq) {
        return new String(key) + "|" + (char) ('z' - seq);
    }

    @Test
    void theModelOrderIsInternalKeyOrder() {
        List<String> byModel = new ArrayList<>(List.of(order("k0001".getBytes(), 3), order("k0001".getBytes(), 1),
                order("k0002".getBytes(), 2)));
        byModel.sort(Comparator.naturalOrder());
        assertEquals(order("k0001".getBytes(), 3), byModel.get(0));
        assertEquals(-1, Integer.signum(InternalKeys.compare("k0001".getBytes(), 3, "k0001".getBytes(), 1)));
    }
}
