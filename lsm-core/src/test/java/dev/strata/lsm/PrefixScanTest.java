package dev.strata.lsm;

import dev.strata.lsm.io.IoPurpose;
import dev.strata.lsm.testkit.TestSeed;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.NavigableMap;
import java.util.Random;
import java.util.TreeMap;
import java.util.function.Function;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link LsmStore#scanPrefix(byte[])} and the prefix bloom: a prefix scan shows exactly the
 * keys with the prefix, both ways, against a model under puts, deletes, range deletes, merge
 * operands, snapshots, flushes and reopens; tables whose prefix bloom excludes the prefix are
 * not read; a table built by another extractor is never trusted.
 */
class PrefixScanTest {
    @TempDir
    Path dir;

    private static byte[] b(String s) {
        return s.getBytes(UTF_8);
    }

    private static StoreConfig config(PrefixExtractor extractor, String policy) {
        StoreConfig.Builder b = StoreConfig.builder().mergeOperator("uint64add").memtableBytes(64 * 1024);
        if (policy != null) {
            b.mergePolicy(policy);
        }
        return b.prefixExtractor(extractor).build();
    }

    /** A random key of 1 to 4 bytes over a small alphabet with 0x00 and 0xff, so prefixes collide and end in 0xff. */
    private static byte[] randomKey(Random rnd) {
        byte[] alphabet = {0, 1, 2, (byte) 0xff};
        byte[] k = new byte[1 + rnd.nextInt(4)];
        for (int i = 0; i < k.length; i++) {
            k[i] = alphabet[rnd.nextInt(alphabet.length)];
        }
        return k;
    }

    private static byte[] u64(long v) {
        return ByteBuffer.allocate(8).putLong(v).array();
    }

    private static long u64(byte[] v) {
        return v == null ? 0 : ByteBuffer.wrap(v).getLong();
    }

    /** The model's keys starting with {@code prefix}. */
    private static NavigableMap<byte[], byte[]> withPrefix(NavigableMap<byte[], byte[]> model, byte[] prefix) {
        NavigableMap<byte[], byte[]> out = new TreeMap<>(Arrays::compareUnsigned);
        for (var e : model.tailMap(prefix, true).entrySet()) {
            if (!Arrays.equals(e.getKey(), 0, Math.min(prefix.length, e.getKey().length), prefix, 0, prefix.length)
                    || e.getKey().length < prefix.length) {
                break;
            }
            out.put(e.getKey(), e.getValue());
        }
        return out;
    }

    /** Prefix scans of every prefix of 0 to 3 bytes over the alphabet's first and last letters agree with the model. */
    private static void checkPrefixes(NavigableMap<byte[], byte[]> model, Function<byte[], Cursor> scan, Random rnd,
                                      String what) {
        byte[][] prefixes = {{}, {0}, {(byte) 0xff}, {1, 2}, {(byte) 0xff, (byte) 0xff}, {2, 0}, {0, 0, 0},
                {2, (byte) 0xff, 1}, {(byte) 0xff, (byte) 0xff, (byte) 0xff}, {1, 1, 1, 1, 1}};
        for (byte[] p : prefixes) {
            NavigableMap<byte[], byte[]> view = withPrefix(model, p);
            String where = what + ", prefix " + CursorModel.show(p);
            try (Cursor c = scan.apply(p)) {
                for (var e : view.entrySet()) {
                    assertTrue(c.next(), where + ": missing " + CursorModel.show(e.getKey()));
                    assertArrayEquals(e.getKey(), c.key(), where);
                    assertArrayEquals(e.getValue(), c.value(), where);
                }
                assertFalse(c.next(), where + ": extra keys");
                CursorModel.checkReverse(c, view, where + " backwards");
            }
            try (Cursor c = scan.apply(p)) {
                CursorModel.walk(c, view, rnd, 40, () -> randomKey(rnd), () -> { }, where);
            }
        }
    }

    @Test
    void prefixScansMatchTheModelBothWaysWithSnapshotsDeletesRangeDeletesAndMerges() {
        long seed = TestSeed.orRandom();
        Random rnd = new Random(seed);
        String what = "seed " + seed;
        Path path = dir.resolve("model");
        TreeMap<byte[], byte[]> model = new TreeMap<>(Arrays::compareUnsigned);
        LsmStore store = LsmStore.open(path, config(PrefixExtractor.fixed(2), null));
        try {
            for (int round = 0; round < 6; round++) {
                for (int i = 0; i < 150; i++) {
                    byte[] k = randomKey(rnd);
                    int op = rnd.nextInt(100);
                    if (op < 55) {
                        long v = rnd.nextInt(1000);
                        store.put(k, u64(v));
                        model.put(k, u64(v));
                    } else if (op < 70) {
                        store.delete(k);
                        model.remove(k);
                    } else if (op < 90) {
                        long add = rnd.nextInt(50);
                        store.merge(k, u64(add));
                        model.put(k, u64(u64(model.get(k)) + add));
                    } else {
                        byte[] to = randomKey(rnd);
                        if (Arrays.compareUnsigned(k, to) < 0) {
                            store.deleteRange(k, to);
                            model.subMap(k, true, to, false).clear();
                        }
                    }
                    if (rnd.nextInt(60) == 0) {
                        store.flush();
                    }
                }
                TreeMap<byte[], byte[]> frozen = new TreeMap<>(model);
                try (Snapshot snapshot = store.snapshot()) {
                    // Writes after the snapshot, which it must not see.
                    for (int i = 0; i < 20; i++) {
                        byte[] k = randomKey(rnd);
                        store.put(k, u64(-1));
                        model.put(k, u64(-1));
                    }
                    store.flush();
                    checkPrefixes(frozen, snapshot::scanPrefix, rnd, what + ", round " + round + ", snapshot");
                }
                checkPrefixes(model, store::scanPrefix, rnd, what + ", round " + round);
                if (round % 2 == 1) {
                    store.close();
                    store = LsmStore.open(path, config(PrefixExtractor.fixed(2), null));
                    checkPrefixes(model, store::scanPrefix, rnd, what + ", round " + round + " after reopen");
                }
            }
        } finally {
            store.close();
        }
    }

