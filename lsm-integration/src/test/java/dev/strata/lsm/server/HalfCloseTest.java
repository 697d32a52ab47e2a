package dev.strata.lsm.server;

import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A client that sends its commands and then half-closes (shutdown of its sending side, a
 * FIN) still gets every command it sent executed and answered, as redis-server does.
 */
class HalfCloseTest extends OneNodeTest {
    private static final int COMMANDS = 20_000;


    @Test
    void commandsSentBeforeAFinAreAllExecutedAndAnswered() throws IOException {
        ByteArrayOutputStream request = new ByteArrayOutputStream();
        for (int i = 0; i < COMMANDS; i++) {
            String k = "hc:" + i;
            String v = "value-" + i;
            request.writeBytes(("*3\r\n$3\r\nSET\r\n$" + k.length() + "\r\n" + k + "\r\n$" + v.length() + "\r\n" + v
                    + "\r\n").getBytes(StandardCharsets.US_ASCII));
        }
        byte[] expectedReply = "+OK\r\n".repeat(COMMANDS).getBytes(StandardCharsets.US_ASCII);
        ByteArrayOutputStream got = new ByteArrayOutputStream();
        try (Socket s = new Socket("127.0.0.1", node.port())) {
            s.setSoTimeout(60_000);
            // A reader thread drains the replies while the request is written, so neither side blocks.
            Thread reader = new Thread(() -> {
                try {
                    InputStream in = s.getInputStream();
                    byte[] buf = new byte[65536];
                    int n;
                    while ((n = in.read(buf)) >= 0) {
                        got.write(buf, 0, n);
                    }
                } catch (IOException e) {
                    got.writeBytes(("\nread failed: " + e).getBytes(StandardCharsets.US_ASCII));
                }
            }, "half-close-reader");
            reader.start();
            OutputStream out = s.getOutputStream();
            out.write(request.toByteArray());
            out.flush();
            s.shutdownOutput();
            try {
                reader.join(120_000);
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
        }
        String reply = got.toString(StandardCharsets.US_ASCII);
        assertEquals(expectedReply.length, reply.length(), "replies received: " + reply.split("\r\n").length);
        assertEquals(new String(expectedReply, StandardCharsets.US_ASCII), reply);
        try (Jedis j = node.client()) {
            for (int from = 0; from < COMMANDS; from += 1000) {
                String[] keys = new String[1000];
                for (int i = 0; i < 1000; i++) {
                    keys[i] = "hc:" + (from + i);
                }
                List<String> values = j.mget(keys);
                for (int i = 0; i < 1000; i++) {
                    assertEquals("value-" + (from + i), values.get(i), "hc:" + (from + i));
                }
            }
        }
    }
}
