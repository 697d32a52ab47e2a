package dev.strata.lsm.server;

import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Pipeline;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.Response;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.params.ScanParams;
import redis.clients.jedis.params.SetParams;
import redis.clients.jedis.resps.ScanResult;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Every command of the node through Jedis, an independently written Redis client. */
class JedisCommandsTest extends OneNodeTest {
    @Test
    void pingEchoGetSetDel() {
        try (Jedis j = client()) {
            assertEquals("PONG", j.ping());
            assertEquals("hello", j.ping("hello"));
            assertEquals("echo me", j.echo("echo me"));
            assertEquals("OK", j.set("s:a", "1"));
            assertEquals("1", j.get("s:a"));
            assertNull(j.get("s:missing"));
            byte[] binary = {0, (byte) 0xff, 13, 10, 42};
            j.set("s:bin".getBytes(), binary);
            assertArrayEquals(binary, j.get("s:bin".getBytes()));
            assertEquals(2, j.del("s:a", "s:bin", "s:missing"));
            assertNull(j.get("s:a"));
            assertEquals("OK", j.set("s:empty", ""));
            assertEquals("", j.get("s:empty"));
        }
    }

    @Test
    void setOptions() {
        try (Jedis j = client()) {
            assertEquals("OK", j.set("o:nx", "first", SetParams.setParams().nx()));
            assertNull(j.set("o:nx", "second", SetParams.setParams().nx()));
            assertEquals("first", j.get("o:nx"));
            assertNull(j.set("o:xx", "v", SetParams.setParams().xx()));
            assertNull(j.get("o:xx"));
            assertEquals("OK", j.set("o:nx", "third", SetParams.setParams().xx()));
            assertEquals("third", j.get("o:nx"));
            assertEquals("third", j.setGet("o:nx", "fourth"));
            assertEquals("fourth", j.get("o:nx"));

            // Time to live and expiry: NodeExpiryClockTest, on a clock the test moves.
            assertEquals("OK", j.set("o:ex", "v", SetParams.setParams().ex(100)));
            assertTrue(j.ttl("o:ex") > 0 && j.ttl("o:ex") <= 100);
            JedisDataException e = assertThrows(JedisDataException.class,
                    () -> j.set("o:bad", "v", SetParams.setParams().ex(0)));
            assertTrue(e.getMessage().contains("invalid expire time"), e.getMessage());
            e = assertThrows(JedisDataException.class,
                    () -> j.sendCommand(Protocol.Command.SET, "o:bad", "v", "NX", "XX"));
            assertTrue(e.getMessage().contains("syntax error"), e.getMessage());
            e = assertThrows(JedisDataException.class,
                    () -> j.sendCommand(Protocol.Command.SET, "o:bad", "v", "EX", "ten"));
            assertTrue(e.getMessage().contains("not an integer"), e.getMessage());
            assertNull(j.get("o:bad"));
        }
    }

    @Test
    void existsMgetMset() {
        try (Jedis j = client()) {
            assertEquals("OK", j.mset("m:1", "a", "m:2", "b", "m:3", "c"));
            assertEquals(List.of("a", "b", "c"), j.mget("m:1", "m:2", "m:3"));
            List<String> withMissing = j.mget("m:1", "m:none", "m:3");
            assertEquals("a", withMissing.get(0));
            assertNull(withMissing.get(1));
            assertEquals(3, j.exists("m:1", "m:2", "m:1", "m:none"));
            JedisDataException e = assertThrows(JedisDataException.class,
                    () -> j.sendCommand(Protocol.Command.MSET, "m:1", "a", "m:2"));
            assertTrue(e.getMessage().contains("wrong number of arguments"), e.getMessage());
        }
    }

