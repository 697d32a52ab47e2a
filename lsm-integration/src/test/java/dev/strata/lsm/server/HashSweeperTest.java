package dev.strata.lsm.server;

import dev.strata.lsm.Cursor;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The fields deleted, expired, overwritten and renamed hashes leave behind are reclaimed by
 * the sweeper, live fields never: counted in the store's hash field range.
 */
class HashSweeperTest {
    private static long fieldRecords(TestNode node) {
        long n = 0;
        try (Cursor c = node.server.store().scan(NodeKeys.hashFields(node.server.store()), NodeKeys.HASH_FIELDS,
                RespCommands.prefixEnd(NodeKeys.HASH_FIELDS))) {
            while (c.next()) {
                n++;
            }
        }
        return n;
    }

    private static Map<String, String> fields(String prefix, int n) {
        Map<String, String> m = new HashMap<>();
        for (int i = 0; i < n; i++) {
            m.put(prefix + i, "v" + i);
        }
        return m;
    }

    @Test
    void garbageIsReclaimedAndLiveFieldsStay(@TempDir Path dir) throws Exception {
        try (TestNode node = new TestNode(dir); Jedis j = node.client()) {
            node.server.sweepHashGarbage();
            j.hset("live", fields("f", 100));
            j.hset("deleted", fields("f", 3000));
            j.hset("expired", fields("f", 10));
            j.hset("overwritten", fields("f", 20));
            j.hset("recreated", fields("old", 30));
            j.hset("renamed", fields("f", 40));
            assertEquals(3200, fieldRecords(node));
            j.del("deleted");
            j.pexpire("expired", 1);
            j.set("overwritten", "a string now");
            j.del("recreated");
            j.hset("recreated", fields("new", 5));
            j.rename("renamed", "renamed-to");
            Thread.sleep(20);
            // RENAME moved its fields (no garbage); the rest: 3000 + 10 + 20 + 30 left behind, which
            // the node's own sweeper may have begun on: what both removed is counted by the meter.
            node.server.sweepHashGarbage();
            assertEquals(100 + 5 + 40, fieldRecords(node));
            assertEquals(3060.0, node.registry.get("strata.server.hash.fields.reclaimed").functionCounter().count());
            assertEquals(fields("f", 100), j.hgetAll("live"));
            assertEquals(fields("new", 5), j.hgetAll("recreated"));
            assertEquals(fields("f", 40), j.hgetAll("renamed-to"));
            assertEquals(0, node.server.sweepHashGarbage());
            // A new hash where the garbage was starts empty.
            assertEquals(1, j.hset("deleted", "x", "1"));
            assertEquals(Map.of("x", "1"), j.hgetAll("deleted"));
        }
    }

    @Test
    void flushAllTakesEveryFieldButLeavesAHashWrittenMeanwhileWhole(@TempDir Path dir) throws Exception {
        try (TestNode node = new TestNode(dir); Jedis j = node.client()) {
            for (int i = 0; i < 50; i++) {
                j.hset("h" + i, fields("f", 40));
            }
            j.hset("gone", fields("f", 500));
            j.del("gone");
            j.set("s", "v");
            AtomicBoolean stop = new AtomicBoolean();
            Thread writer = new Thread(() -> {
                try (Jedis w = node.client()) {
                    for (int round = 0; !stop.get(); round++) {
                        w.hset("during", fields("r" + round + ":", 10));
                    }
                }
            });
            writer.start();
            try {
                assertEquals("OK", j.flushAll());
            } finally {
                stop.set(true);
                writer.join();
            }
            // The hash written while FLUSHALL ran is whole (its count and its fields agree) or gone.
            assertEquals(j.hlen("during"), j.hgetAll("during").size());
            assertEquals("OK", j.flushAll());
            assertEquals(0, fieldRecords(node));
            assertEquals(0, j.dbSize());
            assertEquals(0, j.hlen("h1"));
        }
    }

    @Test
    void theNodeSweepsOnItsOwn(@TempDir Path dir) throws Exception {
        try (TestNode node = new TestNode(dir); Jedis j = node.client()) {
            j.hset("h", fields("f", 5000));
            j.del("h");
            long deadline = System.nanoTime() + 20_000_000_000L;
            while (fieldRecords(node) > 0 && System.nanoTime() < deadline) {
                Thread.sleep(50);
            }
            assertEquals(0, fieldRecords(node));
        }
    }

    @Test
    void sweepingWhileClientsRewriteTheSameHashes(@TempDir Path dir) throws Exception {
        try (TestNode node = new TestNode(dir)) {
            AtomicBoolean stop = new AtomicBoolean();
            AtomicLong swept = new AtomicLong();
            Thread sweeper = new Thread(() -> {
                while (!stop.get()) {
                    swept.addAndGet(node.server.sweepHashGarbage());
                }
            });
            sweeper.start();
            try (Jedis j = node.client()) {
                for (int round = 0; round < 150; round++) {
                    String key = "h" + (round % 5);
                    Map<String, String> m = new HashMap<>();
                    for (int i = 0; i < 20; i++) {
                        m.put("f" + i, round + ":" + i);
                    }
                    j.del(key);
                    j.hset(key, m);
                    assertEquals(m, j.hgetAll(key), "round " + round);
                }
            } finally {
                stop.set(true);
                sweeper.join();
            }
            assertTrue(swept.get() > 0, "the sweeper ran while the hashes were rewritten");
        }
    }
}
