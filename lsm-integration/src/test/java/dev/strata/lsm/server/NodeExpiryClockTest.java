package dev.strata.lsm.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.strata.lsm.StoreConfig;
import dev.strata.lsm.testkit.ManualClock;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.params.SetParams;

/**
 * Time to live on the node runs on its store's clock ({@code StoreConfig.clock()}): with a
 * {@link ManualClock} the test moves time itself, so TTLs are exact and expiries need no sleep.
 */
class NodeExpiryClockTest {
    @TempDir
    Path dir;
    private final ManualClock clock = new ManualClock(1_700_000_000_000L);
    private TestNode node;

    @BeforeEach
    void start() {
        node = new TestNode(dir, StoreConfig.builder().clock(clock).build(), ServerOptions.defaults());
    }

    @AfterEach
    void stop() {
        node.close();
    }

    private Jedis client() {
        return new Jedis("127.0.0.1", node.port(), OneNodeTest.CLIENT_TIMEOUT_MILLIS);
    }

    @Test
    void ttlCountsDownWithTheStoresClock() {
        try (Jedis j = client()) {
            assertEquals("OK", j.set("o:ex", "v", SetParams.setParams().ex(100)));
            assertEquals(100, j.ttl("o:ex"));
            clock.advanceMillis(30_000);
            assertEquals(70, j.ttl("o:ex"));
            assertEquals("OK", j.set("o:pxlong", "v", SetParams.setParams().px(60_000)));
            clock.advanceMillis(1_234);
            assertEquals(60_000 - 1_234, j.pttl("o:pxlong"));
            assertEquals(-1, j.ttl(setPlain(j, "o:plain")));
            assertEquals(-2, j.ttl("o:none"));
        }
    }

    private static String setPlain(Jedis j, String key) {
        j.set(key, "v");
        return key;
    }

    @Test
    void aKeyExpiresExactlyAtItsDeadline() {
        try (Jedis j = client()) {
            assertEquals("OK", j.set("o:px", "v", SetParams.setParams().px(150)));
            clock.advanceMillis(149);
            assertTrue(j.exists("o:px"), "expired before its 150 ms");
            assertEquals(1, j.pttl("o:px"));
            clock.advanceMillis(1);
            assertFalse(j.exists("o:px"), "still there at its 150 ms");
            assertNull(j.get("o:px"), "expired value was returned");
            assertEquals(-2, j.ttl("o:px"));
            // An expired key can be set again with NX.
            assertEquals("OK", j.set("o:px", "again", SetParams.setParams().nx()));
            assertEquals("again", j.get("o:px"));
            assertEquals(-1, j.ttl("o:px"));
        }
    }

    @Test
    void anExpiredHashIsGoneAndItsVersionIsNotReused() {
        try (Jedis j = client()) {
            j.hset("x:h", Map.of("a", "1", "b", "2"));
            j.pexpire("x:h", 30);
            clock.advanceMillis(29);
            assertEquals("1", j.hget("x:h", "a"));
            clock.advanceMillis(1);
            assertNull(j.hget("x:h", "a"));
            assertEquals(0, j.hlen("x:h"));
            assertEquals("none", j.type("x:h"));
            assertEquals(1, j.hset("x:h", "c", "3"));
            assertEquals(Map.of("c", "3"), j.hgetAll("x:h"));
            assertEquals(-1, j.ttl("x:h"));
        }
    }
}
