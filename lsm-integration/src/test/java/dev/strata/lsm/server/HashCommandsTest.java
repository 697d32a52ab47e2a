package dev.strata.lsm.server;

import dev.strata.lsm.LsmStore;
import dev.strata.lsm.StoreConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Pipeline;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.Response;
import redis.clients.jedis.params.ScanParams;
import redis.clients.jedis.resps.ScanResult;
import redis.clients.jedis.exceptions.JedisDataException;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The hash commands through Jedis, with redis-server's answers: the commands themselves, the
 * WRONGTYPE errors between strings and hashes, HINCRBY's errors, the key commands on a hash,
 * HSCAN over 10,000 fields, atomicity under concurrent writers, and a hash across a restart.
 */
class HashCommandsTest extends OneNodeTest {
    private static final String WRONGTYPE = "WRONGTYPE Operation against a key holding the wrong kind of value";

    @Test
    void setGetDelete() {
        try (Jedis j = client()) {
            Map<String, String> m = new LinkedHashMap<>();
            m.put("a", "1");
            m.put("b", "2");
            m.put("c", "");
            assertEquals(3, j.hset("h:1", m));
            // Only new fields count; a field named twice keeps its last value.
            assertEquals(1, (long) j.sendCommand(Protocol.Command.HSET, "h:1", "a", "x", "d", "4", "a", "10"));
            assertEquals("10", j.hget("h:1", "a"));
            assertNull(j.hget("h:1", "zz"));
            assertNull(j.hget("h:missing", "a"));
            assertEquals(Arrays.asList("10", null, "4", ""), j.hmget("h:1", "a", "zz", "d", "c"));
            assertEquals(Arrays.asList(null, null), j.hmget("h:missing", "a", "b"));
            assertEquals(4, j.hlen("h:1"));
            assertEquals(0, j.hlen("h:missing"));
            assertTrue(j.hexists("h:1", "b"));
            assertFalse(j.hexists("h:1", "zz"));
            assertFalse(j.hexists("h:missing", "b"));
            assertEquals(2, j.hstrlen("h:1", "a"));
            assertEquals(0, j.hstrlen("h:1", "zz"));
            assertEquals(Map.of("a", "10", "b", "2", "c", "", "d", "4"), j.hgetAll("h:1"));
            assertEquals(Set.of("a", "b", "c", "d"), j.hkeys("h:1"));
            assertEquals(List.of("10", "2", "", "4"), j.hvals("h:1"));
            assertEquals(Map.of(), j.hgetAll("h:missing"));
            assertEquals(0, j.hsetnx("h:1", "a", "no"));
            assertEquals("10", j.hget("h:1", "a"));
            assertEquals(1, j.hsetnx("h:1", "e", "5"));
            assertEquals("OK", j.hmset("h:1", Map.of("f", "6")));
            assertEquals(6, j.hlen("h:1"));
            // HDEL counts what it removed (a field named twice once); the last field takes the key with it.
            assertEquals(2, j.hdel("h:1", "a", "b", "a", "zz"));
            assertEquals(0, j.hdel("h:missing", "a"));
            assertEquals(4, j.hlen("h:1"));
            assertEquals(4, j.hdel("h:1", "c", "d", "e", "f"));
            assertFalse(j.exists("h:1"));
            assertEquals("none", j.type("h:1"));
            assertEquals(Map.of(), j.hgetAll("h:1"));
            JedisDataException e = assertThrows(JedisDataException.class,
                    () -> j.sendCommand(Protocol.Command.HSET, "h:1", "a"));
            assertEquals("ERR wrong number of arguments for 'hset' command", e.getMessage());
            e = assertThrows(JedisDataException.class, () -> j.sendCommand(Protocol.Command.HGET, "h:1"));
            assertEquals("ERR wrong number of arguments for 'hget' command", e.getMessage());
        }
    }

