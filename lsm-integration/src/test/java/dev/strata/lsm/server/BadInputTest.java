package dev.strata.lsm.server;

import dev.strata.lsm.StoreConfig;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisDataException;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Hostile and broken input: each is answered with an error (and the connection closed where
 * the stream cannot be trusted any more), never an OutOfMemoryError, and the node keeps
 * serving other clients. The limits are small here so that breaking them is cheap.
 */
class BadInputTest {
    private static final int MAX_BULK = 4096;
    private static final int MAX_ARRAY = 100;
    private static final int MAX_INLINE = 1024;
    private static final int MAX_CLIENTS = 20;

    @TempDir
    static Path dir;
    static TestNode node;

    @BeforeAll
    static void start() {
        ServerOptions options = ServerOptions.defaults().withLimits(MAX_CLIENTS, MAX_BULK, MAX_ARRAY, MAX_INLINE,
                64L * MAX_BULK);
        node = new TestNode(dir, StoreConfig.builder().maxValueBytes(2000).build(), options);
    }

    @AfterAll
    static void stop() {
        node.close();
    }

    /** Sends raw bytes and returns what the node answered until it closed or went quiet. */
    private static String exchange(byte[] request, boolean expectClose) throws IOException {
        try (Socket s = new Socket("127.0.0.1", node.port())) {
            s.setSoTimeout(expectClose ? 10_000 : 1_000);
            OutputStream out = s.getOutputStream();
            try {
                out.write(request);
                out.flush();
            } catch (SocketException e) {
                // The node may close while the rest is still being sent; read what it said.
            }
            InputStream in = s.getInputStream();
            ByteArrayOutputStream got = new ByteArrayOutputStream();
            byte[] buf = new byte[8192];
            try {
                int n;
                while ((n = in.read(buf)) >= 0) {
                    got.write(buf, 0, n);
                }
                assertTrue(expectClose, "the node closed the connection: " + got);
            } catch (SocketTimeoutException e) {
                assertTrue(!expectClose, "the node did not close the connection; it said: " + got);
            } catch (SocketException e) {
                // Reset by the node after its reply: closed.
                assertTrue(expectClose, "connection reset: " + e);
            }
            return got.toString(StandardCharsets.ISO_8859_1);
        }
    }

