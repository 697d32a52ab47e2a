package dev.strata.lsm.family;

import dev.strata.lsm.LsmStore;
import dev.strata.lsm.StoreConfig;

import dev.strata.lsm.testkit.TestKeys;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;

/**
 * The store checked in under {@code src/test/resources/pre-families-store/}: written by the
 * code of commit 024c82f, the last before column families (the {@code main} below, compiled
 * against that commit's lsm-core and run with the resource directory as argument). It holds
 * tables and a WAL segment with writes no table holds (the store was closed in WAL mode
 * async, which does not flush), so opening it replays a WAL of the old format.
 * {@link #expected()} is what it holds.
 */
final class PreFamiliesStoreFixture {
    static final int KEYS = 300;

    private PreFamiliesStoreFixture() {
    }

    static StoreConfig config() {
        return StoreConfig.builder().memtableBytes(8192).mergePolicy("size-tiered").build();
    }

    static byte[] key(int i) {
        return TestKeys.padded("key-", i, 5).getBytes(StandardCharsets.US_ASCII);
    }

    static byte[] value(int i, int round) {
        return ("value-" + i + "-round-" + round).getBytes(StandardCharsets.US_ASCII);
    }

    /** Key to value of what the store holds after {@link #main}. */
    static Map<String, String> expected() {
        Map<String, String> m = new TreeMap<>();
        for (int i = 0; i < KEYS; i++) {
            if (i % 11 != 0) {
                m.put(new String(key(i), StandardCharsets.US_ASCII),
                        new String(value(i, i % 5 == 0 ? 1 : 0), StandardCharsets.US_ASCII));
            }
        }
        m.put("wal-only", "unflushed");
        return m;
    }

    public static void main(String[] args) {
        try (LsmStore store = LsmStore.open(Path.of(args[0]), config())) {
            for (int i = 0; i < KEYS; i++) {
                store.put(key(i), value(i, 0));
            }
            store.flush();
            store.awaitMerges();
            for (int i = 0; i < KEYS; i += 5) {
                store.put(key(i), value(i, 1));
            }
            store.flush();
            store.awaitMerges();
            // In the WAL only: the store is closed without a flush.
            for (int i = 0; i < KEYS; i += 11) {
                store.delete(key(i));
            }
            store.put("wal-only".getBytes(StandardCharsets.US_ASCII), "unflushed".getBytes(StandardCharsets.US_ASCII));
        }
    }
}
