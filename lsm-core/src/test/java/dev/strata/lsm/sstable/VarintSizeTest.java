package dev.strata.lsm.sstable;

import org.junit.jupiter.api.Test;

import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * {@link PageFormat#varintSize} and {@link PageFormat#varlongSize} (loop-free) against the
 * bytes the encoder actually writes, at every 7-bit boundary, for negatives, and at random.
 */
class VarintSizeTest {
    private static int encodedInt(int v) {
        SlottedPageBuilder b = new SlottedPageBuilder(4096);
        int before = b.dataEnd();
        b.putVarint(v);
        return b.dataEnd() - before;
    }

    private static int encodedLong(long v) {
        SlottedPageBuilder b = new SlottedPageBuilder(4096);
        int before = b.dataEnd();
        b.putVarlong(v);
        return b.dataEnd() - before;
    }

    @Test
    void sizesMatchTheEncoderAtEveryBoundary() {
        for (int shift = 0; shift < 32; shift++) {
            for (int v : new int[] {(1 << shift) - 1, 1 << shift, (1 << shift) + 1, -(1 << shift)}) {
                assertEquals(encodedInt(v), PageFormat.varintSize(v), "varint " + v);
            }
        }
        for (int shift = 0; shift < 64; shift++) {
            for (long v : new long[] {(1L << shift) - 1, 1L << shift, (1L << shift) + 1, -(1L << shift)}) {
                assertEquals(encodedLong(v), PageFormat.varlongSize(v), "varlong " + v);
            }
        }
        assertEquals(1, PageFormat.varintSize(0));
        assertEquals(5, PageFormat.varintSize(Integer.MIN_VALUE));
        assertEquals(5, PageFormat.varintSize(-1));
        assertEquals(1, PageFormat.varlongSize(0));
        assertEquals(9, PageFormat.varlongSize(Long.MAX_VALUE));
        assertEquals(10, PageFormat.varlongSize(-1));
        SplittableRandom r = new SplittableRandom(32);
        for (int i = 0; i < 100_000; i++) {
            int v = r.nextInt() >>> r.nextInt(32);
            long w = r.nextLong() >>> r.nextInt(64);
            assertEquals(encodedInt(v), PageFormat.varintSize(v), "varint " + v);
            assertEquals(encodedLong(w), PageFormat.varlongSize(w), "varlong " + w);
        }
    }
}
