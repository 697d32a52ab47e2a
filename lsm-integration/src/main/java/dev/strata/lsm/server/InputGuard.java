package dev.strata.lsm.server;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.codec.redis.ArrayHeaderRedisMessage;
import io.netty.handler.codec.redis.BulkStringHeaderRedisMessage;
import io.netty.handler.codec.redis.BulkStringRedisContent;
import io.netty.handler.codec.redis.FullBulkStringRedisMessage;
import io.netty.handler.codec.redis.InlineCommandRedisMessage;
import io.netty.handler.codec.redis.LastBulkStringRedisContent;
import io.netty.util.ReferenceCountUtil;

/**
 * Enforces the node's input limits on the decoder's output, before anything is aggregated
 * in memory: array length, bulk string size, bytes per command, nesting (a command is a
 * flat array of bulk strings), and the length of a protocol line that never ends (the
 * decoder buffers such a line without limit). A violation is passed on as a
 * {@link ProtocolViolation}; reading stops and everything after it is dropped.
 *
 * <p>Two instances share one state: {@link #bytesIn()} sits before the decoder and counts
 * raw bytes; this one, after it, resets the count whenever the decoder produced a message.
 */
final class InputGuard extends ChannelInboundHandlerAdapter {
    private final ServerOptions limits;
    private long undecodedBytes;
    private boolean violated;
    /** Elements still expected by the current top-level array, 0 outside one. */
    private long remainingElements;
    private boolean inBulk;
    private long commandBytes;

    InputGuard(ServerOptions limits) {
        this.limits = limits;
    }

    /** The handler that goes before the decoder. */
    ChannelInboundHandlerAdapter bytesIn() {
        return new ChannelInboundHandlerAdapter() {
            @Override
            public void channelRead(ChannelHandlerContext ctx, Object msg) {
                if (violated) {
                    ReferenceCountUtil.release(msg);
                    return;
                }
                if (msg instanceof ByteBuf b) {
                    undecodedBytes += b.readableBytes();
                }
                ctx.fireChannelRead(msg);
                // Bulk content is passed on as soon as it arrives, so only an unterminated
                // line (a header or an inline command) makes the decoder hold bytes back.
                if (!violated && undecodedBytes > limits.maxInlineBytes() + 64L) {
                    violate(ctx, "Protocol error: too big inline request or header line (over "
                            + limits.maxInlineBytes() + " bytes)");
                }
            }

            @Override
            public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
                ctx.fireExceptionCaught(cause);
            }
        };
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        undecodedBytes = 0;
        if (msg instanceof ProtocolViolation) {
            ctx.fireChannelRead(msg);
            return;
        }
        if (violated) {
            ReferenceCountUtil.release(msg);
            return;
        }
        String problem = check(msg);
        if (problem != null) {
            ReferenceCountUtil.release(msg);
            violate(ctx, problem);
            return;
        }
        ctx.fireChannelRead(msg);
    }

    private String check(Object msg) {
        if (msg instanceof ArrayHeaderRedisMessage h) {
            if (remainingElements > 0) {
                return "Protocol error: nested arrays are not commands";
            }
            if (h.length() > limits.maxArrayLength()) {
                return "Protocol error: invalid multibulk length (" + h.length() + " elements, at most "
                        + limits.maxArrayLength() + ")";
            }
            remainingElements = Math.max(0, h.length());
            commandBytes = 0;
            return null;
        }
        if (msg instanceof BulkStringHeaderRedisMessage h) {
            if (h.bulkStringLength() > limits.maxBulkBytes()) {
                return "Protocol error: invalid bulk length (" + h.bulkStringLength() + " bytes, at most "
                        + limits.maxBulkBytes() + ")";
            }
            commandBytes += h.bulkStringLength();
            if (commandBytes > limits.maxCommandBytes()) {
                return "Protocol error: command too large (over " + limits.maxCommandBytes() + " bytes)";
            }
            inBulk = true;
            return null;
        }
        if (msg instanceof LastBulkStringRedisContent || msg instanceof FullBulkStringRedisMessage) {
            inBulk = false;
            element();
            return null;
        }
        if (msg instanceof BulkStringRedisContent) {
            return null;
        }
        if (msg instanceof InlineCommandRedisMessage) {
            if (remainingElements > 0) {
                return "Protocol error: expected '$', got an inline command";
            }
            return null;
        }
        // A simple string, error or integer: as a command's element it is not a bulk string.
        if (remainingElements > 0) {
            return "Protocol error: expected '$', got '" + msg.getClass().getSimpleName() + "'";
        }
        return null;
    }

    private void element() {
        if (remainingElements > 0) {
            remainingElements--;
        }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        if (cause instanceof DecoderException && !violated) {
            String m = cause.getCause() != null && cause.getMessage() != null && cause.getCause().getMessage() != null
                    ? cause.getCause().getMessage() : cause.getMessage();
            violate(ctx, "Protocol error: " + m);
            return;
        }
        ctx.fireExceptionCaught(cause);
    }

    private void violate(ChannelHandlerContext ctx, String message) {
        violated = true;
        ctx.channel().config().setAutoRead(false);
        ctx.fireChannelRead(new ProtocolViolation(message));
    }
}