    private static void stillServes() {
        try (Jedis j = node.client()) {
            assertEquals("PONG", j.ping());
            j.set("alive", "yes");
            assertEquals("yes", j.get("alive"));
        }
    }

    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.ISO_8859_1);
    }

    @Test
    void oversizedBulkString() throws IOException {
        String reply = exchange(ascii("*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$" + (MAX_BULK + 1) + "\r\n"), true);
        assertTrue(reply.startsWith("-ERR Protocol error: invalid bulk length"), reply);
        // A claimed length of 2^31 (more than any buffer) is refused before anything is buffered.
        reply = exchange(ascii("*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$2147483648\r\n"), true);
        assertTrue(reply.startsWith("-ERR Protocol error"), reply);
        stillServes();
    }

    @Test
    void hugeArrayHeaders() throws IOException {
        String reply = exchange(ascii("*2147483647\r\n$3\r\nGET\r\n"), true);
        assertTrue(reply.startsWith("-ERR Protocol error: invalid multibulk length"), reply);
        reply = exchange(ascii("*9223372036854775807\r\n"), true);
        assertTrue(reply.startsWith("-ERR Protocol error"), reply);
        reply = exchange(ascii("*" + (MAX_ARRAY + 1) + "\r\n"), true);
        assertTrue(reply.startsWith("-ERR Protocol error: invalid multibulk length"), reply);
        // Nested arrays are not commands.
        reply = exchange(ascii("*2\r\n*1\r\n$1\r\na\r\n$1\r\nb\r\n"), true);
        assertTrue(reply.startsWith("-ERR Protocol error"), reply);
        stillServes();
    }

    @Test
    void tooManyBytesInOneCommand() throws IOException {
        StringBuilder sb = new StringBuilder("*" + MAX_ARRAY + "\r\n$4\r\nMSET\r\n");
        String value = "x".repeat(MAX_BULK);
        for (int i = 1; i < MAX_ARRAY; i++) {
            sb.append('$').append(MAX_BULK).append("\r\n").append(value).append("\r\n");
        }
        String reply = exchange(ascii(sb.toString()), true);
        assertTrue(reply.startsWith("-ERR Protocol error: command too large"), reply);
        stillServes();
    }

    @Test
    void linesThatNeverEnd() throws IOException {
        // An inline command longer than the limit, and a header line without its end.
        String reply = exchange(ascii("GET " + "a".repeat(MAX_INLINE * 4)), true);
        assertTrue(reply.startsWith("-ERR Protocol error"), reply);
        reply = exchange(ascii("*" + "1".repeat(MAX_INLINE * 4)), true);
        assertTrue(reply.startsWith("-ERR Protocol error"), reply);
        stillServes();
    }

    @Test
    void garbage() throws IOException {
        Random rnd = new Random(42);
        for (int round = 0; round < 30; round++) {
            byte[] junk = new byte[1 + rnd.nextInt(3000)];
            rnd.nextBytes(junk);
            try (Socket s = new Socket("127.0.0.1", node.port())) {
                s.setSoTimeout(2000);
                try {
                    s.getOutputStream().write(junk);
                    // End of input after the junk: a node waiting for the rest of a frame sees the
                    // client go now rather than when the read below times out.
                    s.shutdownOutput();
                    s.getInputStream().read(new byte[4096]);
                } catch (IOException e) {
                    // Closed or quiet: both fine; what matters is that others are still served.
                }
            }
        }
        // Wrong delimiters after a bulk string.
        String reply = exchange(ascii("*1\r\n$4\r\nPINGxx"), true);
        assertTrue(reply.startsWith("-ERR Protocol error"), reply);
        // An unknown command in inline form is an ordinary error; the connection stays.
        reply = exchange(ascii("HELLO?? there\r\n"), false);
        assertTrue(reply.startsWith("-ERR unknown command"), reply);
        stillServes();
    }

    @Test
    void clientsThatDisconnectMidCommand() throws IOException, InterruptedException {
        double acceptedBefore = node.registry.get("strata.server.connections.accepted").counter().count();
        for (int i = 0; i < 20; i++) {
            try (Socket s = new Socket("127.0.0.1", node.port())) {
                s.getOutputStream().write(ascii("*3\r\n$3\r\nSET\r\n$8\r\nhalfway" + (i % 10) + "\r\n$100\r\nabc"));
                s.getOutputStream().flush();
            }
        }
        // The 20 closed clients fill every slot until the node has seen them go; a client still in
        // the accept queue is not counted yet, so first wait until the node has accepted all 20.
        for (int i = 0; i < 100 && node.registry.get("strata.server.connections.accepted").counter().count()
                < acceptedBefore + 20; i++) {
            Thread.sleep(50);
        }
        awaitConnectionsBelow(MAX_CLIENTS);
        stillServes();
        try (Jedis j = node.client()) {
            for (int i = 0; i < 10; i++) {
                assertNull(j.get("halfway" + i), "a half-sent command was executed");
            }
        }
    }

    @Test
    void pipelinedSetsWithARefusedOneAnswerEachInOrder() {
        // A pipeline's consecutive SETs run as one write batch; one the store refuses must not take the
        // others with it, and repeated keys keep their last value.
        try (Jedis j = node.client()) {
            redis.clients.jedis.Pipeline p = j.pipelined();
            List<redis.clients.jedis.Response<String>> replies = new ArrayList<>();
            replies.add(p.set("pb:1", "a"));
            replies.add(p.set("pb:1", "b"));
            replies.add(p.set("pb:big", "v".repeat(3000)));
            replies.add(p.set("pb:2", "c"));
            redis.clients.jedis.Response<String> get = p.get("pb:1");
            replies.add(p.set("pb:1", "d"));
            p.sync();
            assertEquals("OK", replies.get(0).get());
            assertEquals("OK", replies.get(1).get());
            try {
                replies.get(2).get();
                throw new AssertionError("accepted a value over the store's limit in a pipeline");
            } catch (JedisDataException e) {
                assertTrue(e.getMessage().contains("exceeds"), e.getMessage());
            }
            assertEquals("OK", replies.get(3).get());
            assertEquals("b", get.get());
            assertEquals("OK", replies.get(4).get());
            assertEquals("d", j.get("pb:1"));
            assertEquals("c", j.get("pb:2"));
            assertNull(j.get("pb:big"));
        }
    }

    @Test
    void storeLimitsAreOrdinaryErrors() {
        try (Jedis j = node.client()) {
            // Within the node's bulk limit but over the store's value limit (2000 bytes).
            try {
                j.set("big", "v".repeat(3000));
                throw new AssertionError("accepted a value over the store's limit");
            } catch (JedisDataException e) {
                assertTrue(e.getMessage().contains("exceeds"), e.getMessage());
            }
            // Over the store's key limit.
            try {
                j.set("k".repeat(4000), "v");
                throw new AssertionError("accepted a key over the store's limit");
            } catch (JedisDataException e) {
                assertTrue(e.getMessage().contains("key"), e.getMessage());
            }
            assertNull(j.get("big"));
            assertEquals("PONG", j.ping());
        }
    }

    /**
     * The value limit applies to the bytes the client sent, whatever the node stores beside
     * them (its value header, an expiry time), and the error names the client's figures.
     */
    @Test
    void valueLimitCountsTheClientsBytes() {
        try (Jedis j = node.client()) {
            String atLimit = "v".repeat(2000);
            assertEquals("OK", j.set("lim:plain", atLimit));
            assertEquals(atLimit, j.get("lim:plain"));
            assertEquals("OK", j.set("lim:ex", atLimit, redis.clients.jedis.params.SetParams.setParams().ex(100)));
            assertEquals(atLimit, j.get("lim:ex"));
            redis.clients.jedis.Pipeline p = j.pipelined();
            redis.clients.jedis.Response<String> a = p.set("lim:p1", atLimit);
            redis.clients.jedis.Response<String> b = p.set("lim:p2", atLimit);
            p.sync();
            assertEquals("OK", a.get());
            assertEquals("OK", b.get());
            JedisDataException e = org.junit.jupiter.api.Assertions.assertThrows(JedisDataException.class,
                    () -> j.set("lim:over", atLimit + "v"));
            assertEquals("ERR value of 2001 bytes exceeds the maximum value size of 2000 bytes", e.getMessage());
            e = org.junit.jupiter.api.Assertions.assertThrows(JedisDataException.class,
                    () -> j.set("lim:over", atLimit + "v", redis.clients.jedis.params.SetParams.setParams().px(100_000)));
            assertEquals("ERR value of 2001 bytes exceeds the maximum value size of 2000 bytes", e.getMessage());
            e = org.junit.jupiter.api.Assertions.assertThrows(JedisDataException.class,
                    () -> j.mset("lim:m1", "x", "lim:m2", atLimit + "v"));
            assertEquals("ERR value of 2001 bytes exceeds the maximum value size of 2000 bytes", e.getMessage());
            assertNull(j.get("lim:over"));
            assertNull(j.get("lim:m1"));
        }
    }

    @Test
    void connectionLimit() throws IOException, InterruptedException {
        List<Jedis> held = new ArrayList<>();
        try {
            // Wait until connections of earlier tests are gone, then fill every slot.
            awaitConnectionsBelow(1);
            for (int i = 0; i < MAX_CLIENTS; i++) {
                Jedis j = node.client();
                j.ping();
                held.add(j);
            }
            String reply = exchange(ascii("PING\r\n"), true);
            assertTrue(reply.startsWith("-ERR max number of clients reached"), reply);
            assertEquals("PONG", held.get(0).ping());
        } finally {
            held.forEach(Jedis::close);
        }
        awaitConnectionsBelow(MAX_CLIENTS);
        stillServes();
    }

    /**
     * Waits (up to 5 s) until the node counts fewer than {@code n} open connections: a client
     * that closed its socket holds its slot until the node has seen the close.
     */
    private static void awaitConnectionsBelow(int n) throws InterruptedException {
        for (int i = 0; i < 100; i++) {
            if (node.registry.get("strata.server.connections").gauge().value() < n) {
                return;
            }
            Thread.sleep(50);
        }
    }
}