    @Test
    void incrementsAreAtomicPerKey() throws Exception {
        try (Jedis j = client()) {
            assertEquals(1, j.incr("i:a"));
            assertEquals(11, j.incrBy("i:a", 10));
            assertEquals(10, j.decr("i:a"));
            assertEquals(-5, j.decrBy("i:a", 15));
            assertEquals("-5", j.get("i:a"));
            j.set("i:text", "abc");
            JedisDataException e = assertThrows(JedisDataException.class, () -> j.incr("i:text"));
            assertTrue(e.getMessage().contains("not an integer"), e.getMessage());
            j.set("i:max", Long.toString(Long.MAX_VALUE));
            e = assertThrows(JedisDataException.class, () -> j.incr("i:max"));
            assertTrue(e.getMessage().contains("overflow"), e.getMessage());
            j.set("i:ttl", "5", SetParams.setParams().ex(1000));
            j.incr("i:ttl");
            assertTrue(j.ttl("i:ttl") > 0, "INCR dropped the time to live");
        }
        int threads = 8;
        int each = 500;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<?>> fs = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                fs.add(pool.submit(() -> {
                    try (Jedis j = client()) {
                        for (int i = 0; i < each; i++) {
                            j.incr("i:shared");
                            if (i % 50 == 0) {
                                j.set("i:other", "x");
                            }
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : fs) {
                f.get();
            }
        } finally {
            pool.shutdown();
        }
        try (Jedis j = client()) {
            assertEquals(Integer.toString(threads * each), j.get("i:shared"));
        }
    }

    @Test
    void pipelinedIncrementsFromManyClientsAddUpExactlyAndFailLikeRedis() throws Exception {
        int clients = 6;
        int rounds = 200;
        ExecutorService pool = Executors.newFixedThreadPool(clients);
        try {
            List<Future<?>> fs = new ArrayList<>();
            for (int t = 0; t < clients; t++) {
                fs.add(pool.submit(() -> {
                    try (Jedis j = client()) {
                        for (int r = 0; r < rounds; r++) {
                            // One pipeline per round: +1 +1 +7 -3 on the shared key (net +6), and a SET between.
                            Pipeline p = j.pipelined();
                            p.incr("pi:shared");
                            p.incr("pi:shared");
                            p.set("pi:other", "x");
                            p.incrBy("pi:shared", 7);
                            p.decrBy("pi:shared", 3);
                            p.sync();
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : fs) {
                f.get();
            }
        } finally {
            pool.shutdown();
        }
        try (Jedis j = client()) {
            assertEquals(Long.toString(6L * clients * rounds), j.get("pi:shared"));
            j.set("pi:min", Long.toString(Long.MIN_VALUE));
            assertEquals("ERR increment or decrement would overflow",
                    assertThrows(JedisDataException.class, () -> j.decr("pi:min")).getMessage());
            assertEquals("ERR increment or decrement would overflow",
                    assertThrows(JedisDataException.class, () -> j.incrBy("pi:min", -1)).getMessage());
            assertEquals(Long.toString(Long.MIN_VALUE), j.get("pi:min"), "a refused INCR changes nothing");
            for (String notInteger : List.of("1.5", " 1", "1 ", "+1", "", "99999999999999999999", "0x10")) {
                j.set("pi:bad", notInteger);
                assertEquals("ERR value is not an integer or out of range",
                        assertThrows(JedisDataException.class, () -> j.incr("pi:bad")).getMessage(), notInteger);
                assertEquals(notInteger, j.get("pi:bad"));
            }
            assertEquals("ERR value is not an integer or out of range", assertThrows(JedisDataException.class,
                    () -> j.sendCommand(Protocol.Command.INCRBY, "pi:n", "1.5")).getMessage());
            // DECRBY of the smallest long cannot be negated: Redis 7 refuses it so.
            assertEquals("ERR decrement would overflow", assertThrows(JedisDataException.class,
                    () -> j.decrBy("pi:n", Long.MIN_VALUE)).getMessage());
            assertNull(j.get("pi:n"));
        }
    }

    @Test
    void scanCoversEveryKeyExactlyOnce() {
        try (Jedis j = client()) {
            Set<String> expected = new HashSet<>();
            Pipeline p = j.pipelined();
            for (int i = 0; i < 2500; i++) {
                String k = "scan:" + i;
                expected.add(k);
                p.set(k, "v" + i);
            }
            for (int i = 0; i < 300; i++) {
                p.set("other:" + i, "v");
            }
            p.sync();
            // Expired keys are not returned.
            j.set("scan:expiring", "v", SetParams.setParams().px(1));
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
            List<String> seen = new ArrayList<>();
            String cursor = ScanParams.SCAN_POINTER_START;
            int calls = 0;
            do {
                ScanResult<String> r = j.scan(cursor, new ScanParams().match("scan:*").count(37));
                seen.addAll(r.getResult());
                cursor = r.getCursor();
                calls++;
            } while (!cursor.equals(ScanParams.SCAN_POINTER_START));
            assertEquals(expected.size(), seen.size(), "a key was returned twice or missed");
            assertEquals(expected, new HashSet<>(seen));
            assertTrue(calls > 2500 / 37, "COUNT not honoured: " + calls + " calls");

            // A glob that is not a plain prefix filters.
            Set<String> nines = new HashSet<>();
            cursor = "0";
            do {
                ScanResult<String> r = j.scan(cursor, new ScanParams().match("scan:*9").count(500));
                nines.addAll(r.getResult());
                cursor = r.getCursor();
            } while (!cursor.equals("0"));
            long expectNines = expected.stream().filter(k -> k.endsWith("9")).count();
            assertEquals(expectNines, nines.size());

            JedisDataException e = assertThrows(JedisDataException.class, () -> j.scan("12345"));
            assertTrue(e.getMessage().contains("invalid cursor"), e.getMessage());
        }
    }

    /**
     * SCAN MATCH with the pattern of CVE-2022-36021 over keys of 900 {@code a}s ends (a
     * backtracking matcher would spin for ever on the command thread), and another client is
     * served meanwhile. The timeout only stops the test if matching is exponential.
     */
    @Test
    void scanWithAPathologicalPatternEnds() {
        try (Jedis j = client(); Jedis other = client()) {
            Pipeline p = j.pipelined();
            for (int i = 0; i < 200; i++) {
                p.set("a".repeat(900) + i, "v");
            }
            p.set("a".repeat(900) + "b", "v");
            p.sync();
            assertTimeoutPreemptively(java.time.Duration.ofSeconds(60), () -> {
                Set<String> found = new HashSet<>();
                String cursor = "0";
                int calls = 0;
                do {
                    ScanResult<String> r = j.scan(cursor, new ScanParams().match("*a*a*a*a*a*a*a*a*a*a*b").count(1000));
                    found.addAll(r.getResult());
                    cursor = r.getCursor();
                    calls++;
                } while (!cursor.equals("0") && calls < 100_000);
                assertEquals(Set.of("a".repeat(900) + "b"), found);
                assertEquals("PONG", other.ping());
            });
        }
    }

    @Test
    void pipelining() {
        try (Jedis j = client()) {
            Pipeline p = j.pipelined();
            List<Response<String>> sets = new ArrayList<>();
            for (int i = 0; i < 20_000; i++) {
                sets.add(p.set("p:" + i, Integer.toString(i)));
            }
            List<Response<String>> gets = new ArrayList<>();
            for (int i = 0; i < 20_000; i++) {
                gets.add(p.get("p:" + i));
            }
            Response<Long> incr = p.incr("p:7");
            p.sync();
            for (int i = 0; i < 20_000; i++) {
                assertEquals("OK", sets.get(i).get());
                assertEquals(Integer.toString(i), gets.get(i).get(), "reply out of order at " + i);
            }
            assertEquals(8L, incr.get());
        }
    }

    /**
     * GETs answered at once on the event loop (their key is in the memtable) never overtake
     * commands of the same connection still waiting for the command thread: each GET sees the
     * INCR before it.
     */
    @Test
    void getsAreAnsweredInOrderBehindWrites() {
        try (Jedis j = client()) {
            j.set("order:c", "0");
            Pipeline p = j.pipelined();
            List<Response<String>> gets = new ArrayList<>();
            for (int i = 1; i <= 5000; i++) {
                p.incr("order:c");
                gets.add(p.get("order:c"));
            }
            p.sync();
            for (int i = 1; i <= 5000; i++) {
                assertEquals(Integer.toString(i), gets.get(i - 1).get(), "GET after INCR number " + i);
            }
        }
    }

    @Test
    void serverCommands() {
        try (Jedis j = client()) {
            j.set("d:1", "x");
            assertTrue(j.dbSize() >= 1);
            String info = j.info();
            for (String section : List.of("# Server", "# Clients", "# Stats", "# Persistence", "# Strata")) {
                assertTrue(info.contains(section), section + " missing from INFO");
            }
            String strata = j.info("strata");
            // The node's configuration names no policy: INFO reports the one the new store chose
            // (lsm-policies is on the node's class path), not the configuration's size-tiered.
            assertTrue(strata.contains("merge_policy:one-leveling\r\n"), strata);
            assertEquals("one-leveling", j.configGet("strata-merge-policy").get("strata-merge-policy"));
            assertTrue(strata.contains("write_amplification:"), strata);
            assertTrue(strata.contains("bytes_written_wal:"), strata);
            assertFalse(strata.contains("# Server"));
            assertTrue(j.info("stats").contains("total_commands_processed:"));
            assertEquals(java.util.Map.of("save", ""), j.configGet("save"));
            assertTrue(j.configGet("append*").containsKey("appendonly"));
            assertEquals("OK", j.select(0));
            JedisDataException e = assertThrows(JedisDataException.class, () -> j.select(1));
            assertTrue(e.getMessage().contains("out of range"), e.getMessage());
            e = assertThrows(JedisDataException.class, () -> j.auth("secret"));
            assertTrue(e.getMessage().contains("without any password configured"), e.getMessage());
            assertEquals("OK", j.clientSetname("tester"));
            assertEquals("tester", j.clientGetname());
            assertTrue(j.sendCommand(Protocol.Command.COMMAND) instanceof List<?>);
            e = assertThrows(JedisDataException.class, () -> j.sendCommand(() -> "NOSUCH".getBytes(), "a", "b"));
            assertTrue(e.getMessage().startsWith("ERR unknown command 'NOSUCH', with args beginning with: 'a' 'b'"),
                    e.getMessage());
            e = assertThrows(JedisDataException.class, () -> j.sendCommand(Protocol.Command.GET));
            assertTrue(e.getMessage().contains("wrong number of arguments for 'get'"), e.getMessage());
            // The connection survives errors.
            assertEquals("PONG", j.ping());
            assertEquals("OK", new String((byte[]) j.sendCommand(() -> "QUIT".getBytes())));
        }
        assertTrue(node.registry.find("strata.server.commands").tag("command", "set").functionTimer().count() > 0);
    }
}
