package dev.strata.lsm.server;

import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisDataException;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * Where redis-server's behaviour is what clients (telnet, nc, scripts) rely on: inline
 * commands ended by a bare LF, quoted inline arguments, and client names.
 */
class InlineCompatibilityTest extends OneNodeTest {
    /**
     * Sends {@code request}, half-closes, and returns everything the node answered until it
     * closed the connection (the node answers what it received before the FIN, then closes).
     */
    private static String exchange(String request) throws IOException {
        try (Socket s = new Socket("127.0.0.1", node.port())) {
            s.setSoTimeout(30_000);
            s.getOutputStream().write(request.getBytes(StandardCharsets.ISO_8859_1));
            s.getOutputStream().flush();
            s.shutdownOutput();
            InputStream in = s.getInputStream();
            ByteArrayOutputStream got = new ByteArrayOutputStream();
            byte[] buf = new byte[4096];
            int n;
            while ((n = in.read(buf)) >= 0) {
                got.write(buf, 0, n);
            }
            return got.toString(StandardCharsets.ISO_8859_1);
        }
    }

    @Test
    void inlineCommandsEndedByALineFeedOnly() throws IOException {
        assertEquals("+PONG\r\n+PONG\r\n$2\r\nhi\r\n", exchange("PING\nPING\r\nECHO hi\n"));
        // A RESP command after an LF-only inline one is read as RESP.
        assertEquals("+PONG\r\n+OK\r\n", exchange("PING\n*3\r\n$3\r\nSET\r\n$2\r\nlf\r\n$1\r\n1\r\n"));
        // Empty lines are skipped, as redis-server does.
        assertEquals("+PONG\r\n", exchange("\n\r\nPING\n"));
    }

    @Test
    void quotedInlineArguments() throws IOException {
        assertEquals("+OK\r\n+OK\r\n+OK\r\n", exchange("SET \"a b\" c\r\nSET 'single q' \"x\\ty\\x41\\\"\"\nSET e ''\n"));
        try (Jedis j = node.client()) {
            assertEquals("c", j.get("a b"));
            assertEquals("x\tyA\"", j.get("single q"));
            assertEquals("", j.get("e"));
        }
        assertEquals("$1\r\nc\r\n", exchange("GET   \"a b\"   \r\n"));
        // Unbalanced quotes are a protocol error (the rest of the stream cannot be trusted).
        assertEquals("+PONG\r\n-ERR Protocol error: unbalanced quotes in request\r\n",
                exchange("PING\nSET \"a b c\nPING\n"));
        // A closing quote must be followed by a space.
        assertEquals("-ERR Protocol error: unbalanced quotes in request\r\n", exchange("SET \"a\"b c\n"));
    }

    @Test
    void clientNamesWithSpacesAreRefused() {
        try (Jedis j = node.client()) {
            JedisDataException e = assertThrows(JedisDataException.class, () -> j.clientSetname("a b"));
            assertEquals("ERR Client names cannot contain spaces, newlines or special characters.", e.getMessage());
            e = assertThrows(JedisDataException.class, () -> j.clientSetname("a\nb"));
            assertEquals("ERR Client names cannot contain spaces, newlines or special characters.", e.getMessage());
            assertEquals("OK", j.clientSetname("ok-name_1"));
            assertEquals("ok-name_1", j.clientGetname());
            // An empty name clears it, as in Redis.
            assertEquals("OK", j.clientSetname(""));
            assertEquals(null, j.clientGetname());
        }
    }
}
