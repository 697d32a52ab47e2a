package dev.strata.lsm.server;

import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The decoder reads the same commands however the bytes are cut into reads: one byte at a
 * time, random chunks, all at once. Replay with {@code -Dstrata.test.seed=N}.
 */
class RespDecoderTest {
    private static final ServerOptions OPTIONS = ServerOptions.defaults().withLimits(100, 1 << 16, 64, 256, 1 << 20);

    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.ISO_8859_1);
    }

    /** Random commands, half RESP arrays (binary arguments), half inline (quoted where needed). */
    private static List<List<byte[]>> commands(Random rnd, ByteArrayOutputStream wire) {
        List<List<byte[]>> out = new ArrayList<>();
        for (int c = 0; c < 300; c++) {
            List<byte[]> args = new ArrayList<>();
            int n = 1 + rnd.nextInt(5);
            if (rnd.nextBoolean()) {
                wire.writeBytes(ascii("*" + n + "\r\n"));
                for (int i = 0; i < n; i++) {
                    byte[] a = new byte[rnd.nextInt(rnd.nextInt(10) == 0 ? 5000 : 20)];
                    rnd.nextBytes(a);
                    args.add(a);
                    wire.writeBytes(ascii("$" + a.length + "\r\n"));
                    wire.writeBytes(a);
                    wire.writeBytes(ascii("\r\n"));
                }
            } else {
                StringBuilder line = new StringBuilder();
                for (int i = 0; i < n; i++) {
                    String a = "w" + rnd.nextInt(1000) + (rnd.nextBoolean() ? " x\t\"y'" : "");
                    args.add(ascii(a));
                    line.append(i == 0 ? "" : " ").append('"')
                            .append(a.replace("\\", "\\\\").replace("\"", "\\\"").replace("\t", "\\t")).append('"');
                }
                wire.writeBytes(ascii(line + (rnd.nextBoolean() ? "\r\n" : "\n")));
            }
            out.add(args);
        }
        return out;
    }

    @Test
    void sameCommandsWhateverTheReadBoundaries() {
        long seed = dev.strata.lsm.testkit.TestSeed.orRandom();
        Random rnd = new Random(seed);
        ByteArrayOutputStream wire = new ByteArrayOutputStream();
        List<List<byte[]>> expected = commands(rnd, wire);
        byte[] bytes = wire.toByteArray();
        for (int mode = 0; mode < 3; mode++) {
            EmbeddedChannel ch = new EmbeddedChannel(new RespDecoder(OPTIONS));
            int at = 0;
            while (at < bytes.length) {
                int len = mode == 0 ? 1 : mode == 1 ? 1 + rnd.nextInt(700) : bytes.length;
                len = Math.min(len, bytes.length - at);
                ch.writeInbound(Unpooled.wrappedBuffer(bytes, at, len));
                at += len;
            }
            for (int c = 0; c < expected.size(); c++) {
                Object got = ch.readInbound();
                assertTrue(got instanceof List<?>, "seed " + seed + ", mode " + mode + ", command " + c + ": " + got);
                @SuppressWarnings("unchecked")
                List<byte[]> args = (List<byte[]>) got;
                assertEquals(expected.get(c).size(), args.size(), "seed " + seed + ", command " + c);
                for (int i = 0; i < args.size(); i++) {
                    assertArrayEquals(expected.get(c).get(i), args.get(i), "seed " + seed + ", command " + c);
                }
            }
            assertNull(ch.readInbound());
            ch.finishAndReleaseAll();
        }
    }

    @Test
    void violationsEndTheStream() {
        EmbeddedChannel ch = new EmbeddedChannel(new RespDecoder(OPTIONS));
        ch.writeInbound(Unpooled.wrappedBuffer(ascii("PING\r\n*1\r\n:5\r\nPING\r\n")));
        assertEquals(List.of("PING"), ((List<?>) ch.readInbound()).stream()
                .map(b -> new String((byte[]) b, StandardCharsets.US_ASCII)).toList());
        Object v = ch.readInbound();
        assertEquals(new ProtocolViolation("Protocol error: expected '$', got ':'"), v);
        // Everything after a violation is dropped.
        assertNull(ch.readInbound());
        ch.writeInbound(Unpooled.wrappedBuffer(ascii("PING\r\n")));
        assertNull(ch.readInbound());
        ch.finishAndReleaseAll();

        ch = new EmbeddedChannel(new RespDecoder(OPTIONS));
        ch.writeInbound(Unpooled.wrappedBuffer(ascii("*1\r\n$70000\r\n")));
        assertEquals(new ProtocolViolation("Protocol error: invalid bulk length (70000 bytes, at most 65536)"),
                ch.readInbound());
        ch.finishAndReleaseAll();

        ch = new EmbeddedChannel(new RespDecoder(OPTIONS));
        ch.writeInbound(Unpooled.wrappedBuffer(ascii("x".repeat(300))));
        assertEquals(new ProtocolViolation("Protocol error: too big inline request or header line (over 256 bytes)"),
                ch.readInbound());
        ch.finishAndReleaseAll();
    }
}
