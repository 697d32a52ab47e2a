package dev.strata.lsm;

import dev.strata.lsm.testkit.TestKeys;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Edge cases of {@link Cursor}'s moves, on stores whose data lies in the memtable and in
 * several tables at once (no merges, so each flush stays a component): an empty store, bounds
 * that exclude everything, keys that are prefixes of others, tombstones at the edges of the
 * data and of the bounds, many versions of one key, the positions off the entries, direction
 * changes, and writes made after the cursor opened.
 */
class BidirectionalCursorTest {
    @TempDir
    Path dir;

    private static byte[] b(String s) {
        return s.getBytes(UTF_8);
    }

    private static String s(byte[] b) {
        return new String(b, UTF_8);
    }

    private LsmStore open(String name) {
        return LsmStore.open(dir.resolve(name), StoreConfig.builder().mergePolicy("no-merge").build());
    }

    /** The keys a cursor shows from seekToLast backwards. */
    private static List<String> backwards(Cursor c) {
        List<String> keys = new ArrayList<>();
        for (boolean on = c.seekToLast(); on; on = c.prev()) {
            keys.add(s(c.key()));
        }
        return keys;
    }

    /** The keys a cursor shows from seekToFirst forwards. */
    private static List<String> forwards(Cursor c) {
        List<String> keys = new ArrayList<>();
        for (boolean on = c.seekToFirst(); on; on = c.next()) {
            keys.add(s(c.key()));
        }
        return keys;
    }

    @Test
    void anEmptyStoreHasNoEntryEitherWay() {
        try (LsmStore store = open("empty"); Cursor c = store.scan(null, null)) {
            assertFalse(c.prev(), "prev on a new cursor");
            assertFalse(c.next());
            assertFalse(c.prev());
            assertFalse(c.seekToFirst());
            assertFalse(c.seekToLast());
            assertFalse(c.seek(b("a")));
            assertFalse(c.seekForPrev(b("a")));
            assertThrows(IllegalStateException.class, c::key);
            assertThrows(IllegalStateException.class, c::value);
        }
    }

    @Test
    void boundsThatExcludeEverythingShowNothing() {
        try (LsmStore store = open("bounds")) {
            for (String k : List.of("b", "d", "f")) {
                store.put(b(k), b("v" + k));
            }
            store.flush();
            store.put(b("h"), b("vh"));
            // from >= to, a range between keys, ranges before and after all keys.
            String[][] ranges = {{"e", "e"}, {"f", "b"}, {"c", "d"}, {"d1", "e"}, {null, "b"}, {"h1", null}, {"a", "a1"}};
            for (String[] r : ranges) {
                byte[] from = r[0] == null ? null : b(r[0]);
                byte[] to = r[1] == null ? null : b(r[1]);
                try (Cursor c = store.scan(from, to)) {
                    String what = Arrays.toString(r);
                    assertFalse(c.seekToLast(), what);
                    assertFalse(c.prev(), what);
                    assertFalse(c.seekToFirst(), what);
                    assertFalse(c.next(), what);
                    assertFalse(c.seek(b("a")), what);
                    assertFalse(c.seekForPrev(b("z")), what);
                    assertFalse(c.seek(b("d")), what);
                    assertFalse(c.seekForPrev(b("d")), what);
                }
            }
            // The bounds hold for seeks outside them: clamped to the first or last key inside.
            try (Cursor c = store.scan(b("c"), b("g"))) {
                assertTrue(c.seek(b("a")));
                assertEquals("d", s(c.key()));
                assertTrue(c.seekForPrev(b("z")));
                assertEquals("f", s(c.key()));
                assertFalse(c.seek(b("g")), "a seek at the upper bound");
                assertTrue(c.prev(), "after the last entry, prev gives the last");
                assertEquals("f", s(c.key()));
                assertFalse(c.seekForPrev(b("b")), "a seekForPrev below the lower bound");
                assertTrue(c.next(), "before the first entry, next gives the first");
                assertEquals("d", s(c.key()));
            }
        }
    }

