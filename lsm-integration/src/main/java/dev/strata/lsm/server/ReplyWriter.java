package dev.strata.lsm.server;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.handler.codec.redis.ArrayRedisMessage;
import io.netty.handler.codec.redis.ErrorRedisMessage;
import io.netty.handler.codec.redis.FullBulkStringRedisMessage;
import io.netty.handler.codec.redis.IntegerRedisMessage;
import io.netty.handler.codec.redis.RedisMessage;
import io.netty.handler.codec.redis.SimpleStringRedisMessage;
import io.netty.util.ReferenceCountUtil;

import java.nio.charset.StandardCharsets;

/**
 * Writes RESP2 replies into a buffer that collects the replies of a batch of commands, so
 * that a pipeline's replies cost one buffer and one write to the connection, not one of
 * each per command. The hot replies ({@code +OK}, a bulk string taken straight from a
 * stored value, nil) are written without a reply object.
 */
final class ReplyWriter {
    private static final byte[] CRLF = {'\r', '\n'};
    static final byte[] OK = "+OK\r\n".getBytes(StandardCharsets.US_ASCII);
    static final byte[] NIL = "$-1\r\n".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] NIL_ARRAY = "*-1\r\n".getBytes(StandardCharsets.US_ASCII);

    private ReplyWriter() {
    }

    /** {@code $n\r\n} for the bulk lengths below this, ready made (a GET's reply header is one copy). */
    private static final int CACHED_HEADERS = 1024;
    private static final byte[][] BULK_HEADERS = new byte[CACHED_HEADERS][];
    private static final short CRLF_SHORT = ('\r' << 8) | '\n';

    static {
        for (int n = 0; n < CACHED_HEADERS; n++) {
            BULK_HEADERS[n] = ("$" + n + "\r\n").getBytes(StandardCharsets.US_ASCII);
        }
    }

    /** A bulk string of {@code b[from..]}. */
    static void bulk(ByteBuf out, byte[] b, int from) {
        int n = b.length - from;
        if (n < CACHED_HEADERS) {
            byte[] header = BULK_HEADERS[n];
            out.ensureWritable(header.length + n + 2);
            out.writeBytes(header);
        } else {
            out.writeByte('$');
            number(out, n);
            out.writeShort(CRLF_SHORT);
        }
        out.writeBytes(b, from, n);
        out.writeShort(CRLF_SHORT);
    }

    /**
     * Writes a write command's reply from {@link RespCommands#writeAll} and releases it: the
     * shared {@link RespCommands#OK} as its bytes, anything else through {@link #write}.
     */
    static void writeWriteReply(ByteBuf out, RedisMessage reply) {
        if (reply == RespCommands.OK) {
            out.writeBytes(OK);
        } else {
            write(out, reply);
            ReferenceCountUtil.release(reply);
        }
    }

    /** Writes {@code m} (and its elements). */
    static void write(ByteBuf out, RedisMessage m) {
        if (m instanceof SimpleStringRedisMessage s) {
            line(out, '+', s.content());
        } else if (m instanceof ErrorRedisMessage e) {
            line(out, '-', e.content());
        } else if (m instanceof IntegerRedisMessage i) {
            out.writeByte(':');
            number(out, i.value());
            out.writeBytes(CRLF);
        } else if (m instanceof FullBulkStringRedisMessage b) {
            if (b.isNull()) {
                out.writeBytes(NIL);
            } else {
                ByteBuf c = b.content();
                out.writeByte('$');
                number(out, c.readableBytes());
                out.writeBytes(CRLF);
                out.writeBytes(c, c.readerIndex(), c.readableBytes());
                out.writeBytes(CRLF);
            }
        } else if (m instanceof ArrayRedisMessage a) {
            if (a.isNull()) {
                out.writeBytes(NIL_ARRAY);
            } else {
                out.writeByte('*');
                number(out, a.children().size());
                out.writeBytes(CRLF);
                for (RedisMessage child : a.children()) {
                    write(out, child);
                }
            }
        } else {
            throw new IllegalArgumentException("not a RESP2 reply: " + m.getClass().getName());
        }
    }

    private static void line(ByteBuf out, char type, String content) {
        out.writeByte(type);
        // Replies are single lines: a CR or LF in one (an echoed argument, say) would break the stream.
        if (content.indexOf('\r') >= 0 || content.indexOf('\n') >= 0) {
            content = content.replace('\r', ' ').replace('\n', ' ');
        }
        ByteBufUtil.writeUtf8(out, content);
        out.writeBytes(CRLF);
    }

    /** {@code v} in decimal ASCII, without a String. */
    static void number(ByteBuf out, long v) {
        if (v == Long.MIN_VALUE) {
            out.writeCharSequence("-9223372036854775808", StandardCharsets.US_ASCII);
            return;
        }
        if (v < 0) {
            out.writeByte('-');
            v = -v;
        }
        if (v < 10) {
            out.writeByte((int) ('0' + v));
            return;
        }
        int digits = 0;
        for (long t = v; t > 0; t /= 10) {
            digits++;
        }
        int at = out.writerIndex() + digits;
        out.ensureWritable(digits);
        for (int i = 1; i <= digits; i++) {
            out.setByte(at - i, (int) ('0' + v % 10));
            v /= 10;
        }
        out.writerIndex(at);
    }
}
