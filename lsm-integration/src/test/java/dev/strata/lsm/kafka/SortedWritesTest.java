package dev.strata.lsm.kafka;

import dev.strata.lsm.WriteBatch;
import dev.strata.lsm.testkit.TestSeed;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SortedWritesTest {

    /**
     * Keys of every shape the radix passes and the groups must get right: 0 to 40 bytes, zero
     * bytes that look like the prefix's padding, long shared prefixes (equal first sixteen
     * bytes), bytes above 0x7f (unsigned order), and keys written more than once.
     */
    private static byte[] randomKey(Random r, List<byte[]> earlier) {
        if (!earlier.isEmpty() && r.nextInt(5) == 0) {
            return earlier.get(r.nextInt(earlier.size())).clone();
        }
        int len = r.nextInt(8) == 0 ? r.nextInt(3) : r.nextInt(41);
        byte[] k = new byte[len];
        for (int i = 0; i < len; i++) {
            int c = r.nextInt(6);
            k[i] = (byte) (i < 12 && c > 1 ? 'a' : c == 0 ? 0 : c == 1 ? 0xff : r.nextInt(256));
        }
        return k;
    }

    @Test
    void ordersTheLastWriteOfEachKeyByUnsignedKey() {
        long seed = TestSeed.orRandom();
        Random r = new Random(seed);
        for (int round = 0; round < 30; round++) {
            int n = round < 3 ? round : r.nextInt(5_000);
            SortedWrites writes = new SortedWrites(r.nextInt(20));
            List<byte[]> keys = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                byte[] key = round % 3 == 0 ? String.format("\u0001key-%08d", r.nextInt(n * 2 + 1)).getBytes()
                        : randomKey(r, keys);
                keys.add(key);
                writes.add(key, r.nextBoolean() ? null : new byte[] {(byte) i});
            }
            Integer[] expected = new Integer[n];
            for (int i = 0; i < n; i++) {
                expected[i] = i;
            }
            Arrays.sort(expected, Comparator.comparing(i -> keys.get(i), Arrays::compareUnsigned));   // stable
            List<Integer> last = new ArrayList<>();   // of equal keys, the last to arrive
            for (int i = 0; i < n; i++) {
                if (i + 1 == n || !Arrays.equals(keys.get(expected[i]), keys.get(expected[i + 1]))) {
                    last.add(expected[i]);
                }
            }
            int[] got = writes.lastWrites();
            assertEquals(last.size(), got.length, "seed " + seed + ", round " + round);
            for (int i = 0; i < got.length; i++) {
                assertEquals(last.get(i), got[i], "seed " + seed + ", round " + round + ", position " + i);
            }
        }
    }

    /**
     * Duplicates next to keys they must not be mistaken for: a key and its zero-padded
     * extensions (equal sixteen-byte prefix, different keys), long keys sharing their first
     * sixteen bytes, a short key written three times with a delete in the middle, and the last
     * write of a key being a delete.
     */
    @Test
    void keepsOnlyTheLastWriteOfAKeyWrittenSeveralTimesInOneChunk() {
        byte[] a = {1};
        byte[] a0 = {1, 0};
        byte[] longX = "0123456789abcdef-x".getBytes();
        byte[] longY = "0123456789abcdef-y".getBytes();
        SortedWrites writes = new SortedWrites(2);
        writes.add(a0.clone(), "a0-1".getBytes());
        writes.add(longY.clone(), "y-1".getBytes());
        writes.add(a.clone(), "a-1".getBytes());
        writes.add(longX.clone(), "x-1".getBytes());
        writes.add(a.clone(), null);
        writes.add(longY.clone(), null);
        writes.add(a0.clone(), "a0-2".getBytes());
        writes.add(longX.clone(), "x-2".getBytes());
        writes.add(a.clone(), "a-3".getBytes());
        WriteBatch batch = writes.toBatch(0);
        List<WriteBatch.Op> ops = batch.ops();
        assertEquals(4, ops.size());
        assertArrayEquals(a, ops.get(0).key());
        assertArrayEquals("a-3".getBytes(), ops.get(0).value());
        assertArrayEquals(a0, ops.get(1).key());
        assertArrayEquals("a0-2".getBytes(), ops.get(1).value());
        assertArrayEquals(longX, ops.get(2).key());
        assertArrayEquals("x-2".getBytes(), ops.get(2).value());
        assertArrayEquals(longY, ops.get(3).key());
        assertTrue(ops.get(3).delete());

        SortedWrites one = new SortedWrites(1);
        for (int i = 0; i < 100; i++) {
            one.add("same".getBytes(), new byte[] {(byte) i});
        }
        assertArrayEquals(new int[] {99}, one.lastWrites());
    }

    @Test
    void addsTheLastWriteOfEachKeyInKeyOrder() {
        long seed = TestSeed.orRandom();
        Random r = new Random(seed);
        SortedWrites writes = new SortedWrites(4);
        TreeMap<byte[], byte[]> model = new TreeMap<>(Arrays::compareUnsigned);
        List<byte[]> keys = new ArrayList<>();
        long bytes = 0;
        for (int i = 0; i < 3_000; i++) {
            byte[] key = randomKey(r, keys);
            keys.add(key);
            byte[] value = r.nextInt(4) == 0 ? null : ("v" + i).getBytes();
            writes.add(key, value);
            model.put(key, value);
            bytes += key.length + (value == null ? 0 : value.length) + SortedWrites.ENTRY_OVERHEAD;
        }
        assertEquals(3_000, writes.size());
        assertEquals(bytes, writes.approximateBytes());
        WriteBatch batch = writes.toBatch(0);
        List<WriteBatch.Op> ops = batch.ops();
        assertEquals(model.size(), ops.size(), "seed " + seed);
        int i = 0;
        for (var e : model.entrySet()) {
            WriteBatch.Op op = ops.get(i++);
            assertArrayEquals(e.getKey(), op.key(), "seed " + seed);
            if (e.getValue() == null) {
                assertTrue(op.delete(), "seed " + seed);
            } else {
                assertArrayEquals(e.getValue(), op.value(), "seed " + seed);
            }
        }
    }
}
