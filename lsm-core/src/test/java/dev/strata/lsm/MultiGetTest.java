package dev.strata.lsm;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * {@link LsmStore#getAll}: the same answers as a get per key, over memtables and tables, in
 * the keys' order; {@link LsmStore#getFromMemory}: the get's answer whenever it answers, and
 * an answer for every key whose newest version is in a memtable.
 */
class MultiGetTest {
    @TempDir
    Path dir;

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void memoryReadsAnswerForMemtableKeysOnly() {
        try (LsmStore store = LsmStore.open(dir)) {
            store.put(b("flushed"), b("1"));
            store.put(b("deleted-later"), b("1"));
            store.flush();
            store.put(b("fresh"), b("2"));
            store.delete(b("deleted-later"));
            MemoryRead r = store.getFromMemory(b("fresh"));
            assertEquals(true, r.answered());
            assertArrayEquals(b("2"), r.value());
            r = store.getFromMemory(b("deleted-later"));
            assertEquals(true, r.answered());
            assertEquals(null, r.value());
            assertEquals(false, store.getFromMemory(b("flushed")).answered());
            // Inside the table's key range ("deleted-later" to "flushed"): only the table can tell.
            assertEquals(false, store.getFromMemory(b("e-never")).answered());
            assertArrayEquals(b("1"), store.get(b("flushed")));
        }
    }

    @Test
    void memoryReadsAnswerAbsentWhereNoTableCanHoldTheKey() {
        try (LsmStore store = LsmStore.open(dir)) {
            // Nothing flushed yet: a key the memtables lack is absent.
            assertEquals(MemoryRead.DELETED, store.getFromMemory(b("never")));
            store.put(b("m1"), b("1"));
            store.put(b("m5"), b("5"));
            store.flush();
            store.put(b("z"), b("z"));
            // Outside the one table's key range [m1, m5]: absent, from memory.
            for (String k : new String[] {"a", "m0", "m51", "y", "zz"}) {
                MemoryRead r = store.getFromMemory(b(k));
                assertEquals(true, r.answered(), k);
                assertEquals(null, r.value(), k);
                assertEquals(null, store.get(b(k)), k);
            }
            // Inside it: the table must be read, whether it holds the key or not.
            for (String k : new String[] {"m1", "m3", "m5"}) {
                assertEquals(false, store.getFromMemory(b(k)).answered(), k);
            }
            assertArrayEquals(b("z"), store.getFromMemory(b("z")).value());
        }
    }

    @Test
    void answersAsAGetPerKeyInTheCallersOrder() {
        long seed = dev.strata.lsm.testkit.TestSeed.orRandom();
        Random rnd = new Random(seed);
        StoreConfig config = StoreConfig.builder().memtableBytes(64 << 10).build();
        try (LsmStore store = LsmStore.open(dir, config)) {
            // Versions spread over flushed tables, the immutable memtables and the active one, with deletes.
            for (int round = 0; round < 4; round++) {
                for (int i = 0; i < 3000; i++) {
                    int k = rnd.nextInt(5000);
                    if (rnd.nextInt(10) == 0) {
                        store.delete(b("key" + k));
                    } else {
                        store.put(b("key" + k), b("r" + round + "-" + i));
                    }
                }
                if (round < 3) {
                    store.flush();
                }
            }
            for (int q = 0; q < 50; q++) {
                byte[][] keys = new byte[1 + rnd.nextInt(200)][];
                for (int i = 0; i < keys.length; i++) {
                    keys[i] = b("key" + rnd.nextInt(6000));
                }
                keys[keys.length - 1] = keys[0]; // a key named twice
                byte[][] got = store.getAll(keys);
                assertEquals(keys.length, got.length);
                for (int i = 0; i < keys.length; i++) {
                    assertArrayEquals(store.get(keys[i]), got[i], "seed " + seed + ", key " + new String(keys[i]));
                }
            }
            assertEquals(0, store.getAll().length);
            assertThrows(IllegalArgumentException.class, () -> store.getAll(b("a"), null));
        }
    }
}
