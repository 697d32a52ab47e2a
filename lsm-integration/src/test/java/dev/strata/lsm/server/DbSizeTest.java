package dev.strata.lsm.server;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Pipeline;

import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * DBSIZE within 25% of the key count with the keys in the memtable and after a restart (issue
 * 29); a hash counts as one key however many fields it has (issue 34).
 */
class DbSizeTest {
    private static final int KEYS = 50_000;

    @TempDir
    Path dir;

    private static void assertWithin(long actual, String state) {
        assertTrue(Math.abs(actual - KEYS) <= KEYS / 4, state + ": DBSIZE " + actual + " for " + KEYS + " keys");
    }

    @Test
    void dbSizeOfSmallKeysInTheMemtableAndAfterARestart() {
        try (TestNode node = new TestNode(dir); Jedis j = node.client()) {
            Pipeline p = j.pipelined();
            for (int i = 0; i < KEYS; i++) {
                p.set("k" + i, "v");
            }
            p.sync();
            assertEquals("v", j.get("k" + (KEYS - 1)));
            assertWithin(j.dbSize(), "memtable");
        }
        try (TestNode node = new TestNode(dir); Jedis j = node.client()) {
            assertWithin(j.dbSize(), "after restart");
        }
    }

    @Test
    void aHashCountsOnceWhateverItsFields() {
        int strings = 600;
        int fields = 20_000;
        try (TestNode node = new TestNode(dir); Jedis j = node.client()) {
            Pipeline p = j.pipelined();
            for (int i = 0; i < strings; i++) {
                p.set("s" + i, "v");
            }
            java.util.Map<String, String> batch = new java.util.HashMap<>();
            for (int i = 0; i < fields; i++) {
                batch.put("f" + i, "v");
                if (batch.size() == 1000) {
                    p.hset("h", batch);
                    batch = new java.util.HashMap<>();
                }
            }
            p.sync();
            assertEquals(fields, j.hlen("h"));
            long size = j.dbSize();
            assertTrue(Math.abs(size - (strings + 1)) <= (strings + 1) / 100,
                    "DBSIZE " + size + " for " + strings + " strings and one hash of " + fields + " fields");
        }
    }
}