    @Test
    void hgetFromMemtablesAndFromTables() {
        try (Jedis j = client()) {
            j.hset("m:h", Map.of("a", "1", "b", "2"));
            j.set("m:s", "v");
            j.hset("m:gone", "a", "1");
            j.del("m:gone");
            // All in the memtable (answered on the event loop).
            assertEquals("1", j.hget("m:h", "a"));
            assertNull(j.hget("m:h", "zz"));
            assertNull(j.hget("m:gone", "a"));
            assertEquals(WRONGTYPE, assertThrows(JedisDataException.class, () -> j.hget("m:s", "a")).getMessage());
            node.server.store().flush();
            // All in tables now; then the metadata in the memtable and an old field in a table.
            assertEquals("2", j.hget("m:h", "b"));
            assertNull(j.hget("m:gone", "a"));
            assertEquals(WRONGTYPE, assertThrows(JedisDataException.class, () -> j.hget("m:s", "a")).getMessage());
            j.hset("m:h", "c", "3");
            assertEquals("1", j.hget("m:h", "a"));
            assertEquals("3", j.hget("m:h", "c"));
            assertNull(j.hget("m:h", "zz"));
            j.hdel("m:h", "a");
            assertNull(j.hget("m:h", "a"));
            assertEquals(Arrays.asList(null, "2", "3"), j.hmget("m:h", "a", "b", "c"));
        }
    }

    @Test
    void wrongType() {
        try (Jedis j = client()) {
            j.hset("w:h", "f", "v");
            j.set("w:s", "12");
            for (Runnable r : List.<Runnable>of(() -> j.get("w:h"), () -> j.append("w:h", "x"), () -> j.incr("w:h"),
                    () -> j.strlen("w:h"), () -> j.getDel("w:h"), () -> j.setGet("w:h", "x"),
                    () -> j.hset("w:s", "f", "v"), () -> j.hget("w:s", "f"), () -> j.hgetAll("w:s"),
                    () -> j.hlen("w:s"), () -> j.hdel("w:s", "f"), () -> j.hincrBy("w:s", "f", 1),
                    () -> j.hscan("w:s", "0"), () -> j.hmget("w:s", "f"), () -> j.hexists("w:s", "f"),
                    () -> j.hsetnx("w:s", "f", "v"), () -> j.hkeys("w:s"))) {
                JedisDataException e = assertThrows(JedisDataException.class, r::run);
                assertEquals(WRONGTYPE, e.getMessage());
            }
            // Nothing changed by the refused commands.
            assertEquals("v", j.hget("w:h", "f"));
            assertEquals("12", j.get("w:s"));
            // GETs in one pipeline (the node's multi-get path) answer for each key.
            Pipeline p = j.pipelined();
            Response<String> s = p.get("w:s");
            Response<String> h = p.get("w:h");
            Response<String> missing = p.get("w:missing");
            p.sync();
            assertEquals("12", s.get());
            assertEquals(WRONGTYPE, assertThrows(JedisDataException.class, h::get).getMessage());
            assertNull(missing.get());
            // MGET reads a hash as nil, as Redis does.
            assertEquals(Arrays.asList("12", null), j.mget("w:s", "w:h"));
            // SET NX leaves a hash alone; plain SET replaces it.
            assertNull(j.set("w:h", "x", redis.clients.jedis.params.SetParams.setParams().nx()));
            assertEquals("hash", j.type("w:h"));
            assertEquals("OK", j.set("w:h", "now a string"));
            assertEquals("string", j.type("w:h"));
            assertEquals("now a string", j.get("w:h"));
            assertEquals(WRONGTYPE, assertThrows(JedisDataException.class, () -> j.hget("w:h", "f")).getMessage());
            // A string over a hash and back: the new hash does not see the old one's fields.
            j.del("w:h");
            assertEquals(1, j.hset("w:h", "g", "1"));
            assertEquals(Map.of("g", "1"), j.hgetAll("w:h"));
        }
    }

