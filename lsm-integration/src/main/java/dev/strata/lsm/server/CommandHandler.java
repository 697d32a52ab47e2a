package dev.strata.lsm.server;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import io.netty.handler.codec.redis.ErrorRedisMessage;
import io.netty.handler.codec.redis.RedisMessage;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Runs one connection's commands, in the order they arrived, on the command thread the
 * connection is bound to (store calls block, so never on the event loop), and writes each
 * reply in order; replies are flushed when the input read so far has been answered, so a
 * pipeline of commands goes out in few packets. Reading pauses while too many commands
 * wait, so a pipelining client cannot make the node buffer without bound.
 */
final class CommandHandler extends ChannelInboundHandlerAdapter {
    private final RespCommands commands;
    private final ServerMetrics metrics;
    private final Session session;
    /** Reading pauses at this many unanswered commands and resumes below {@link #RESUME_BELOW}. */
    static final int PAUSE_AT = 4096;
    static final int RESUME_BELOW = 1024;
    /** Most plain SETs applied as one write batch. */
    static final int MAX_SET_BATCH = 256;
    /** Plain SETs read but not yet run: a pipeline's consecutive SETs become one write batch. */
    private final List<List<byte[]>> pendingSets = new ArrayList<>();

    CommandHandler(RespCommands commands, ServerMetrics metrics, Session session) {
        this.commands = commands;
        this.metrics = metrics;
        this.session = session;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        try {
            if (msg instanceof ProtocolViolation v) {
                runPendingSets(ctx);
                metrics.protocolErrors.increment();
                ctx.writeAndFlush(new ErrorRedisMessage("ERR " + v.message())).addListener(ChannelFutureListener.CLOSE);
                return;
            }
            if (!ctx.channel().isOpen()) {
                return;
            }
            @SuppressWarnings("unchecked")
            List<byte[]> args = (List<byte[]>) msg;
            long start = System.nanoTime();
            String name = new String(args.get(0), StandardCharsets.US_ASCII).toUpperCase(Locale.ROOT);
            if (name.equals("SET") && args.size() == 3 && session.authenticated) {
                // Run later, with the SETs that follow it in this read, as one batch; the reply
                // is written then, still in order: any other command runs the batch first.
                pendingSets.add(args);
                if (pendingSets.size() >= MAX_SET_BATCH) {
                    runPendingSets(ctx);
                }
                return;
            }
            runPendingSets(ctx);
            RedisMessage reply;
            if (name.equals("HELLO")) {
                // RESP3 is not spoken: clients that try HELLO fall back to RESP2 on this error.
                reply = new ErrorRedisMessage("ERR unknown command 'HELLO', with args beginning with: "
                        + (args.size() > 1 ? "'" + new String(args.get(1), StandardCharsets.UTF_8) + "' " : ""));
            } else {
                reply = commands.execute(session, args);
            }
            metrics.record(name, System.nanoTime() - start);
            if (session.closeAfterReply) {
                ctx.writeAndFlush(reply).addListener(ChannelFutureListener.CLOSE);
            } else {
                ctx.write(reply);
            }
        } finally {
            if (session.pending.decrementAndGet() == RESUME_BELOW && ctx.channel().isWritable()) {
                ctx.channel().config().setAutoRead(true);
            }
        }
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        runPendingSets(ctx);
        ctx.flush();
    }

    /** Runs the waiting SETs as one write batch and writes their replies. */
    private void runPendingSets(ChannelHandlerContext ctx) {
        if (pendingSets.isEmpty()) {
            return;
        }
        long start = System.nanoTime();
        List<RedisMessage> replies = commands.setAll(session, pendingSets);
        long each = (System.nanoTime() - start) / pendingSets.size();
        pendingSets.clear();
        for (RedisMessage reply : replies) {
            metrics.record("SET", each);
            ctx.write(reply);
        }
    }

    /**
     * The client half-closed (sent a FIN): it will send nothing more, but every command it
     * sent before is executed and answered (they were run before this event, in order), and
     * the connection is closed once those replies are written.
     */
    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
        if (evt instanceof ChannelInputShutdownEvent) {
            runPendingSets(ctx);
            ctx.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(ChannelFutureListener.CLOSE);
            return;
        }
        ctx.fireUserEventTriggered(evt);
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        // A client that does not read its replies stops being read from, until it catches up.
        ctx.channel().config().setAutoRead(ctx.channel().isWritable() && session.pending.get() < PAUSE_AT);
        ctx.fireChannelWritabilityChanged();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        // Connection resets and the like: nothing to answer, just let the connection go.
        ctx.close();
    }
}
