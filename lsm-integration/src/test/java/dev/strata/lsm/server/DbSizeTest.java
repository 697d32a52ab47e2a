package dev.strata.lsm.server;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Pipeline;

import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** DBSIZE within 25% of the key count with the keys in the memtable and after a restart (issue 29). */
class DbSizeTest {
    private static final int KEYS = 50_000;

    @TempDir
    Path dir;

    private static void assertWithin(long actual, String state) {
        assertTrue(Math.abs(actual - KEYS) <= KEYS / 4, state + ": DBSIZE " + actual + " for " + KEYS + " keys");
    }

    @Test
    void dbSizeOfSmallKeysInTheMemtableAndAfterARestart() {
        try (TestNode node = new TestNode(dir); Jedis j = new Jedis("127.0.0.1", node.port())) {
            Pipeline p = j.pipelined();
            for (int i = 0; i < KEYS; i++) {
                p.set("k" + i, "v");
            }
            p.sync();
            assertEquals("v", j.get("k" + (KEYS - 1)));
            assertWithin(j.dbSize(), "memtable");
        }
        try (TestNode node = new TestNode(dir); Jedis j = new Jedis("127.0.0.1", node.port())) {
            assertWithin(j.dbSize(), "after restart");
        }
    }
}
