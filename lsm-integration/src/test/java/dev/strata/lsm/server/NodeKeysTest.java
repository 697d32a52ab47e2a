package dev.strata.lsm.server;

import dev.strata.lsm.LsmStore;
import dev.strata.lsm.StoreConfig;
import dev.strata.lsm.testkit.TestSeed;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The node's key escaping keeps client keys in their order and out of the node's range, and
 * {@link NodeKeys#clientScan} returns exactly the client keys of a range around that range.
 */
class NodeKeysTest {
    private static byte[] randomKey(Random rnd) {
        byte[] k = new byte[rnd.nextInt(4)];
        for (int i = 0; i < k.length; i++) {
            // Mostly the bytes around the escape, where the order could go wrong.
            int pick = rnd.nextInt(4);
            k[i] = (byte) (pick == 0 ? 0xFF : pick == 1 ? 0x00 : pick == 2 ? 0xFE : rnd.nextInt(256));
        }
        return k;
    }

    @Test
    void escapingKeepsOrderAndRoundTrips() {
        long seed = TestSeed.orRandom();
        Random rnd = new Random(seed);
        for (int i = 0; i < 20_000; i++) {
            byte[] a = randomKey(rnd);
            byte[] b = randomKey(rnd);
            byte[] sa = NodeKeys.stored(a);
            byte[] sb = NodeKeys.stored(b);
            assertEquals(Integer.signum(Arrays.compareUnsigned(a, b)), Integer.signum(Arrays.compareUnsigned(sa, sb)),
                    "seed " + seed + ": " + Arrays.toString(a) + " vs " + Arrays.toString(b));
            assertArrayEquals(a, NodeKeys.client(sa));
            boolean inNodeRange = Arrays.compareUnsigned(sa, NodeKeys.INTERNAL_FROM) >= 0
                    && Arrays.compareUnsigned(sa, NodeKeys.INTERNAL_TO) < 0;
            assertEquals(false, inNodeRange, "seed " + seed + ": " + Arrays.toString(a) + " stored in the node's range");
        }
    }

    @Test
    void clientScanSkipsTheNodeRange(@TempDir Path dir) {
        long seed = TestSeed.orRandom();
        Random rnd = new Random(seed);
        try (LsmStore store = LsmStore.open(dir, RespServer.storeConfig(StoreConfig.builder().build()))) {
            java.util.TreeSet<byte[]> clients = new java.util.TreeSet<>(Arrays::compareUnsigned);
            for (int i = 0; i < 500; i++) {
                byte[] k = randomKey(rnd);
                clients.add(k);
                store.put(NodeKeys.stored(k), new byte[] {0});
            }
            // Node records at both ends of its range.
            store.put(NodeKeys.FORMAT_MARKER, new byte[] {0, 2});
            store.put(NodeKeys.hashField(NodeKeys.hashPrefix(new byte[] {(byte) 0xFF}, 7), new byte[] {(byte) 0xFF}),
                    new byte[] {0});
            store.put(new byte[] {(byte) 0xFF}, new byte[] {0});
            for (int t = 0; t < 200; t++) {
                byte[] from = rnd.nextInt(5) == 0 ? null : randomKey(rnd);
                byte[] to = rnd.nextInt(5) == 0 ? null : randomKey(rnd);
                List<byte[]> want = new ArrayList<>();
                for (byte[] k : clients) {
                    if ((from == null || Arrays.compareUnsigned(k, from) >= 0) && (to == null || Arrays.compareUnsigned(k, to) < 0)) {
                        want.add(k);
                    }
                }
                List<byte[]> got = new ArrayList<>();
                try (NodeKeys.ClientCursor c = NodeKeys.clientScan(store, from == null ? null : NodeKeys.stored(from),
                        to == null ? null : NodeKeys.stored(to))) {
                    while (c.next()) {
                        got.add(NodeKeys.client(c.key()));
                    }
                }
                assertEquals(want.size(), got.size(), "seed " + seed + ": range " + Arrays.toString(from) + " .. "
                        + Arrays.toString(to));
                for (int i = 0; i < want.size(); i++) {
                    assertArrayEquals(want.get(i), got.get(i), "seed " + seed);
                }
            }
        }
    }

    /**
     * A store a format 2 node wrote (hash fields in the default family, some already copied by
     * an interrupted move) is brought up to format 3 at start: every field moves into the
     * fields family, none stays in the default family, the marker says 3, and the hashes read
     * whole through the node.
     */
    @Test
    void aFormatTwoStoreHasItsFieldsMovedIntoTheirFamily(@TempDir Path dir) {
        int fields = 2_500;
        try (LsmStore store = LsmStore.open(dir, RespServer.storeConfig(StoreConfig.builder().build()))) {
            store.put(NodeKeys.FORMAT_MARKER, new byte[] {0, 2});
            store.put(NodeKeys.stored("s".getBytes()), new StoredValue("plain".getBytes(), StoredValue.NEVER).encode());
            store.put(NodeKeys.stored("h".getBytes()), new HashMeta(StoredValue.NEVER, 3, fields).encode());
            byte[] prefix = NodeKeys.hashPrefix("h".getBytes(), 3);
            dev.strata.lsm.ColumnFamily interrupted = store.createColumnFamily(NodeKeys.HASH_FIELD_FAMILY,
                    dev.strata.lsm.FamilyOptions.defaults());
            for (int i = 0; i < fields; i++) {
                byte[] k = NodeKeys.hashField(prefix, ("f" + i).getBytes());
                byte[] v = new StoredValue(("v" + i).getBytes(), StoredValue.NEVER).encode();
                store.put(k, v);
                if (i % 3 == 0) {
                    store.put(interrupted, k, v);
                }
            }
        }
        try (TestNode node = new TestNode(dir); redis.clients.jedis.Jedis j = new redis.clients.jedis.Jedis("127.0.0.1", node.port())) {
            java.util.Map<String, String> all = j.hgetAll("h");
            assertEquals(fields, all.size());
            for (int i = 0; i < fields; i++) {
                assertEquals("v" + i, all.get("f" + i));
            }
            assertEquals("plain", j.get("s"));
            LsmStore store = node.server.store();
            assertArrayEquals(new byte[] {0, NodeKeys.FORMAT}, store.get(NodeKeys.FORMAT_MARKER));
            try (dev.strata.lsm.Cursor c = store.scan(NodeKeys.HASH_FIELDS, RespCommands.prefixEnd(NodeKeys.HASH_FIELDS))) {
                assertEquals(false, c.next(), "a hash field left in the default family");
            }
            long moved = 0;
            try (dev.strata.lsm.Cursor c = store.scan(NodeKeys.hashFields(store), null, null)) {
                while (c.next()) {
                    moved++;
                }
            }
            assertEquals(fields, moved);
            j.hset("h", "new", "x");
            assertEquals(fields + 1, j.hlen("h"));
        }
        try (TestNode node = new TestNode(dir); redis.clients.jedis.Jedis j = new redis.clients.jedis.Jedis("127.0.0.1", node.port())) {
            assertEquals(fields + 1, j.hgetAll("h").size());
        }
    }

    @Test
    void aStoreOfAnUnknownFormatIsRefusedUnchanged(@TempDir Path dir) {
        try (LsmStore store = LsmStore.open(dir, RespServer.storeConfig(StoreConfig.builder().build()))) {
            store.put(NodeKeys.FORMAT_MARKER, new byte[] {0, 9});
            IllegalStateException e = org.junit.jupiter.api.Assertions.assertThrows(IllegalStateException.class,
                    () -> NodeKeys.checkFormat(store));
            org.junit.jupiter.api.Assertions.assertTrue(e.getMessage().contains("format is 9"), e.getMessage());
            assertEquals(1, store.listColumnFamilies().size(), "a family was created for a refused store");
        }
    }
}
