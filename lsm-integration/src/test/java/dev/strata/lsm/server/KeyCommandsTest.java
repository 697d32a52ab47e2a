package dev.strata.lsm.server;

import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.args.ExpiryOption;
import redis.clients.jedis.exceptions.JedisDataException;

import java.util.List;
import java.util.Set;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * EXPIRE, PEXPIRE, PERSIST, TYPE, RENAME, UNLINK, KEYS, FLUSHALL, APPEND, GETDEL, STRLEN and
 * SETEX through Jedis, with redis-server's answers. Times to live are checked as ranges
 * (the test never waits for a key to expire; a time in the past deletes at once).
 */
class KeyCommandsTest extends OneNodeTest {
    private static void assertTtlBetween(long lo, long hi, long ttl) {
        assertTrue(ttl >= lo && ttl <= hi, "ttl " + ttl + " not in [" + lo + ", " + hi + "]");
    }

    @Test
    void expirePexpirePersist() {
        try (Jedis j = client()) {
            assertEquals(0, j.expire("e:missing", 100));
            j.set("e:a", "v");
            assertEquals(-1, j.ttl("e:a"));
            assertEquals(1, j.expire("e:a", 100));
            assertTtlBetween(99, 100, j.ttl("e:a"));
            assertEquals(1, j.pexpire("e:a", 50_000));
            assertTtlBetween(49_000, 50_000, j.pttl("e:a"));
            // NX: only without a time to live; XX: only with one; GT/LT against the current one.
            assertEquals(0, j.expire("e:a", 500, ExpiryOption.NX));
            assertEquals(1, j.expire("e:a", 500, ExpiryOption.XX));
            assertEquals(0, j.expire("e:a", 400, ExpiryOption.GT));
            assertEquals(1, j.expire("e:a", 400, ExpiryOption.LT));
            assertTtlBetween(399, 400, j.ttl("e:a"));
            assertEquals("v", j.get("e:a"));
            assertEquals(1, j.persist("e:a"));
            assertEquals(-1, j.ttl("e:a"));
            assertEquals(0, j.persist("e:a"));
            assertEquals(0, j.persist("e:missing"));
            // A key without expiry has an infinite time to live: GT never holds, LT always does.
            assertEquals(0, j.expire("e:a", 100, ExpiryOption.GT));
            assertEquals(1, j.expire("e:a", 100, ExpiryOption.LT));
            // A time not in the future deletes the key.
            assertEquals(1, j.expire("e:a", 0));
            assertNull(j.get("e:a"));
            j.set("e:b", "v");
            assertEquals(1, j.pexpire("e:b", -5));
            assertEquals(0, j.exists("e:b") ? 1 : 0);
            JedisDataException e = assertThrows(JedisDataException.class,
                    () -> j.sendCommand(redis.clients.jedis.Protocol.Command.EXPIRE, "e:c", "x"));
            assertEquals("ERR value is not an integer or out of range", e.getMessage());
            j.set("e:c", "v");
            e = assertThrows(JedisDataException.class,
                    () -> j.sendCommand(redis.clients.jedis.Protocol.Command.EXPIRE, "e:c", "10", "NX", "XX"));
            assertTrue(e.getMessage().contains("not compatible"), e.getMessage());
            e = assertThrows(JedisDataException.class,
                    () -> j.sendCommand(redis.clients.jedis.Protocol.Command.EXPIRE, "e:c", "9223372036854775807"));
            assertEquals("ERR invalid expire time in 'expire' command", e.getMessage());
            // INCR and APPEND keep the time to live.
            j.set("e:n", "1");
            j.expire("e:n", 100);
            j.incr("e:n");
            j.append("e:n", "0");
            assertEquals("20", j.get("e:n"));
            assertTtlBetween(99, 100, j.ttl("e:n"));
        }
    }

    @Test
    void typeRenameUnlink() {
        try (Jedis j = client()) {
            j.set("r:a", "1");
            assertEquals("string", j.type("r:a"));
            assertEquals("none", j.type("r:missing"));
            j.expire("r:a", 100);
            j.set("r:b", "old");
            assertEquals("OK", j.rename("r:a", "r:b"));
            assertNull(j.get("r:a"));
            assertEquals("1", j.get("r:b"));
            assertTtlBetween(99, 100, j.ttl("r:b"));
            assertEquals("OK", j.rename("r:b", "r:b"));
            assertEquals("1", j.get("r:b"));
            JedisDataException e = assertThrows(JedisDataException.class, () -> j.rename("r:missing", "r:x"));
            assertEquals("ERR no such key", e.getMessage());
            j.set("r:c", "x");
            assertEquals(2, j.unlink("r:b", "r:c", "r:missing"));
            assertNull(j.get("r:c"));
        }
    }

    @Test
    void appendGetdelStrlenSetex() {
        try (Jedis j = client()) {
            assertEquals(3, j.append("s:a", "abc"));
            assertEquals(6, j.append("s:a", "def"));
            assertEquals("abcdef", j.get("s:a"));
            assertEquals(6, j.strlen("s:a"));
            assertEquals(0, j.strlen("s:missing"));
            assertEquals("abcdef", j.getDel("s:a"));
            assertNull(j.get("s:a"));
            assertNull(j.getDel("s:a"));
            assertEquals("OK", j.setex("s:t", 100, "v"));
            assertEquals("v", j.get("s:t"));
            assertTtlBetween(99, 100, j.ttl("s:t"));
            JedisDataException e = assertThrows(JedisDataException.class, () -> j.setex("s:t", 0, "v"));
            assertEquals("ERR invalid expire time in 'setex' command", e.getMessage());
            e = assertThrows(JedisDataException.class,
                    () -> j.sendCommand(redis.clients.jedis.Protocol.Command.SETEX, "s:t", "ten", "v"));
            assertEquals("ERR value is not an integer or out of range", e.getMessage());
        }
    }

    @Test
    void keysAndFlushall() {
        try (Jedis j = client()) {
            Set<String> expected = new TreeSet<>();
            for (int i = 0; i < 300; i++) {
                j.set("k:" + i, "v");
                if (Integer.toString(i).endsWith("7")) {
                    expected.add("k:" + i);
                }
            }
            j.set("other:7", "v");
            assertEquals(expected, new TreeSet<>(j.keys("k:*7")));
            assertEquals(300, j.keys("k:*").size());
            assertEquals(List.of("other:7"), List.copyOf(j.keys("o?her:[0-9]")));
            assertEquals("OK", j.flushAll());
            assertEquals(Set.of(), j.keys("*"));
            assertNull(j.get("k:1"));
            assertEquals(0, j.dbSize());
            j.set("after", "flush");
            assertEquals("flush", j.get("after"));
        }
    }
}
