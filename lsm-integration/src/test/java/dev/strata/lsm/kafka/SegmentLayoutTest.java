package dev.strata.lsm.kafka;

import org.apache.kafka.common.utils.Bytes;
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The segment key layout keeps Kafka's key order whatever the key lengths: for random keys
 * (short, over a small alphabet with many zero bytes, so that prefixes and escapes are
 * common) and times, encoded keys compare as (key in {@code Bytes} order, time as a signed
 * number, then sequence number / session start), the key range bounds enclose exactly a
 * key's records, and decoding gives the key and times back.
 */
class SegmentLayoutTest {
    private static final byte[] ALPHABET = {0, 0, 1, 2, (byte) 0xFF};

    private static byte[] randomKey(Random random) {
        byte[] k = new byte[random.nextInt(5)];
        for (int i = 0; i < k.length; i++) {
            k[i] = ALPHABET[random.nextInt(ALPHABET.length)];
        }
        return k;
    }

    private static long randomTime(Random random) {
        switch (random.nextInt(4)) {
            case 0:
                return random.nextInt(5) - 2;
            case 1:
                return random.nextBoolean() ? Long.MAX_VALUE : Long.MIN_VALUE;
            default:
                return random.nextLong();
        }
    }

    @Test
    void windowKeysSortByKeyThenTimeThenSequence() {
        Random random = new Random(31);
        for (int i = 0; i < 200_000; i++) {
            byte[] k1 = randomKey(random);
            byte[] k2 = randomKey(random);
            long t1 = randomTime(random);
            long t2 = randomTime(random);
            int s1 = random.nextInt(3);
            int s2 = random.nextInt(3);
            byte[] e1 = SegmentLayout.windowKey(k1, t1, s1);
            byte[] e2 = SegmentLayout.windowKey(k2, t2, s2);
            int expected = Bytes.wrap(k1).compareTo(Bytes.wrap(k2));
            if (expected == 0) {
                expected = Long.compare(t1, t2);
            }
            if (expected == 0) {
                expected = Integer.compare(s1, s2);
            }
            assertEquals(Integer.signum(expected), Integer.signum(Arrays.compareUnsigned(e1, e2)),
                    Arrays.toString(k1) + "@" + t1 + "#" + s1 + " vs " + Arrays.toString(k2) + "@" + t2 + "#" + s2);

            assertArrayEquals(k1, SegmentLayout.userKey(e1, SegmentLayout.WINDOW_SUFFIX_BYTES));
            assertEquals(t1, SegmentLayout.firstTime(e1, SegmentLayout.WINDOW_SUFFIX_BYTES));
            assertEquals(e1.length, SegmentLayout.encodedKeyLength(k1) + SegmentLayout.WINDOW_SUFFIX_BYTES);

            // [keyStart(k2), keyEnd(k2)) holds e1 exactly when e1's key is k2
            boolean inside = Arrays.compareUnsigned(e1, SegmentLayout.keyStart(k2)) >= 0
                    && Arrays.compareUnsigned(e1, SegmentLayout.keyEnd(k2)) < 0;
            assertEquals(Arrays.equals(k1, k2), inside);
            assertTrue(Arrays.compareUnsigned(e1, SegmentLayout.DATA_START) > 0
                    && Arrays.compareUnsigned(e1, SegmentLayout.DATA_END) < 0);
            assertTrue(Arrays.compareUnsigned(e1, SegmentLayout.SYNC_KEY) > 0);
        }
    }

    @Test
    void sessionKeysSortByKeyThenEndThenStart() {
        Random random = new Random(32);
        for (int i = 0; i < 200_000; i++) {
            byte[] k1 = randomKey(random);
            byte[] k2 = randomKey(random);
            long start1 = randomTime(random);
            long end1 = randomTime(random);
            long start2 = randomTime(random);
            long end2 = randomTime(random);
            byte[] e1 = SegmentLayout.sessionKey(k1, start1, end1);
            byte[] e2 = SegmentLayout.sessionKey(k2, start2, end2);
            int expected = Bytes.wrap(k1).compareTo(Bytes.wrap(k2));
            if (expected == 0) {
                expected = Long.compare(end1, end2);
            }
            if (expected == 0) {
                expected = Long.compare(start1, start2);
            }
            assertEquals(Integer.signum(expected), Integer.signum(Arrays.compareUnsigned(e1, e2)));
            assertArrayEquals(k1, SegmentLayout.userKey(e1, SegmentLayout.SESSION_SUFFIX_BYTES));
            assertEquals(end1, SegmentLayout.firstTime(e1, SegmentLayout.SESSION_SUFFIX_BYTES));
            assertEquals(start1, SegmentLayout.sessionStart(e1));
            // keyTime(k, t) is the first key of k's sessions ending at or after t
            assertEquals(Arrays.equals(k1, k2) && end1 >= end2 || Bytes.wrap(k1).compareTo(Bytes.wrap(k2)) > 0,
                    Arrays.compareUnsigned(e1, SegmentLayout.keyTime(k2, end2)) >= 0);
        }
    }