    @Test
    void hincrby() {
        try (Jedis j = client()) {
            assertEquals(5, j.hincrBy("i:h", "n", 5));
            assertEquals(1, j.hlen("i:h"));
            assertEquals(-3, j.hincrBy("i:h", "n", -8));
            assertEquals("-3", j.hget("i:h", "n"));
            assertEquals(7, j.hincrBy("i:h", "m", 7));
            assertEquals(2, j.hlen("i:h"));
            j.hset("i:h", "text", "abc");
            j.hset("i:h", "spaced", " 1");
            j.hset("i:h", "max", Long.toString(Long.MAX_VALUE));
            assertEquals("ERR hash value is not an integer",
                    assertThrows(JedisDataException.class, () -> j.hincrBy("i:h", "text", 1)).getMessage());
            assertEquals("ERR hash value is not an integer",
                    assertThrows(JedisDataException.class, () -> j.hincrBy("i:h", "spaced", 1)).getMessage());
            assertEquals("ERR increment or decrement would overflow",
                    assertThrows(JedisDataException.class, () -> j.hincrBy("i:h", "max", 1)).getMessage());
            assertEquals("ERR value is not an integer or out of range", assertThrows(JedisDataException.class,
                    () -> j.sendCommand(Protocol.Command.HINCRBY, "i:h", "n", "1.5")).getMessage());
            assertEquals("ERR value is not an integer or out of range", assertThrows(JedisDataException.class,
                    () -> j.sendCommand(Protocol.Command.HINCRBY, "i:h", "n", "99999999999999999999")).getMessage());
            assertEquals(Long.toString(Long.MAX_VALUE), j.hget("i:h", "max"));
            assertEquals("-3", j.hget("i:h", "n"));
            assertEquals(Long.MIN_VALUE + 1, j.hincrBy("i:h", "min", Long.MIN_VALUE + 1));
            assertEquals("ERR increment or decrement would overflow",
                    assertThrows(JedisDataException.class, () -> j.hincrBy("i:h", "min", -2)).getMessage());
        }
    }

    @Test
    void keyCommandsTreatAHashAsOneKey() {
        try (Jedis j = client()) {
            j.hset("k:h", Map.of("a", "1", "b", "2", "c", "3"));
            assertEquals("hash", j.type("k:h"));
            assertTrue(j.exists("k:h"));
            assertEquals(-1, j.ttl("k:h"));
            assertEquals(1, j.expire("k:h", 100));
            long ttl = j.ttl("k:h");
            assertTrue(ttl >= 99 && ttl <= 100, "ttl " + ttl);
            // Writes keep the time to live (the metadata record carries it).
            j.hset("k:h", "d", "4");
            j.hdel("k:h", "a");
            assertTrue(j.pttl("k:h") > 98_000);
            assertEquals(1, j.persist("k:h"));
            assertEquals(-1, j.ttl("k:h"));
            // KEYS and SCAN list the hash's key once, never its fields.
            assertEquals(Set.of("k:h"), j.keys("k:*"));
            ScanResult<String> r = j.scan("0", new ScanParams().match("k:*").count(1000));
            assertEquals(List.of("k:h"), r.getResult());
            j.set("k:s", "v");
            assertEquals(List.of("k:h"), j.scan("0", new ScanParams().match("k:*").count(1000), "hash").getResult());
            assertEquals(List.of("k:s"), j.scan("0", new ScanParams().match("k:*").count(1000), "string").getResult());
            // RENAME moves the fields and the time to live.
            j.expire("k:h", 200);
            assertEquals("OK", j.rename("k:h", "k:moved"));
            assertFalse(j.exists("k:h"));
            assertEquals(Map.of("b", "2", "c", "3", "d", "4"), j.hgetAll("k:moved"));
            assertEquals(3, j.hlen("k:moved"));
            assertTrue(j.ttl("k:moved") > 190);
            // RENAME over a hash replaces it.
            j.hset("k:other", "x", "1");
            assertEquals("OK", j.rename("k:s", "k:other"));
            assertEquals("v", j.get("k:other"));
            assertEquals("OK", j.rename("k:moved", "k:other"));
            assertEquals(Map.of("b", "2", "c", "3", "d", "4"), j.hgetAll("k:other"));
            // DEL is one record; a new hash at the key starts empty.
            assertEquals(1, j.del("k:other"));
            assertEquals(0, j.hlen("k:other"));
            assertEquals(1, j.hset("k:other", "z", "9"));
            assertEquals(Map.of("z", "9"), j.hgetAll("k:other"));
            assertEquals(1, j.unlink("k:other"));
            // A time not in the future deletes the hash.
            j.hset("k:e", "a", "1");
            assertEquals(1, j.pexpire("k:e", -1));
            assertFalse(j.exists("k:e"));
            assertEquals(-2, j.ttl("k:e"));
        }
    }