    @Test
    void keysThatArePrefixesOfOthers() {
        try (LsmStore store = open("prefixes")) {
            store.put(b("ab"), b("1"));
            store.put(b("b"), b("1"));
            store.flush();
            store.put(b("a"), b("2"));
            store.put(b("abc"), b("2"));
            store.flush();
            store.put(b("abcd"), b("3"));
            store.put(b("a\0"), b("3"));
            try (Cursor c = store.scan(null, null)) {
                assertEquals(List.of("b", "abcd", "abc", "ab", "a\0", "a"), backwards(c));
                assertEquals(List.of("a", "a\0", "ab", "abc", "abcd", "b"), forwards(c));
                assertTrue(c.seekForPrev(b("abb")));
                assertEquals("ab", s(c.key()));
                assertTrue(c.seekForPrev(b("abc")));
                assertEquals("abc", s(c.key()));
                assertTrue(c.seek(b("ab\0")));
                assertEquals("abc", s(c.key()));
                assertTrue(c.seekForPrev(b("a\0\0")));
                assertEquals("a\0", s(c.key()));
                assertTrue(c.seekForPrev(b("a")));
                assertEquals("a", s(c.key()));
                assertFalse(c.prev());
                assertFalse(c.seekForPrev(b("\0")));
                assertTrue(c.seek(b("abcd\0")));
                assertEquals("b", s(c.key()));
            }
            try (Cursor c = store.scan(b("ab"), b("abcd"))) {
                assertEquals(List.of("abc", "ab"), backwards(c));
                assertTrue(c.seekForPrev(b("abcd")), "the upper bound is exclusive");
                assertEquals("abc", s(c.key()));
            }
        }
    }

    @Test
    void tombstonesAtTheEdgesAreSkippedBothWays() {
        try (LsmStore store = open("tombstones")) {
            for (String k : List.of("a", "b", "c", "d", "e", "f", "g")) {
                store.put(b(k), b("v" + k));
            }
            store.flush();
            // Deleted in a newer table: the first key; in the memtable: the last and the keys at
            // the bounds used below.
            store.delete(b("a"));
            store.flush();
            store.delete(b("g"));
            store.delete(b("b"));
            store.delete(b("f"));
            // A key deleted, then written again: live; a key written only after a delete of a
            // key never written: nothing.
            store.delete(b("d"));
            store.put(b("d"), b("vd2"));
            store.delete(b("h"));
            try (Cursor c = store.scan(null, null)) {
                assertEquals(List.of("e", "d", "c"), backwards(c));
                assertEquals(List.of("c", "d", "e"), forwards(c));
                assertTrue(c.seekForPrev(b("d")));
                assertEquals("vd2", s(c.value()));
                assertTrue(c.seekForPrev(b("b")) == false, "b and a are deleted");
                assertTrue(c.seek(b("f")) == false, "f, g, h are deleted");
                assertTrue(c.prev());
                assertEquals("e", s(c.key()));
            }
            try (Cursor c = store.scan(b("b"), b("f"))) {
                assertEquals(List.of("e", "d", "c"), backwards(c));
                assertTrue(c.seekToFirst());
                assertFalse(c.prev(), "the first live key of the range");
            }
        }
    }

    @Test
    void manyVersionsOfOneKeyShowTheNewestVisible() {
        try (LsmStore store = open("versions")) {
            store.put(b("k0"), b("left"));
            store.put(b("k2"), b("right"));
            Snapshot middle = null;
            for (int v = 0; v < 600; v++) {
                store.put(b("k1"), b("v" + v));
                if (v % 150 == 149) {
                    store.flush();
                }
                if (v == 300) {
                    middle = store.snapshot();
                }
            }
            try (Cursor c = store.scan(null, null)) {
                assertTrue(c.seekToLast());
                assertEquals("k2", s(c.key()));
                assertTrue(c.prev());
                assertEquals("k1", s(c.key()));
                assertEquals("v599", s(c.value()));
                assertTrue(c.prev());
                assertEquals("k0", s(c.key()));
                assertTrue(c.next());
                assertEquals("v599", s(c.value()));
                assertTrue(c.next());
                assertEquals("k2", s(c.key()));
            }
            try (Snapshot snap = middle; Cursor c = snap.scan(null, null)) {
                assertTrue(c.seekForPrev(b("k1~")));
                assertEquals("k1", s(c.key()));
                assertEquals("v300", s(c.value()));
                assertTrue(c.next());
                assertTrue(c.prev());
                assertEquals("v300", s(c.value()));
            }
            store.delete(b("k1"));
            try (Cursor c = store.scan(null, null)) {
                assertEquals(List.of("k2", "k0"), backwards(c));
            }
        }
    }

