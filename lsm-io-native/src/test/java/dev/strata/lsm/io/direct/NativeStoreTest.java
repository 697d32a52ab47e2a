package dev.strata.lsm.io.direct;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.strata.lsm.Cursor;
import dev.strata.lsm.LsmStore;
import dev.strata.lsm.StoreConfig;
import dev.strata.lsm.WriteBatch;
import dev.strata.lsm.io.StorageIOs;
import dev.strata.lsm.testkit.TestScale;
import dev.strata.lsm.testkit.TestSeed;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.io.TempDir;
import dev.strata.lsm.testkit.SlowTest;

/**
 * A whole store on the native provider chosen in XML, with the pinned element: random puts,
 * deletes, batches, gets and scans against a model, with flushes, merges and reopens,
 * for O_DIRECT on and off, in both WAL modes.
 */
@SlowTest
class NativeStoreTest {
    @TempDir
    Path tmp;

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"direct-async", "direct-sync", "buffered-async", "direct-async-lz4", "direct-async-zstd",
            "buffered-async-snappy"})
    void randomOperationsWithReopenMatchTheModel(String variant) throws Exception {
        String[] parts = variant.split("-");
        boolean direct = parts[0].equals("direct");
        String wal = parts[1];
        // Compressed tables are packed: their writes must stay 4 KiB-aligned and their reads aligned too.
        String codec = parts.length > 2 ? parts[2] : "none";
        Path xml = tmp.resolve("store.xml");
        Files.writeString(xml, """
                <store>
                  <memtable bytes="16KiB" maxImmutable="2"/>
                  <wal mode="%s"/>
                  <sstable compression="%s"/>
                  <blockCache bytes="256KiB"/>
                  <mergePolicy name="size-tiered">
                    <param name="fanout" value="2"/>
                  </mergePolicy>
                  <storageIO name="native"><param name="direct" value="%s"/><param name="punch-holes" value="true"/></storageIO>
                </store>
                """.formatted(wal, codec, direct));
        StoreConfig config = StoreConfig.fromXml(xml);
        assertEquals("native", config.storageIOName());
        assertEquals(Map.of("direct", String.valueOf(direct), "punch-holes", "true"), config.storageIOParams());
        NativeStorageIO io = assertInstanceOf(NativeStorageIO.class, config.createStorageIO());
        assertEquals(direct, io.options().direct());
        // The instance the XML selected, passed in so that its counters can be read afterwards.
        config = config.toBuilder().storageIO(io).build();

        long seed = TestSeed.orRandom();
        System.out.println(variant + " seed " + seed + " (replay with -Dstrata.test.seed=" + seed + ")");
        Random rnd = new Random(seed);
        TreeMap<byte[], byte[]> model = new TreeMap<>(Arrays::compareUnsigned);
        Path dir = tmp.resolve("db");
        LsmStore store = LsmStore.open(dir, config);
        try {
            // 600 operations over as many keys in the fast lane (18 flushes, 12 reopens and
            // 18 full scans on average); in the slow lane (this class at multiplier
            // above 1) the size from before the fast lane: 1,500 times the multiplier
            // (4,500 at 3) over 1,500 keys.
            boolean fullSize = TestScale.multiplier() > 1;
            int ops = fullSize ? TestScale.scaled(1_500) : 600;
            int keys = fullSize ? 1_500 : ops;
            for (int i = 0; i < ops; i++) {
                int op = rnd.nextInt(100);
                byte[] k = ("key-" + rnd.nextInt(keys)).getBytes(StandardCharsets.UTF_8);
                if (op < 50) {
                    byte[] v = new byte[rnd.nextInt(50) == 0 ? 5000 : rnd.nextInt(200)];
                    rnd.nextBytes(v);
                    if (rnd.nextBoolean()) {
                        Arrays.fill(v, 0, v.length / 2, (byte) 'x'); // half the values compress
                    }
                    store.put(k, v);
                    model.put(k, v);
                } else if (op < 60) {
                    store.delete(k);
                    model.remove(k);
                } else if (op < 65) {
                    WriteBatch b = new WriteBatch();
                    for (int j = 0; j < 10; j++) {
                        byte[] bk = ("key-" + rnd.nextInt(keys)).getBytes(StandardCharsets.UTF_8);
                        byte[] v = ("batch-" + i + "-" + j).getBytes(StandardCharsets.UTF_8);
                        b.put(bk, v);
                        model.put(bk, v);
                    }
                    store.write(b);
                } else if (op < 90) {
                    assertArrayEquals(model.get(k), store.get(k), "get at op " + i);
                } else if (op < 93) {
                    checkAll(model, store, "scan at op " + i);
                } else if (op < 96) {
                    store.flush();
                } else if (op < 98) {
                    store.awaitMerges();
                } else {
                    store.close();
                    store = LsmStore.open(dir, config);
                }
            }
            store.awaitMerges();
            assertTrue(store.stats().toString().length() > 0);
            checkAll(model, store, "final scan");
            store.close();
            store = LsmStore.open(dir, config);
            checkAll(model, store, "scan after reopen");
            for (Map.Entry<byte[], byte[]> e : model.entrySet()) {
                assertArrayEquals(e.getValue(), store.get(e.getKey()));
            }
            assertEquals(0, store.stats().policyErrors(), "policy errors");
            System.out.println(variant + ": " + io.directBytesWritten() + " bytes written and " + io.directBytesRead()
                    + " read with O_DIRECT, " + io.directFallbacks() + " fallbacks; " + store.stats());
            if (direct && io.capabilities(dir).direct()) {
                assertTrue(io.directBytesWritten() > 0, "flushes and merges wrote through O_DIRECT");
                assertTrue(io.directBytesRead() > 0, "merges read through O_DIRECT");
                assertEquals(0, io.directFallbacks());
            } else if (!direct) {
                assertEquals(0, io.directBytesWritten() + io.directBytesRead());
            }
        } finally {
            store.close();
        }
    }

    private static void checkAll(TreeMap<byte[], byte[]> model, LsmStore store, String what) {
        try (Cursor c = store.scan(null, null)) {
            for (Map.Entry<byte[], byte[]> e : model.entrySet()) {
                assertTrue(c.next(), what + ": missing " + new String(e.getKey(), StandardCharsets.UTF_8));
                assertArrayEquals(e.getKey(), c.key(), what);
                assertArrayEquals(e.getValue(), c.value(), what);
            }
            assertFalse(c.next(), what + ": extra keys");
        }
    }
}