    @Test
    void hscanOverTenThousandFields() {
        int n = 10_000;
        try (Jedis j = client()) {
            for (int from = 0; from < n; from += 1000) {
                Map<String, String> m = new HashMap<>();
                for (int i = from; i < from + 1000; i++) {
                    m.put("f" + i, "v" + i);
                }
                assertEquals(1000, j.hset("big", m));
            }
            assertEquals(n, j.hlen("big"));
            Map<String, String> seen = new HashMap<>();
            String cursor = "0";
            int calls = 0;
            do {
                ScanResult<Map.Entry<String, String>> r = j.hscan("big", cursor, new ScanParams().count(250));
                for (Map.Entry<String, String> e : r.getResult()) {
                    assertNull(seen.put(e.getKey(), e.getValue()), "field returned twice: " + e.getKey());
                }
                cursor = r.getCursor();
                calls++;
            } while (!cursor.equals("0"));
            assertEquals(n, seen.size());
            assertEquals("v1234", seen.get("f1234"));
            assertTrue(calls >= n / 250, "calls " + calls);
            // MATCH with a literal prefix and a filtering pattern; NOVALUES.
            Set<String> matched = new HashSet<>();
            cursor = "0";
            do {
                ScanResult<Map.Entry<String, String>> r = j.hscan("big", cursor, new ScanParams().match("f12*").count(50));
                r.getResult().forEach(e -> assertTrue(matched.add(e.getKey())));
                cursor = r.getCursor();
            } while (!cursor.equals("0"));
            assertEquals(111, matched.size()); // f12, f120..f129, f1200..f1299
            Set<String> endsIn99 = new HashSet<>();
            cursor = "0";
            do {
                ScanResult<String> r = j.hscanNoValues("big", cursor, new ScanParams().match("f*99").count(1000));
                r.getResult().forEach(f -> assertTrue(endsIn99.add(f)));
                cursor = r.getCursor();
            } while (!cursor.equals("0"));
            assertEquals(100, endsIn99.size()); // f99, f199, ..., f9999
            // SCAN sees one key.
            assertEquals(List.of("big"), j.scan("0", new ScanParams().match("big*").count(100_000)).getResult());
            assertEquals(Set.of("big"), j.keys("big*"));
            assertEquals(List.of("0", List.of()), List.of(j.hscan("missing", "0").getCursor(), j.hscan("missing", "0").getResult()));
        }
    }