    @Test
    void movesOffTheEntriesAndBackAndChangesDirectionAnywhere() {
        try (LsmStore store = open("moves")) {
            store.put(b("a"), b("1"));
            store.put(b("c"), b("3"));
            store.flush();
            store.put(b("b"), b("2"));
            try (Cursor c = store.scan(null, null)) {
                assertFalse(c.prev(), "a new cursor is before the first entry");
                assertFalse(c.prev());
                assertTrue(c.next(), "and next moves to the first");
                assertEquals("a", s(c.key()));
                assertTrue(c.next());
                assertTrue(c.prev());
                assertEquals("a", s(c.key()));
                assertTrue(c.next());
                assertTrue(c.next());
                assertEquals("c", s(c.key()));
                assertFalse(c.next(), "past the last");
                assertFalse(c.next(), "stays after the last");
                assertTrue(c.prev(), "after the last, prev gives the last");
                assertEquals("c", s(c.key()));
                assertTrue(c.prev());
                assertEquals("b", s(c.key()));
                assertEquals("2", s(c.value()));
                assertTrue(c.next());
                assertEquals("c", s(c.key()));
                assertTrue(c.prev());
                assertTrue(c.prev());
                assertFalse(c.prev(), "past the first");
                assertThrows(IllegalStateException.class, c::key);
                assertTrue(c.next(), "before the first, next gives the first");
                assertEquals("a", s(c.key()));
            }
        }
    }

    @Test
    void writesAfterTheCursorOpenedAreNotSeenEitherWay() {
        try (LsmStore store = open("isolation")) {
            store.put(b("b"), b("old"));
            store.put(b("d"), b("old"));
            try (Cursor c = store.scan(null, null)) {
                assertTrue(c.seekToLast());
                // New keys around and between, overwrites and deletes of what it shows.
                store.put(b("a"), b("new"));
                store.put(b("c"), b("new"));
                store.put(b("e"), b("new"));
                store.put(b("b"), b("new"));
                store.delete(b("d"));
                store.flush();
                assertEquals("d", s(c.key()));
                assertTrue(c.prev());
                assertEquals("b", s(c.key()));
                assertEquals("old", s(c.value()));
                assertFalse(c.prev());
                assertTrue(c.next());
                assertTrue(c.next());
                assertEquals("d", s(c.key()));
                assertEquals("old", s(c.value()));
                assertFalse(c.next());
                assertEquals(List.of("d", "b"), backwards(c));
            }
            try (Cursor c = store.scan(null, null)) {
                assertEquals(List.of("e", "c", "b", "a"), backwards(c));
            }
        }
    }

    @Test
    void aSnapshotCursorOutlivesItsSnapshotAndTheMergesAfterIt() {
        try (LsmStore store = LsmStore.open(dir.resolve("outlive"), StoreConfig.builder()
                .mergePolicy("size-tiered", Map.of("fanout", "2")).build())) {
            for (int i = 0; i < 100; i++) {
                store.put(b(TestKeys.padded("k", i, 3)), b("v" + i));
            }
            store.flush();
            Snapshot snap = store.snapshot();
            Cursor c = snap.scan(null, null);
            snap.close();
            for (int i = 0; i < 100; i++) {
                store.delete(b(TestKeys.padded("k", i, 3)));
                if (i % 25 == 24) {
                    store.flush();
                }
            }
            store.awaitMerges();
            assertTrue(store.stats().mergeCount() > 0, "the tables the cursor reads were merged away");
            try (c) {
                assertTrue(c.seekToLast());
                int n = 1;
                while (c.prev()) {
                    n++;
                }
                assertEquals(100, n);
                assertTrue(c.seek(b("k050")));
                assertEquals("v50", s(c.value()));
            }
            try (Cursor now = store.scan(null, null)) {
                assertFalse(now.seekToLast());
            }
        }
    }
}
