package dev.strata.lsm.memtable;

import dev.strata.lsm.testkit.TestSeed;
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/** The direct arena answers every access as the heap arena does (words, bytes, comparisons). */
class ArenaTest {

    @Test
    void directAndHeapArenasAgreeOnWordsBytesAndComparisons() {
        long seed = TestSeed.orRandom();
        Random r = new Random(seed);
        Arena heap = Arena.create(false);
        Arena direct = Arena.create(true);
        assertEquals(false, heap.offHeap());
        assertEquals(true, direct.offHeap());
        for (Arena a : new Arena[] {heap, direct}) {
            a.addNodeChunk(0, 64);
            a.addDataChunk(0, 4096);
        }
        for (int i = 0; i < 64; i++) {
            long v = r.nextLong();
            long node = i;
            heap.setWord(node, 0, v);
            direct.setWordRelease(node, 0, v);
            assertEquals(heap.word(node, 0), direct.word(node, 0), "seed " + seed);
            assertEquals(heap.wordAcquire(node, 0), direct.wordAcquire(node, 0), "seed " + seed);
        }
        byte[] bytes = new byte[4096];
        for (int i = 0; i < bytes.length; i++) {
            // Few distinct bytes, high ones included: long common runs and unsigned order matter.
            bytes[i] = (byte) (r.nextInt(4) == 0 ? 0xff : r.nextInt(3));
        }
        heap.write(0, bytes, 0, bytes.length);
        direct.write(0, bytes, 0, bytes.length);
        for (int i = 0; i < 20_000; i++) {
            int at = r.nextInt(4000);
            int length = r.nextInt(Math.min(40, 4096 - at));
            byte[] key = new byte[r.nextInt(40) + 1];
            int from = r.nextInt(key.length);
            int to = from + r.nextInt(key.length - from + 1);
            // Often a copy of the arena's bytes, perhaps one byte changed, so comparisons reach deep.
            if (r.nextBoolean()) {
                int n = Math.min(to - from, length);
                System.arraycopy(bytes, at, key, from, n);
                if (n > 0 && r.nextBoolean()) {
                    key[from + r.nextInt(n)] = (byte) r.nextInt(256);
                }
            }
            int expected = Integer.signum(Arrays.compareUnsigned(bytes, at, at + length, key, from, to));
            assertEquals(expected, Integer.signum(heap.compare(at, length, key, from, to)), "seed " + seed);
            assertEquals(expected, Integer.signum(direct.compare(at, length, key, from, to)), "seed " + seed);
            assertEquals(expected == 0, direct.equal(at, length, key, from, to), "seed " + seed);
            assertEquals(expected == 0, heap.equal(at, length, key, from, to), "seed " + seed);
            assertArrayEquals(heap.read(at, length), direct.read(at, length));
        }
    }
}
