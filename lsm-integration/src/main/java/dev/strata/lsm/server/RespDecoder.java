package dev.strata.lsm.server;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;

import java.util.ArrayList;
import java.util.List;

/**
 * Reads commands from a connection's bytes as redis-server does, with the node's limits
 * checked before anything is buffered: a command is either a RESP array of bulk strings
 * ({@code *N\r\n$len\r\nbytes\r\n...}) or an inline line ended by LF (a CR before it is
 * dropped) whose arguments are split at blanks, with {@code "..."} (escapes {@code \n \r \t
 * \b \a \\ \" \xHH}) and {@code '...'} (escape {@code \'}) quoting. Each command is passed on
 * as a {@code List<byte[]>} of its arguments, name first; empty lines and {@code *0} or
 * {@code *-1} arrays are skipped.
 *
 * <p>Input that breaks the protocol or a limit is passed on as a {@link ProtocolViolation}
 * after the commands before it; reading stops and every later byte is dropped (as Redis
 * closes the connection, the command handler closes it after answering). Undecoded bytes
 * are bounded: a line (a header or an inline command) may be {@code maxInlineBytes} long,
 * and a bulk string is buffered only up to the length its header declared, which is at most
 * {@code maxBulkBytes}; a command's bulk strings add up to at most {@code maxCommandBytes}.
 */
final class RespDecoder extends ByteToMessageDecoder {
    private final ServerOptions limits;
    private boolean violated;
    /** The arguments of the array being read, or null between commands. */
    private List<byte[]> args;
    /** Elements the array being read still expects. */
    private long remaining;
    /** Declared length of the bulk string being read, or -1 when its header comes next. */
    private long bulkLength = -1;
    private long commandBytes;

    RespDecoder(ServerOptions limits) {
        this.limits = limits;
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        while (in.isReadable()) {
            if (violated) {
                in.skipBytes(in.readableBytes());
                return;
            }
            String problem;
            if (args == null) {
                problem = in.getByte(in.readerIndex()) == '*' ? arrayHeader(in) : inline(in, out);
            } else if (bulkLength < 0) {
                problem = bulkHeader(in);
            } else {
                problem = bulk(in, out);
            }
            if (problem == WAIT) {
                return;
            }
            if (problem != null) {
                violated = true;
                args = null;
                in.skipBytes(in.readableBytes());
                ctx.channel().config().setAutoRead(false);
                out.add(new ProtocolViolation("Protocol error: " + problem));
                return;
            }
        }
    }

    /** Returned by the steps below when more bytes are needed; null means done, else a problem. */
    private static final String WAIT = new String("wait");

    private String arrayHeader(ByteBuf in) {
        int end = lineEnd(in);
        if (end < 0) {
            return lineTooLong(in) ? tooLongLine() : WAIT;
        }
        long n = number(in, in.readerIndex() + 1, contentEnd(in, end));
        in.readerIndex(end + 1);
        if (n == Long.MIN_VALUE || n > limits.maxArrayLength()) {
            return "invalid multibulk length" + (n == Long.MIN_VALUE ? "" : " (" + n + " elements, at most "
                    + limits.maxArrayLength() + ")");
        }
        if (n <= 0) {
            return null;
        }
        args = new ArrayList<>((int) Math.min(n, 1024));
        remaining = n;
        commandBytes = 0;
        bulkLength = -1;
        return null;
    }

    private String bulkHeader(ByteBuf in) {
        byte first = in.getByte(in.readerIndex());
        if (first != '$') {
            return "expected '$', got '" + printable(first) + "'";
        }
        int end = lineEnd(in);
        if (end < 0) {
            return lineTooLong(in) ? tooLongLine() : WAIT;
        }
        long n = number(in, in.readerIndex() + 1, contentEnd(in, end));
        in.readerIndex(end + 1);
        if (n < 0 || n > limits.maxBulkBytes()) {
            return "invalid bulk length" + (n == Long.MIN_VALUE ? "" : " (" + n + " bytes, at most "
                    + limits.maxBulkBytes() + ")");
        }
        commandBytes += n;
        if (commandBytes > limits.maxCommandBytes()) {
            return "command too large (over " + limits.maxCommandBytes() + " bytes)";
        }
        bulkLength = n;
        return null;
    }

    private String bulk(ByteBuf in, List<Object> out) {
        int n = (int) bulkLength;
        if (in.readableBytes() < n + 2L) {
            return WAIT;
        }
        int at = in.readerIndex();
        if (in.getByte(at + n) != '\r' || in.getByte(at + n + 1) != '\n') {
            return "expected CRLF after a bulk string of " + n + " bytes";
        }
        byte[] b = new byte[n];
        in.readBytes(b);
        in.skipBytes(2);
        args.add(b);
        bulkLength = -1;
        if (--remaining == 0) {
            out.add(args);
            args = null;
        }
        return null;
    }

    private String inline(ByteBuf in, List<Object> out) {
        int end = lineEnd(in);
        if (end < 0) {
            return lineTooLong(in) ? tooLongLine() : WAIT;
        }
        byte[] line = new byte[contentEnd(in, end) - in.readerIndex()];
        in.readBytes(line);
        in.readerIndex(end + 1);
        List<byte[]> parsed = InlineArguments.split(line);
        if (parsed == null) {
            return "unbalanced quotes in request";
        }
        if (!parsed.isEmpty()) {
            out.add(parsed);
        }
        return null;
    }

    /** The index of the LF that ends the line at the reader index, or -1 when it has not arrived. */
    private int lineEnd(ByteBuf in) {
        int window = (int) Math.min(in.readableBytes(), limits.maxInlineBytes() + 2L);
        return in.indexOf(in.readerIndex(), in.readerIndex() + window, (byte) '\n');
    }

    /** Where a line's content ends: before its LF, and before a CR ahead of that LF. */
    private static int contentEnd(ByteBuf in, int lf) {
        return lf > in.readerIndex() && in.getByte(lf - 1) == '\r' ? lf - 1 : lf;
    }

    private boolean lineTooLong(ByteBuf in) {
        return in.readableBytes() > limits.maxInlineBytes() + 1L;
    }

    private String tooLongLine() {
        return "too big inline request or header line (over " + limits.maxInlineBytes() + " bytes)";
    }

    /** A decimal integer (optional '-') in bytes [from, to), or Long.MIN_VALUE when it is not one. */
    private static long number(ByteBuf in, int from, int to) {
        if (from >= to || to - from > 19) {
            return Long.MIN_VALUE;
        }
        boolean negative = in.getByte(from) == '-';
        int i = negative ? from + 1 : from;
        if (i == to) {
            return Long.MIN_VALUE;
        }
        long v = 0;
        for (; i < to; i++) {
            byte c = in.getByte(i);
            if (c < '0' || c > '9') {
                return Long.MIN_VALUE;
            }
            v = v * 10 + (c - '0');
        }
        return negative ? -v : v;
    }

    private static String printable(byte b) {
        return b >= 0x20 && b < 0x7f ? String.valueOf((char) b) : String.format("\\x%02x", b & 0xff);
    }
}
