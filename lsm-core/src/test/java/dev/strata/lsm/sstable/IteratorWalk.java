package dev.strata.lsm.sstable;

import java.io.IOException;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Checks an {@link InternalIterator} against the list of entries it should show, in internal-key
 * order: random seeks (by user key and by internal key, both ways), seekToFirst, seekToLast and
 * runs of next and prev with direction changes; after each move the position (or invalidity),
 * key, sequence number, type and value must match the model, an index into the list.
 */
public final class IteratorWalk {
    private IteratorWalk() {
    }

    /** A source of seek targets: a user key, and a sequence number for the internal-key seeks. */
    public interface Targets {
        byte[] key(Random rnd);

        long seqno(Random rnd);
    }

    public static void walk(InternalIterator it, List<InternalEntry> expected, Random rnd, int steps, Targets targets,
                            String what) throws IOException {
        int at = -1;
        StringBuilder trail = new StringBuilder();
        for (int step = 0; step < steps; step++) {
            int op = rnd.nextInt(100);
            boolean valid = at >= 0 && at < expected.size();
            if (op < 30 && valid) {
                trail.append(" next");
                it.next();
                at++;
            } else if (op < 60 && valid) {
                trail.append(" prev");
                it.prev();
                at--;
            } else if (op < 68) {
                trail.append(" seekToFirst");
                it.seekToFirst();
                at = 0;
            } else if (op < 76) {
                trail.append(" seekToLast");
                it.seekToLast();
                at = expected.size() - 1;
            } else if (op < 82) {
                byte[] k = targets.key(rnd);
                trail.append(" seek(").append(InternalKeys.describe(k)).append(')');
                it.seek(k);
                at = ceiling(expected, k, InternalKeys.MAX_SEQNO);
            } else if (op < 88) {
                byte[] k = targets.key(rnd);
                trail.append(" seekForPrev(").append(InternalKeys.describe(k)).append(')');
                it.seekForPrev(k);
                at = ceiling(expected, k, -1) - 1;
            } else if (op < 94) {
                byte[] k = targets.key(rnd);
                long s = targets.seqno(rnd);
                trail.append(" seek(").append(InternalKeys.describe(k)).append('@').append(s).append(')');
                it.seek(k, s);
                at = ceiling(expected, k, s);
            } else {
                byte[] k = targets.key(rnd);
                long s = targets.seqno(rnd);
                trail.append(" seekForPrev(").append(InternalKeys.describe(k)).append('@').append(s).append(')');
                it.seekForPrev(k, s);
                at = ceiling(expected, k, s - 1) - 1;
            }
            if (at >= expected.size()) {
                at = expected.size();
            }
            String where = what + " after" + (trail.length() > 300 ? " ..." + trail.substring(trail.length() - 300)
                    : trail.toString());
            boolean shouldBeValid = at >= 0 && at < expected.size();
            assertEquals(shouldBeValid, it.valid(), where + ": valid");
            if (shouldBeValid) {
                InternalEntry e = expected.get(at);
                assertEquals(InternalKeys.describe(e.key()) + "@" + e.seqno(),
                        InternalKeys.describe(it.key()) + "@" + it.seqno(), where);
                assertEquals(e.type(), it.type(), where);
                assertArrayEquals(e.value(), it.value(), where);
            }
        }
    }

    /**
     * Index of the first entry whose internal key is >= (key, seqno) (size if none); seqno -1
     * stands for "after every version of key", so the result is the first entry of a larger key.
     */
    static int ceiling(List<InternalEntry> entries, byte[] key, long seqno) {
        int lo = 0;
        int hi = entries.size();
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            InternalEntry e = entries.get(mid);
            int c = InternalKeys.compareUserKeys(e.key(), key);
            boolean below = c < 0 || (c == 0 && (seqno < 0 || e.seqno() > seqno));
            if (below) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }
}
