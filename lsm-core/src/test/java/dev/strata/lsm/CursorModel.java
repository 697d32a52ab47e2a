package dev.strata.lsm;

import java.util.Arrays;
import java.util.Collections;
import java.util.NavigableMap;
import java.util.Random;
import java.util.TreeMap;
import java.util.function.Supplier;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * The model of a {@link Cursor}: a position in a {@link NavigableMap} (the keys the cursor
 * should see, already cut to its bounds), or off the entries before the first or after the
 * last, moved as the Cursor javadoc says. {@link #walk} drives a real cursor and the model with
 * the same random moves and checks every answer.
 */
final class CursorModel {
    private static final byte[] BEFORE = new byte[0];
    private static final byte[] AFTER = new byte[0];

    private final NavigableMap<byte[], byte[]> view;
    /** The current key, or {@link #BEFORE} / {@link #AFTER} (compared by identity). */
    private byte[] at = BEFORE;

    CursorModel(NavigableMap<byte[], byte[]> view) {
        this.view = view;
    }

    /** {@code map} cut to [from, to) (null bounds are open); empty when from >= to. */
    static NavigableMap<byte[], byte[]> bounded(NavigableMap<byte[], byte[]> map, byte[] from, byte[] to) {
        if (from != null && to != null && Arrays.compareUnsigned(from, to) >= 0) {
            return Collections.emptyNavigableMap();
        }
        if (from == null && to == null) {
            return map;
        }
        if (from == null) {
            return map.headMap(to, false);
        }
        if (to == null) {
            return map.tailMap(from, true);
        }
        return map.subMap(from, true, to, false);
    }

    boolean next() {
        if (at == AFTER) {
            return false;
        }
        return land(at == BEFORE ? firstKey() : view.higherKey(at), AFTER);
    }

    boolean prev() {
        if (at == BEFORE) {
            return false;
        }
        return land(at == AFTER ? lastKey() : view.lowerKey(at), BEFORE);
    }

    boolean seek(byte[] k) {
        return land(view.ceilingKey(k), AFTER);
    }

    boolean seekForPrev(byte[] k) {
        return land(view.floorKey(k), BEFORE);
    }

    boolean seekToFirst() {
        return land(firstKey(), BEFORE);
    }

    boolean seekToLast() {
        return land(lastKey(), AFTER);
    }

    private byte[] firstKey() {
        return view.isEmpty() ? null : view.firstKey();
    }

    private byte[] lastKey() {
        return view.isEmpty() ? null : view.lastKey();
    }

    private boolean land(byte[] k, byte[] offEnd) {
        at = k == null ? offEnd : k;
        return k != null;
    }

    boolean onEntry() {
        return at != BEFORE && at != AFTER;
    }

    byte[] key() {
        return at;
    }

    byte[] value() {
        return view.get(at);
    }

    /**
     * Makes {@code steps} random moves on {@code cursor} and on a model of {@code view} (the
     * map the cursor should show, cut to its bounds), checking after each the returned flag,
     * key and value (or that key() throws off the entries). Seek targets come from
     * {@code targets}. Between moves {@code interleaved} runs now and then (writes that the
     * cursor must not see). Does not close the cursor.
     */
    static void walk(Cursor cursor, NavigableMap<byte[], byte[]> view, Random rnd, int steps,
                     Supplier<byte[]> targets, Runnable interleaved, String what) {
        CursorModel model = new CursorModel(view);
        StringBuilder trail = new StringBuilder();
        for (int i = 0; i < steps; i++) {
            int op = rnd.nextInt(100);
            boolean expected;
            boolean actual;
            if (op < 30) {
                trail.append(" next");
                expected = model.next();
                actual = cursor.next();
            } else if (op < 60) {
                trail.append(" prev");
                expected = model.prev();
                actual = cursor.prev();
            } else if (op < 72) {
                byte[] t = targets.get();
                trail.append(" seek(").append(show(t)).append(')');
                expected = model.seek(t);
                actual = cursor.seek(t);
            } else if (op < 84) {
                byte[] t = targets.get();
                trail.append(" seekForPrev(").append(show(t)).append(')');
                expected = model.seekForPrev(t);
                actual = cursor.seekForPrev(t);
            } else if (op < 90) {
                trail.append(" seekToFirst");
                expected = model.seekToFirst();
                actual = cursor.seekToFirst();
            } else if (op < 96) {
                trail.append(" seekToLast");
                expected = model.seekToLast();
                actual = cursor.seekToLast();
            } else {
                trail.append(" (writes)");
                interleaved.run();
                continue;
            }
            String where = what + " after" + (trail.length() > 400 ? " ..." + trail.substring(trail.length() - 400)
                    : trail.toString());
            assertEquals(expected, actual, where);
            if (expected) {
                assertArrayEquals(model.key(), cursor.key(), where + ": key");
                assertArrayEquals(model.value(), cursor.value(), where + ": value of " + show(model.key()));
            } else if (rnd.nextInt(4) == 0) {
                assertThrows(IllegalStateException.class, cursor::key, where + ": key() off the entries");
            }
        }
    }

    /** Checks that the cursor reads {@code view} backwards with seekToLast and prev. */
    static void checkReverse(Cursor cursor, NavigableMap<byte[], byte[]> view, String what) {
        NavigableMap<byte[], byte[]> expected = view.descendingMap();
        boolean on = cursor.seekToLast();
        for (var e : expected.entrySet()) {
            assertEquals(true, on, what + ": missing key " + show(e.getKey()));
            assertArrayEquals(e.getKey(), cursor.key(), what);
            assertArrayEquals(e.getValue(), cursor.value(), what);
            on = cursor.prev();
        }
        assertEquals(false, on, what + ": extra keys");
    }

    static String show(byte[] k) {
        return dev.strata.lsm.sstable.InternalKeys.describe(k);
    }

    /** A copy of {@code map} (a model frozen at a snapshot). */
    static TreeMap<byte[], byte[]> copy(NavigableMap<byte[], byte[]> map) {
        TreeMap<byte[], byte[]> c = new TreeMap<>(Arrays::compareUnsigned);
        c.putAll(map);
        return c;
    }
}