    /** Fifty tables, each spanning a..z, none holding a key with prefix "mm". */
    private void writeFiftyTables(Path path, PrefixExtractor extractor) {
        try (LsmStore store = LsmStore.open(path, config(extractor, "no-merge"))) {
            for (int t = 0; t < 50; t++) {
                store.put(b("aa" + t), b("first"));
                store.put(b("mn" + t), b("middle"));
                store.put(b("zz" + t), b("last"));
                if (t == 7) {
                    store.put(b("mmx"), b("only in table 7"));
                }
                store.flush();
            }
            assertEquals(50, store.stats().componentsPerLevel()[0], "fifty tables in level 0");
        }
    }

    @Test
    void anAbsentPrefixReadsNoneOfFiftyTables() {
        Path path = dir.resolve("fifty");
        writeFiftyTables(path, PrefixExtractor.fixed(2));
        io.micrometer.core.instrument.simple.SimpleMeterRegistry registry =
                new io.micrometer.core.instrument.simple.SimpleMeterRegistry();
        StoreConfig metered = config(PrefixExtractor.fixed(2), "no-merge").toBuilder().meterRegistry(registry).build();
        try (LsmStore store = LsmStore.open(path, metered)) {
            long readsBefore = store.stats().io().reads(IoPurpose.READ);
            try (Cursor c = store.scanPrefix(b("mq"))) {
                assertFalse(c.next());
                assertFalse(c.seekToLast());
            }
            assertEquals(50, store.stats().prefixBloomSkips(), "every table's prefix bloom excluded mq");
            assertEquals(50, registry.get("strata.prefix.bloom.skips").functionCounter().count());
            assertEquals(readsBefore, store.stats().io().reads(IoPurpose.READ), "no page of any table was read");
            // A present prefix: only table 7 (bar a rare false positive) is read, and the key is found.
            try (Cursor c = store.scanPrefix(b("mmx"))) {
                assertTrue(c.next());
                assertArrayEquals(b("mmx"), c.key());
                assertFalse(c.next());
            }
            assertTrue(store.stats().prefixBloomSkips() >= 50 + 45, "skips " + store.stats().prefixBloomSkips());
            // A prefix shorter than N cannot use the filter: every table is read, and "m" finds all 51 keys.
            long skips = store.stats().prefixBloomSkips();
            int n = 0;
            try (Cursor c = store.scanPrefix(b("m"))) {
                for (boolean on = c.seekToLast(); on; on = c.prev()) {
                    n++;
                }
            }
            assertEquals(51, n);
            assertEquals(skips, store.stats().prefixBloomSkips());
        }
    }

    @Test
    void aStoreReopenedWithAnotherExtractorNeverTrustsTheOldPrefixBloom() {
        Path path = dir.resolve("mismatch");
        writeFiftyTables(path, PrefixExtractor.fixed(2));
        // Under fixed:3 the prefix "mmx" would be looked up as "mmx", which the fixed:2 filters never
        // held: trusting them would lose the key.
        for (PrefixExtractor other : new PrefixExtractor[] {PrefixExtractor.fixed(3), null}) {
            try (LsmStore store = LsmStore.open(path, config(other, "no-merge"))) {
                try (Cursor c = store.scanPrefix(b("mmx"))) {
                    assertTrue(c.next(), "extractor " + other);
                    assertArrayEquals(b("mmx"), c.key());
                }
                try (Cursor c = store.scanPrefix(b("mqq"))) {
                    assertFalse(c.next());
                }
                assertEquals(0, store.stats().prefixBloomSkips(), "no table trusted under " + other);
            }
        }
        // Tables written without an extractor are never skipped either.
        Path plain = dir.resolve("plain");
        writeFiftyTables(plain, null);
        try (LsmStore store = LsmStore.open(plain, config(PrefixExtractor.fixed(2), "no-merge"));
             Cursor c = store.scanPrefix(b("mq"))) {
            assertFalse(c.next());
            assertEquals(0, store.stats().prefixBloomSkips());
        }
    }

    @Test
    void prefixScansWorkPerFamilyAndRejectNull() {
        try (LsmStore store = LsmStore.open(dir.resolve("family"), config(PrefixExtractor.fixed(2), null))) {
            ColumnFamily cf = store.createColumnFamily("cf", FamilyOptions.defaults());
            store.put(cf, b("abc"), b("1"));
            store.put(b("abd"), b("2"));
            store.flushColumnFamily(cf);
            try (Cursor c = store.scanPrefix(cf, b("ab"))) {
                assertTrue(c.next());
                assertArrayEquals(b("abc"), c.key());
                assertFalse(c.next());
            }
            try (Snapshot s = store.snapshot(); Cursor c = s.scanPrefix(cf, b("ab"))) {
                assertTrue(c.seekToLast());
                assertArrayEquals(b("abc"), c.key());
                assertFalse(c.prev());
            }
            assertThrows(IllegalArgumentException.class, () -> store.scanPrefix(null));
        }
    }
}