    @Test
    void concurrentWritersOfOneHash() throws Exception {
        int threads = 4;
        int each = 300;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int id = t;
                done.add(pool.submit(() -> {
                    try (Jedis j = client()) {
                        for (int i = 0; i < each; i++) {
                            j.hincrBy("c:h", "counter", 1);
                            j.hset("c:h", "t" + id + ":" + i, "v");
                            if (i % 3 == 0) {
                                j.hdel("c:h", "t" + id + ":" + i);
                            }
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get();
            }
        } finally {
            pool.shutdown();
        }
        try (Jedis j = client()) {
            assertEquals(Integer.toString(threads * each), j.hget("c:h", "counter"));
            long fields = 1 + threads * (each - each / 3);
            assertEquals(fields, j.hlen("c:h"));
            assertEquals(fields, j.hgetAll("c:h").size());
        }
    }

    @Test
    void keysStartingWithTheEscapeByte(@TempDir Path dir) {
        try (TestNode own = new TestNode(dir); Jedis j = own.client()) {
            byte[] odd = {(byte) 0xFF, 'h', 0, 0, 0, 1};
            byte[] ff = {(byte) 0xFF};
            j.set(odd, "one".getBytes(StandardCharsets.UTF_8));
            j.set(ff, "two".getBytes(StandardCharsets.UTF_8));
            j.hset("a", "f", "v");
            assertArrayEquals("one".getBytes(StandardCharsets.UTF_8), j.get(odd));
            assertArrayEquals("two".getBytes(StandardCharsets.UTF_8), j.get(ff));
            List<byte[]> keys = j.scan("0".getBytes(StandardCharsets.US_ASCII), new ScanParams().count(100)).getResult();
            assertEquals(3, keys.size());
            assertArrayEquals("a".getBytes(StandardCharsets.US_ASCII), keys.get(0));
            assertArrayEquals(ff, keys.get(1));
            assertArrayEquals(odd, keys.get(2));
            assertEquals(3, j.keys("*").size());
            assertEquals(3, j.dbSize());
            assertEquals(1, j.del(ff));
            assertEquals(2, j.dbSize());
            assertEquals("OK", j.flushAll());
            assertEquals(0, j.dbSize());
            assertEquals(Map.of(), j.hgetAll("a"));
            assertEquals(1, j.hset("a", "f", "v"));
        }
    }

    @Test
    void hashSurvivesRestart(@TempDir Path dir) {
        Map<String, String> fields = new HashMap<>();
        for (int i = 0; i < 500; i++) {
            fields.put("field" + i, "value" + i);
        }
        try (TestNode first = new TestNode(dir); Jedis j = first.client()) {
            j.hset("r:h", fields);
            j.hincrBy("r:h", "n", 42);
            j.hdel("r:h", "field0");
            j.expire("r:h", 1000);
            j.hset("r:gone", "a", "1");
            j.del("r:gone");
        }
        fields.remove("field0");
        fields.put("n", "42");
        try (TestNode second = new TestNode(dir); Jedis j = second.client()) {
            assertEquals(fields, j.hgetAll("r:h"));
            assertEquals(fields.size(), j.hlen("r:h"));
            assertEquals("hash", j.type("r:h"));
            assertTrue(j.ttl("r:h") > 990);
            assertFalse(j.exists("r:gone"));
            assertEquals(1, j.hset("r:gone", "b", "2"));
            assertEquals(Map.of("b", "2"), j.hgetAll("r:gone"));
            assertEquals(2, j.dbSize());
        }
    }

    @Test
    void storeOfTheOldKeyFormatWithAnEscapeByteKeyIsRefused(@TempDir Path dir) {
        StoreConfig config = RespServer.storeConfig(StoreConfig.builder().build());
        try (LsmStore store = LsmStore.open(dir, config)) {
            store.put(new byte[] {(byte) 0xFF, 'x'}, new byte[] {0, 'v'});
        }
        LsmStore store = LsmStore.open(dir, config);
        try {
            IllegalStateException e = assertThrows(IllegalStateException.class,
                    () -> RespServer.start(store, ServerOptions.defaults().withPort(0),
                            new io.micrometer.core.instrument.simple.SimpleMeterRegistry()));
            assertTrue(e.getMessage().contains("0xFF"), e.getMessage());
            assertNull(store.get(NodeKeys.FORMAT_MARKER));
        } finally {
            store.close();
        }
    }
}
