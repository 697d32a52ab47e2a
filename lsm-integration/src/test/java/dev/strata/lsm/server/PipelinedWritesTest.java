package dev.strata.lsm.server;

import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A pipeline's SETs, INCRs, DECRs, INCRBYs and DECRBYs run as one write batch
 * ({@link RespCommands#writeAll}); these send each pipeline in one socket write, so the node
 * reads it whole, and check that the replies and the stored values are those of running the
 * commands one after another, as redis-server does.
 */
class PipelinedWritesTest extends OneNodeTest {
    @Test
    void eachCommandSeesThePreviousOnesEffectAndErrorsChangeNothing() throws IOException {
        try (Jedis j = client()) {
            j.hset("pw:hash", "f", "v");
        }
        String replies = pipeline(
                cmd("SET", "pw:a", "5"),
                cmd("INCR", "pw:a"),
                cmd("incr", "pw:a"),
                cmd("INCRBY", "pw:a", "10"),
                cmd("DECRBY", "pw:a", "3"),
                cmd("DECR", "pw:a"),
                cmd("INCRBY", "pw:a", "x"),               // not an integer: an error, nothing changes
                cmd("SET", "pw:s", "text"),
                cmd("INCR", "pw:s"),                      // not an integer
                cmd("INCR", "pw:new"),                    // absent: 0 + 1
                cmd("SET", "pw:max", Long.toString(Long.MAX_VALUE)),
                cmd("INCR", "pw:max"),                    // overflow: an error, the value stays
                cmd("DECRBY", "pw:a", Long.toString(Long.MIN_VALUE)),
                cmd("INCR", "pw:hash"),                   // a hash: WRONGTYPE
                cmd("SET", "pw:a", "100"),
                cmd("INCR", "pw:a"));
        assertEquals(String.join("",
                "+OK\r\n", ":6\r\n", ":7\r\n", ":17\r\n", ":14\r\n", ":13\r\n",
                "-ERR value is not an integer or out of range\r\n",
                "+OK\r\n",
                "-ERR value is not an integer or out of range\r\n",
                ":1\r\n",
                "+OK\r\n",
                "-ERR increment or decrement would overflow\r\n",
                "-ERR decrement would overflow\r\n",
                "-" + WrongTypeException.MESSAGE + "\r\n",
                "+OK\r\n", ":101\r\n"), replies);
        try (Jedis j = client()) {
            assertEquals("101", j.get("pw:a"));
            assertEquals("text", j.get("pw:s"));
            assertEquals("1", j.get("pw:new"));
            assertEquals(Long.toString(Long.MAX_VALUE), j.get("pw:max"));
            assertEquals("v", j.hget("pw:hash", "f"));
        }
    }

    @Test
    void anIncrementInABatchKeepsTheKeysTimeToLive() throws IOException {
        try (Jedis j = client()) {
            j.setex("pw:ttl", 1000, "41");
        }
        assertEquals(":42\r\n:43\r\n", pipeline(cmd("INCR", "pw:ttl"), cmd("INCR", "pw:ttl")));
        try (Jedis j = client()) {
            long ttl = j.ttl("pw:ttl");
            assertTrue(ttl > 900 && ttl <= 1000, "ttl " + ttl);
            assertEquals("43", j.get("pw:ttl"));
        }
    }

    @Test
    void aKeyTheStoreRefusesFailsAloneAndTheOthersApply() throws IOException {
        // Over the store's key limit: it refuses the whole batch, which then runs one command at a time.
        String big = "k".repeat(4000);
        String replies = pipeline(cmd("INCR", "pw:big:n"), cmd("SET", big, "v"), cmd("INCR", big),
                cmd("INCR", "pw:big:n"));
        String[] lines = replies.split("\r\n");
        assertEquals(4, lines.length, replies);
        assertEquals(":1", lines[0]);
        assertTrue(lines[1].startsWith("-ERR") && lines[1].contains("key"), lines[1]);
        assertTrue(lines[2].startsWith("-ERR") && lines[2].contains("key"), lines[2]);
        assertEquals(":2", lines[3]);
        try (Jedis j = client()) {
            assertEquals("2", j.get("pw:big:n"));
        }
    }

    private static String cmd(String... args) {
        StringBuilder sb = new StringBuilder("*").append(args.length).append("\r\n");
        for (String a : args) {
            sb.append('$').append(a.getBytes(StandardCharsets.UTF_8).length).append("\r\n").append(a).append("\r\n");
        }
        return sb.toString();
    }

    /** Sends the commands in one write, half-closes, and returns every reply up to the node's close. */
    private static String pipeline(String... commands) throws IOException {
        try (Socket s = new Socket("127.0.0.1", node.port())) {
            s.setSoTimeout(CLIENT_TIMEOUT_MILLIS);
            s.getOutputStream().write(String.join("", commands).getBytes(StandardCharsets.UTF_8));
            s.getOutputStream().flush();
            s.shutdownOutput();
            InputStream in = s.getInputStream();
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            in.transferTo(out);
            return out.toString(StandardCharsets.UTF_8);
        }
    }
}
