package dev.strata.lsm;

import dev.strata.lsm.testkit.TestKeys;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.Map;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Flushes and merges turn values the {@link ValueExpiry} calls expired into tombstones: the
 * key reads as absent afterwards, an older version below never comes back, and a merge to
 * the bottom drops them.
 */
class ValueExpiryTest {
    /** Values starting with 'x' have expired. */
    private static final ValueExpiry EXPIRED_WHEN_X = (key, value, now) -> value.length > 0 && value[0] == 'x';

    private static byte[] b(String s) {
        return s.getBytes(UTF_8);
    }

    @Test
    void anExpiredValueFlushedOverAnOlderOneHidesIt(@TempDir Path dir) {
        StoreConfig config = StoreConfig.builder().memtableBytes(1 << 20).mergePolicy("no-merge", Map.of())
                .valueExpiry(EXPIRED_WHEN_X).build();
        try (LsmStore store = LsmStore.open(dir, config)) {
            store.put(b("k"), b("old"));
            store.put(b("live"), b("value"));
            store.flush();
            store.put(b("k"), b("x-expired"));
            // In the memtable the store does not judge values: its owner hides expired ones.
            assertArrayEquals(b("x-expired"), store.get(b("k")));
            store.flush();
            assertNull(store.get(b("k")), "the older version came back from below");
            assertArrayEquals(b("value"), store.get(b("live")));
        }
        try (LsmStore store = LsmStore.open(dir, config)) {
            assertNull(store.get(b("k")));
            assertArrayEquals(b("value"), store.get(b("live")));
        }
    }

    @Test
    void mergesToTheBottomDropExpiredValues(@TempDir Path dir) {
        StoreConfig config = StoreConfig.builder().memtableBytes(1 << 20)
                .mergePolicy("size-tiered", Map.of("fanout", "2", "max-runs", "2"))
                .valueExpiry(EXPIRED_WHEN_X).build();
        int keys = 3000;
        try (LsmStore store = LsmStore.open(dir, config)) {
            for (int round = 0; round < 4; round++) {
                for (int i = 0; i < keys; i++) {
                    // Round 3 expires every even key; the others stay live.
                    String v = round == 3 && i % 2 == 0 ? "x" + i : "v" + round + "-" + i;
                    store.put(b(TestKeys.padded("key", i, 6)), b(v));
                }
                store.flush();
            }
            store.awaitMerges();
            assertTrue(store.stats().mergeCount() > 0, "no merge ran");
            for (int i = 0; i < keys; i++) {
                byte[] got = store.get(b(TestKeys.padded("key", i, 6)));
                if (i % 2 == 0) {
                    // Turned into a tombstone at the flush already, whatever merged since.
                    assertNull(got, "key " + i);
                } else {
                    assertArrayEquals(b("v3-" + i), got, "key " + i);
                }
            }
            int seen = 0;
            try (Cursor c = store.scan(null, null)) {
                while (c.next()) {
                    seen++;
                }
            }
            assertEquals(keys / 2, seen);
        }
    }

    @Test
    void aValueThatExpiresAfterItsFlushIsDroppedByALaterMerge(@TempDir Path dir) {
        java.util.concurrent.atomic.AtomicBoolean late = new java.util.concurrent.atomic.AtomicBoolean();
        ValueExpiry expiry = (key, value, now) -> late.get() && value.length > 0 && value[0] == 'y';
        StoreConfig config = StoreConfig.builder().memtableBytes(1 << 20)
                .mergePolicy("size-tiered", Map.of("fanout", "2", "max-runs", "2"))
                .valueExpiry(expiry).build();
        int keys = 2000;
        try (LsmStore store = LsmStore.open(dir, config)) {
            for (int i = 0; i < keys; i++) {
                store.put(b(TestKeys.padded("late", i, 6)), b("y" + i));
            }
            store.flush();
            store.awaitMerges();
            assertArrayEquals(b("y7"), store.get(b("late000007")), "expired before its time");
            late.set(true);
            for (int round = 0; round < 3; round++) {
                for (int i = 0; i < keys; i++) {
                    store.put(b(TestKeys.padded("other", i, 6)), b("v" + round));
                }
                store.flush();
            }
            store.awaitMerges();
            int gone = 0;
            for (int i = 0; i < keys; i++) {
                if (store.get(b(TestKeys.padded("late", i, 6))) == null) {
                    gone++;
                }
            }
            // Either no merge read the first table (then all remain) or one did (then all are gone).
            assertTrue(gone == 0 || gone == keys, gone + " of " + keys);
            assertEquals(keys, gone, "no merge after the expiry read the table holding the late keys");
        }
    }

    @Test
    void withoutAnExpiryNothingChanges(@TempDir Path dir) {
        StoreConfig config = StoreConfig.builder().mergePolicy("no-merge", Map.of()).build();
        try (LsmStore store = LsmStore.open(dir, config)) {
            store.put(b("k"), b("x-not-special"));
            store.flush();
            assertArrayEquals(b("x-not-special"), store.get(b("k")));
        }
    }

    /**
     * The "now" an expiry is judged at is the store's clock ({@link StoreConfig#clock()}): a value
     * whose deadline the clock has not reached survives its flush, and a merge after the clock
     * passed it drops it.
     */
    @Test
    void expiryIsJudgedAtTheStoresClock(@TempDir Path dir) {
        dev.strata.lsm.testkit.ManualClock clock = new dev.strata.lsm.testkit.ManualClock(1_000_000);
        java.util.Set<Long> askedAt = java.util.concurrent.ConcurrentHashMap.newKeySet();
        // A value "d:N" expires once the clock passes N.
        ValueExpiry deadline = (key, value, now) -> {
            askedAt.add(now);
            String v = new String(value, UTF_8);
            return v.startsWith("d:") && now > Long.parseLong(v.substring(2));
        };
        StoreConfig config = StoreConfig.builder().memtableBytes(1 << 20).mergePolicy("no-merge", Map.of())
                .valueExpiry(deadline).clock(clock).build();
        try (LsmStore store = LsmStore.open(dir, config)) {
            store.put(b("soon"), b("d:1000100"));
            store.put(b("later"), b("d:2000000"));
            store.flush();
            assertEquals(java.util.Set.of(1_000_000L), askedAt, "the flush asked at the clock's time");
            assertArrayEquals(b("d:1000100"), store.get(b("soon")), "not expired before its deadline");
            clock.advanceMillis(500);
            // A second table inside the first's key range: the compaction must rewrite both.
            store.put(b("m"), b("plain"));
            store.flush();
            store.compactRange(null, null);
            assertTrue(store.stats().mergeCount() > 0, "the compaction merged");
            assertEquals(java.util.Set.of(1_000_000L, 1_000_500L), askedAt, "asked at the clock's times only");
            assertNull(store.get(b("soon")), "expired once the clock passed its deadline");
            assertArrayEquals(b("d:2000000"), store.get(b("later")));
        }
    }
}
