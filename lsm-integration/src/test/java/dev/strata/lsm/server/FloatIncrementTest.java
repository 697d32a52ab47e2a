package dev.strata.lsm.server;

import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.exceptions.JedisDataException;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * INCRBYFLOAT and HINCRBYFLOAT answer as Redis 7 documents them (the examples of their
 * reference pages, the error replies, the kept TTL), through Jedis.
 */
class FloatIncrementTest extends OneNodeTest {
    private static String raw(Jedis j, Protocol.Command c, String... args) {
        return new String((byte[]) j.sendCommand(c, args), StandardCharsets.US_ASCII);
    }

    @Test
    void incrByFloatAsRedisDocumentsIt() {
        try (Jedis j = client()) {
            j.set("f:k", "10.50");
            assertEquals("10.6", raw(j, Protocol.Command.INCRBYFLOAT, "f:k", "0.1"));
            assertEquals("5.6", raw(j, Protocol.Command.INCRBYFLOAT, "f:k", "-5"));
            j.set("f:k", "5.0e3");
            assertEquals("5200", raw(j, Protocol.Command.INCRBYFLOAT, "f:k", "2.0e2"));
            assertEquals("5200", j.get("f:k"));
            assertEquals("0.1", raw(j, Protocol.Command.INCRBYFLOAT, "f:new", "0.1"));
            raw(j, Protocol.Command.INCRBYFLOAT, "f:new", "0.1");
            assertEquals("0.3", raw(j, Protocol.Command.INCRBYFLOAT, "f:new", "0.1"));
            assertEquals("3", raw(j, Protocol.Command.INCRBYFLOAT, "f:int", "3"));
            assertEquals("-0.5", raw(j, Protocol.Command.INCRBYFLOAT, "f:int", "-3.5"));
        }
    }

    @Test
    void incrByFloatErrorsChangeNothing() {
        try (Jedis j = client()) {
            j.set("fe:s", "abc");
            JedisDataException e = assertThrows(JedisDataException.class,
                    () -> j.sendCommand(Protocol.Command.INCRBYFLOAT, "fe:s", "1"));
            assertEquals("ERR value is not a valid float", e.getMessage());
            j.set("fe:n", "1.5");
            for (String bad : new String[] {"x", " 1", "1 ", "", "nan", "0x10", "1e99999", "1e-99999"}) {
                e = assertThrows(JedisDataException.class, () -> j.sendCommand(Protocol.Command.INCRBYFLOAT, "fe:n", bad),
                        "increment '" + bad + "'");
                assertEquals("ERR value is not a valid float", e.getMessage(), "increment '" + bad + "'");
            }
            e = assertThrows(JedisDataException.class, () -> j.sendCommand(Protocol.Command.INCRBYFLOAT, "fe:n", "inf"));
            assertEquals("ERR increment would produce NaN or Infinity", e.getMessage());
            j.set("fe:big", "1e4932");
            e = assertThrows(JedisDataException.class, () -> j.sendCommand(Protocol.Command.INCRBYFLOAT, "fe:big", "1e4932"));
            assertEquals("ERR increment would produce NaN or Infinity", e.getMessage());
            assertEquals("1e4932", j.get("fe:big"));
            assertEquals("1.5", j.get("fe:n"));
            j.hset("fe:h", "f", "1");
            e = assertThrows(JedisDataException.class, () -> j.sendCommand(Protocol.Command.INCRBYFLOAT, "fe:h", "1"));
            assertTrue(e.getMessage().startsWith("WRONGTYPE"), e.getMessage());
        }
    }

    @Test
    void incrByFloatKeepsTheTimeToLive() {
        try (Jedis j = client()) {
            j.setex("ft:k", 1000, "1");
            assertEquals("1.25", raw(j, Protocol.Command.INCRBYFLOAT, "ft:k", "0.25"));
            long ttl = j.ttl("ft:k");
            assertTrue(ttl > 990 && ttl <= 1000, "ttl " + ttl);
        }
    }

    @Test
    void hincrByFloatAsRedisDocumentsIt() {
        try (Jedis j = client()) {
            j.hset("fh:k", "field", "10.50");
            assertEquals("10.6", raw(j, Protocol.Command.HINCRBYFLOAT, "fh:k", "field", "0.1"));
            assertEquals("5.6", raw(j, Protocol.Command.HINCRBYFLOAT, "fh:k", "field", "-5"));
            j.hset("fh:k", "field", "5.0e3");
            assertEquals("5200", raw(j, Protocol.Command.HINCRBYFLOAT, "fh:k", "field", "2.0e2"));
            assertEquals("5200", j.hget("fh:k", "field"));
            assertEquals("2.5", raw(j, Protocol.Command.HINCRBYFLOAT, "fh:k", "other", "2.5"));
            assertEquals(2L, j.hlen("fh:k"));
            assertEquals("-1", raw(j, Protocol.Command.HINCRBYFLOAT, "fh:new", "f", "-1"));
            assertEquals(1L, j.hlen("fh:new"));
            j.hset("fh:k", "text", "abc");
            JedisDataException e = assertThrows(JedisDataException.class,
                    () -> j.sendCommand(Protocol.Command.HINCRBYFLOAT, "fh:k", "text", "1"));
            assertEquals("ERR hash value is not a float", e.getMessage());
            e = assertThrows(JedisDataException.class,
                    () -> j.sendCommand(Protocol.Command.HINCRBYFLOAT, "fh:k", "field", "one"));
            assertEquals("ERR value is not a valid float", e.getMessage());
            assertEquals("5200", j.hget("fh:k", "field"));
            j.set("fh:s", "1");
            e = assertThrows(JedisDataException.class, () -> j.sendCommand(Protocol.Command.HINCRBYFLOAT, "fh:s", "f", "1"));
            assertTrue(e.getMessage().startsWith("WRONGTYPE"), e.getMessage());
        }
    }

    @Test
    void formatKeepsSeventeenPlacesWithoutTrailingZerosOrExponent() {
        assertEquals("0", FloatIncrement.format(new BigDecimal("0.000000000000000000001")));
        assertEquals("0.00000000000000001", FloatIncrement.format(new BigDecimal("1e-17")));
        assertEquals("100000000000000000000", FloatIncrement.format(new BigDecimal("1e20")));
        assertEquals("-2.5", FloatIncrement.format(new BigDecimal("-2.50000")));
        assertEquals("0.33333333333333333", FloatIncrement.format(new BigDecimal("0.333333333333333333333")));
    }
}