    @Test
    void windowTimeIndexKeysSortByTimeThenKeyThenSequence() {
        Random random = new Random(33);
        for (int i = 0; i < 200_000; i++) {
            byte[] k1 = randomKey(random);
            byte[] k2 = randomKey(random);
            long t1 = randomTime(random);
            long t2 = randomTime(random);
            int s1 = random.nextInt(3);
            int s2 = random.nextInt(3);
            byte[] x1 = SegmentLayout.windowIndexKey(SegmentLayout.windowKey(k1, t1, s1));
            byte[] x2 = SegmentLayout.windowIndexKey(SegmentLayout.windowKey(k2, t2, s2));
            int expected = Long.compare(t1, t2);
            if (expected == 0) {
                expected = Bytes.wrap(k1).compareTo(Bytes.wrap(k2));
            }
            if (expected == 0) {
                expected = Integer.compare(s1, s2);
            }
            assertEquals(Integer.signum(expected), Integer.signum(Arrays.compareUnsigned(x1, x2)),
                    Arrays.toString(k1) + "@" + t1 + "#" + s1 + " vs " + Arrays.toString(k2) + "@" + t2 + "#" + s2);
            assertEquals(t1, SegmentLayout.indexTime(x1));
            assertArrayEquals(k1, SegmentLayout.indexUserKey(x1, 1 + Long.BYTES, Integer.BYTES));
            // [indexTime(t2), indexTime(t2 + 1)) holds x1 exactly when its time is t2
            boolean inside = Arrays.compareUnsigned(x1, SegmentLayout.indexTime(t2)) >= 0
                    && (t2 == Long.MAX_VALUE ? Arrays.compareUnsigned(x1, SegmentLayout.INDEX_END) < 0
                    : Arrays.compareUnsigned(x1, SegmentLayout.indexTime(t2 + 1)) < 0);
            assertEquals(t1 == t2, inside);
            // the index lies after every record key and before the end of the index
            assertTrue(Arrays.compareUnsigned(x1, SegmentLayout.DATA_END) >= 0
                    && Arrays.compareUnsigned(x1, SegmentLayout.INDEX_END) < 0);
        }
    }

    @Test
    void sessionTimeIndexKeysSortByEndThenStartThenKey() {
        Random random = new Random(34);
        for (int i = 0; i < 200_000; i++) {
            byte[] k1 = randomKey(random);
            byte[] k2 = randomKey(random);
            long start1 = randomTime(random);
            long end1 = randomTime(random);
            long start2 = randomTime(random);
            long end2 = randomTime(random);
            byte[] x1 = SegmentLayout.sessionIndexKey(SegmentLayout.sessionKey(k1, start1, end1));
            byte[] x2 = SegmentLayout.sessionIndexKey(SegmentLayout.sessionKey(k2, start2, end2));
            int expected = Long.compare(end1, end2);
            if (expected == 0) {
                expected = Long.compare(start1, start2);
            }
            if (expected == 0) {
                expected = Bytes.wrap(k1).compareTo(Bytes.wrap(k2));
            }
            assertEquals(Integer.signum(expected), Integer.signum(Arrays.compareUnsigned(x1, x2)));
            assertEquals(end1, SegmentLayout.indexTime(x1));
            assertEquals(start1, SegmentLayout.indexSessionStart(x1));
            assertArrayEquals(k1, SegmentLayout.indexUserKey(x1, 1 + SegmentLayout.SESSION_SUFFIX_BYTES, 0));
            assertTrue(Arrays.compareUnsigned(x1, SegmentLayout.DATA_END) >= 0
                    && Arrays.compareUnsigned(x1, SegmentLayout.INDEX_END) < 0);
        }
    }
}
