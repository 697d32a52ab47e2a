package dev.strata.lsm.version;

import dev.strata.lsm.LsmStore;
import dev.strata.lsm.StoreConfig;

import dev.strata.lsm.testkit.TestKeys;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;

/**
 * The store checked in under {@code src/test/resources/format1-store/}: written by the code
 * of commit 4fff4c5, whose manifest records are format 1 (every edit carries the whole
 * layout). {@link #main} is how it was produced (compiled against that commit's lsm-core
 * and run with the resource directory as argument); {@link #expected()} is what it holds.
 */
final class Format1StoreFixture {
    static final int KEYS = 400;

    private Format1StoreFixture() {
    }

    static StoreConfig config() {
        return StoreConfig.builder().memtableBytes(4096).mergePolicy("size-tiered").build();
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
            if (i % 7 != 0) {
                m.put(new String(key(i), StandardCharsets.US_ASCII),
                        new String(value(i, i % 3 == 0 ? 1 : 0), StandardCharsets.US_ASCII));
            }
        }
        return m;
    }

    public static void main(String[] args) {
        try (LsmStore store = LsmStore.open(Path.of(args[0]), config())) {
            for (int i = 0; i < KEYS; i++) {
                store.put(key(i), value(i, 0));
            }
            store.flush();
            store.awaitMerges();
            for (int i = 0; i < KEYS; i += 3) {
                store.put(key(i), value(i, 1));
            }
            for (int i = 0; i < KEYS; i += 7) {
                store.delete(key(i));
            }
            store.flush();
            store.awaitMerges();
        }
    }
}
