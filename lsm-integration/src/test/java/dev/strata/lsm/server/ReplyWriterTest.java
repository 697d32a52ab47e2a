package dev.strata.lsm.server;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** {@link ReplyWriter#bulk}: the RESP bulk string of a stored value's payload, on both sides of the ready-made headers. */
class ReplyWriterTest {
    @Test
    void bulkStringsOfEveryLengthAroundTheReadyMadeHeaders() {
        for (int n : new int[] {0, 1, 9, 10, 100, 999, 1023, 1024, 1025, 65_536}) {
            for (int from : new int[] {0, 1, 3}) {
                byte[] stored = new byte[from + n];
                Arrays.fill(stored, 0, from, (byte) 'h');
                for (int i = from; i < stored.length; i++) {
                    stored[i] = (byte) ('a' + i % 26);
                }
                ByteBuf out = Unpooled.buffer(1);
                out.writeByte('>'); // whatever the buffer holds before stays
                ReplyWriter.bulk(out, stored, from);
                String expected = ">$" + n + "\r\n" + new String(stored, from, n, StandardCharsets.US_ASCII) + "\r\n";
                assertEquals(expected, out.toString(StandardCharsets.US_ASCII), "length " + n + " from " + from);
                out.release();
            }
        }
    }
}
