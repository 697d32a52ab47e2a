package dev.strata.lsm.server;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import io.netty.handler.codec.redis.ErrorRedisMessage;
import io.netty.handler.codec.redis.RedisMessage;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.EventExecutor;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Runs one connection's commands in the order they arrived and writes their replies in
 * order. The event loop collects the commands decoded from one read and hands them to the
 * connection's command thread as one task (store calls block, so they never run on the
 * event loop); the command thread runs them — consecutive plain SETs and INCRs as one write
 * batch, consecutive GETs as one multi-get — and writes every reply of the batch into one buffer,
 * sent with one write and flush. So a pipeline costs one hand-off and one write per read,
 * not one per command. A read made only of plain writes goes to the node's {@link WriteCombiner}
 * instead, which applies the plain writes of every connection together; a connection's batches
 * are out with one of the two at a time, so its commands still run in order. Reading pauses
 * while too many commands wait or while the client does not read its replies, so a pipelining
 * client cannot make the node buffer without bound.
 *
 * <p>Threads: {@link #incoming} is the event loop's; {@link Session} is the command
 * thread's (read by the writer, after the event loop's hand-off), except
 * {@link Session#pending}, which all of them update.
 */
final class CommandHandler extends ChannelInboundHandlerAdapter {
    /** Reading pauses at this many unanswered commands and resumes below {@link #RESUME_BELOW}. */
    static final int PAUSE_AT = 4096;
    static final int RESUME_BELOW = 1024;
    /** Most commands handed to the command thread as one task. */
    static final int MAX_HAND_OFF = 1024;
    /** Most plain SETs applied as one write batch, and GETs read as one multi-get. */
    static final int MAX_RUN = 256;
    /** Replies are written out once this many bytes of them are collected. */
    private static final int WRITE_AT_BYTES = 256 << 10;

    private final RespCommands commands;
    private final ServerMetrics metrics;
    private final Session session;
    private final EventExecutor commandThread;
    /** The node's writer, which takes batches made only of plain writes. */
    private final WriteCombiner writer;
    /** Commands read and not yet handed to the command thread (event loop only). */
    private List<Object> incoming = new ArrayList<>();
    /**
     * Batches handed to the command thread whose replies the event loop has not yet written
     * (event loop only): while one is out, a GET must not be answered ahead of it.
     */
    private int batchesOut;
    /**
     * Replies the event loop answered itself ({@link #answerFromMemory}) since the read began,
     * collected in one buffer and written at the read's end or before anything else is written
     * (event loop only); null when there are none.
     */
    private ByteBuf answered;
    /** The connection closes once its last replies are written: nothing more is read into it (event loop only). */
    private boolean closing;
    /** Whether the batches out went to {@link #writer} rather than {@link #commandThread} (event loop only). */
    private boolean outToWriter;
    /** The client half-closed: the connection closes once every command is answered (event loop only). */
    private boolean inputShut;

    CommandHandler(RespCommands commands, ServerMetrics metrics, Session session, EventExecutor commandThread,
                   WriteCombiner writer) {
        this.commands = commands;
        this.metrics = metrics;
        this.session = session;
        this.commandThread = commandThread;
        this.writer = writer;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (closing) {
            return;
        }
        if (batchesOut == 0 && incoming.isEmpty() && answerFromMemory(ctx, msg)) {
            return;
        }
        incoming.add(msg);
        if (session.pending.incrementAndGet() >= PAUSE_AT) {
            pauseReading(ctx);
        }
        if (incoming.size() >= MAX_HAND_OFF) {
            handOff(ctx);
        }
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        if (answered != null) {
            writeAnswered(ctx);
            ctx.flush();
        }
        handOff(ctx);
    }

    /**
     * GETs and HGETs answered in {@link #answered} and the nanoseconds they took, counted in
     * {@link #metrics} when their replies are written (once per read, not per command; event loop only).
     */
    private int answeredGets;
    private int answeredHGets;
    private long answeredGetNanos;
    private long answeredHGetNanos;

    /** Writes the replies the event loop answered itself (not flushed), ahead of anything later. */
    private void writeAnswered(ChannelHandlerContext ctx) {
        recordAnswered();
        ByteBuf out = answered;
        answered = null;
        ctx.write(out);
    }

    private void recordAnswered() {
        if (answeredGets > 0) {
            metrics.record("GET", answeredGets, answeredGetNanos);
            answeredGets = 0;
            answeredGetNanos = 0;
        }
        if (answeredHGets > 0) {
            metrics.record("HGET", answeredHGets, answeredHGetNanos);
            answeredHGets = 0;
            answeredHGetNanos = 0;
        }
    }

    /**
     * On the event loop, when nothing of this connection is waiting or running on its command
     * thread: answers a GET whose key's newest version is in the store's memtables at once (and
     * an HGET whose metadata and field both are there), saving two thread hand-offs (the store reads no file for it, so the event loop does not
     * block). Returns false, having done nothing, for anything else.
     */
    private boolean answerFromMemory(ChannelHandlerContext ctx, Object msg) {
        if (!(msg instanceof List<?> l) || !session.authenticated) {
            return false;
        }
        @SuppressWarnings("unchecked")
        List<byte[]> args = (List<byte[]>) l;
        boolean hget = isHGet(args);
        if (!hget && !isGet(args)) {
            return false;
        }
        long start = System.nanoTime();
        byte[] stored;
        int at;
        try {
            dev.strata.lsm.MemoryRead r = hget ? commands.hgetFromMemory(args.get(1), args.get(2))
                    : commands.getFromMemory(args.get(1));
            if (!r.answered()) {
                return false;
            }
            stored = r.value();
            // A hash field's value is stored behind the plain header (one byte).
            at = hget ? (stored == null ? -1 : 1) : StoredValue.payloadStart(stored, commands.now());
        } catch (RuntimeException e) {
            // A closing store, a value of another format: the command thread answers with the error.
            return false;
        }
        if (answered == null) {
            answered = ctx.alloc().ioBuffer(Math.max(4096, stored == null ? 8 : stored.length + 16));
        }
        if (at < 0) {
            answered.writeBytes(ReplyWriter.NIL);
        } else {
            ReplyWriter.bulk(answered, stored, at);
        }
        if (hget) {
            answeredHGets++;
            answeredHGetNanos += System.nanoTime() - start;
        } else {
            answeredGets++;
            answeredGetNanos += System.nanoTime() - start;
        }
        if (answered.readableBytes() >= WRITE_AT_BYTES) {
            writeAnswered(ctx);
        }
        return true;
    }

    /**
     * Hands the commands read so far to the writer (when all are plain writes) or to the
     * connection's command thread. While batches are out with the other of the two, the
     * commands wait (they are handed off from {@link #sendNow} once those are answered): one
     * connection's commands never run on two threads at once.
     */
    private void handOff(ChannelHandlerContext ctx) {
        if (incoming.isEmpty() || closing) {
            return;
        }
        boolean toWriter = session.authenticated && allPlainWrites(incoming);
        if (batchesOut > 0 && toWriter != outToWriter) {
            return;
        }
        List<Object> batch = incoming;
        incoming = new ArrayList<>();
        batchesOut++;
        outToWriter = toWriter;
        if (toWriter) {
            writer.submit(new WriteCombiner.Submission(this, ctx, session, batch));
        } else {
            commandThread.execute(() -> run(ctx, batch));
        }
    }

    private static boolean allPlainWrites(List<Object> batch) {
        for (Object msg : batch) {
            if (!(msg instanceof List<?> l)) {
                return false;
            }
            @SuppressWarnings("unchecked")
            List<byte[]> args = (List<byte[]>) l;
            if (!RespCommands.batchableWrite(args)) {
                return false;
            }
        }
        return true;
    }

    /**
     * On the writer thread: the {@code count} commands of a batch this connection submitted
     * were applied and {@code out} holds their replies (empty if the connection had closed).
     * Counts the commands as answered and returns the task that sends {@code out}, which the
     * writer runs on the connection's event loop together with the other connections' of that
     * loop (one hand-off per loop and write batch).
     */
    Runnable writesDoneTask(ChannelHandlerContext ctx, ByteBuf out, int count) {
        commandsAnswered(ctx, count);
        return () -> sendNow(ctx, out, false);
    }

    /** On the writer thread: applying a batch this connection submitted failed; the connection closes. */
    void writesFailed(ChannelHandlerContext ctx, int count) {
        commandsAnswered(ctx, count);
        try {
            ctx.channel().eventLoop().execute(() -> batchesOut--);
        } catch (java.util.concurrent.RejectedExecutionException e) {
            // The node is shutting down: nothing is left to count.
        }
        ctx.close();
    }

    /** Counts {@code count} commands as answered, resuming reading where it paused for them. */
    private void commandsAnswered(ChannelHandlerContext ctx, int count) {
        int before = session.pending.getAndAdd(-count);
        if (before >= RESUME_BELOW && before - count < RESUME_BELOW && ctx.channel().isWritable()) {
            ctx.channel().config().setAutoRead(true);
        }
    }

    /**
     * Sends a batch's replies: on the event loop, in the order the batches were handed off,
     * and only then counts the batch as done (so a GET answered on the event loop cannot
     * overtake it).
     */
    private void send(ChannelHandlerContext ctx, ByteBuf out, boolean close) {
        try {
            ctx.channel().eventLoop().execute(() -> sendNow(ctx, out, close));
        } catch (java.util.concurrent.RejectedExecutionException e) {
            // The node is shutting down and its event loops are gone: nothing can be sent.
            out.release();
        }
    }

    private void sendNow(ChannelHandlerContext ctx, ByteBuf out, boolean close) {
        batchesOut--;
        if (answered != null) {
            writeAnswered(ctx); // answered before this batch was handed off: it goes first
        }
        if (close) {
            closing = true;
            ctx.writeAndFlush(out).addListener(ChannelFutureListener.CLOSE);
        } else if (out.isReadable()) {
            ctx.writeAndFlush(out);
        } else {
            out.release();
            ctx.flush();
        }
        if (batchesOut == 0) {
            // Commands held back while the other executor had batches out go now.
            handOff(ctx);
            closeIfAnswered(ctx);
        }
    }

    /** Closes a half-closed connection once every command it sent is answered. */
    private void closeIfAnswered(ChannelHandlerContext ctx) {
        if (inputShut && !closing && batchesOut == 0 && incoming.isEmpty()) {
            closing = true;
            ctx.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(ChannelFutureListener.CLOSE);
        }
    }

    /**
     * The client half-closed (sent a FIN): it will send nothing more, but every command it
     * sent before is executed and answered, and the connection is closed once those replies
     * are written ({@link #closeIfAnswered}, after the last batch's replies).
     */
    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
        if (evt instanceof ChannelInputShutdownEvent) {
            inputShut = true;
            if (answered != null) {
                writeAnswered(ctx);
                ctx.flush();
            }
            handOff(ctx);
            closeIfAnswered(ctx);
            return;
        }
        ctx.fireUserEventTriggered(evt);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        if (answered != null) {
            recordAnswered();
            answered.release(); // the connection went before they could be written
            answered = null;
        }
        ctx.fireChannelInactive();
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        // A client that does not read its replies stops being read from, until it catches up.
        if (ctx.channel().isWritable() && session.pending.get() < PAUSE_AT) {
            ctx.channel().config().setAutoRead(true);
        } else {
            pauseReading(ctx);
        }
        ctx.fireChannelWritabilityChanged();
    }

    /**
     * Stops reading (event loop only). The thread answering this connection's commands resumes
     * reading when the unanswered count falls below {@link #RESUME_BELOW} ({@link #commandsAnswered});
     * if that happened between the count this thread read and this pause, its resume came
     * first and this pause would undo it for good, so the count is read again after pausing.
     */
    private void pauseReading(ChannelHandlerContext ctx) {
        ctx.channel().config().setAutoRead(false);
        if (session.pending.get() < RESUME_BELOW && ctx.channel().isWritable()) {
            ctx.channel().config().setAutoRead(true);
        }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        // Connection resets and the like: nothing to answer, just let the connection go.
        ctx.close();
    }

    /** On the command thread: runs {@code batch} in order and sends its replies. */
    private void run(ChannelHandlerContext ctx, List<Object> batch) {
        ByteBuf out = ctx.alloc().ioBuffer(Math.min(64 << 10, 64 * batch.size()));
        boolean close = false;
        try {
            int i = 0;
            // After QUIT or a protocol error nothing more is run, also from batches read after it.
            while (i < batch.size() && ctx.channel().isOpen() && !session.closeAfterReply) {
                Object msg = batch.get(i);
                if (msg instanceof ProtocolViolation v) {
                    metrics.protocolErrors.increment();
                    ReplyWriter.write(out, new ErrorRedisMessage("ERR " + v.message()));
                    session.closeAfterReply = true;
                    close = true;
                    break;
                }
                @SuppressWarnings("unchecked")
                List<byte[]> args = (List<byte[]>) msg;
                if (session.authenticated && RespCommands.batchableWrite(args)) {
                    i = runWrites(batch, i, out);
                } else if (session.authenticated && isGet(args)) {
                    i = runGets(batch, i, out);
                } else {
                    long start = System.nanoTime();
                    String name = new String(args.get(0), StandardCharsets.US_ASCII).toUpperCase(Locale.ROOT);
                    RedisMessage reply = name.equals("HELLO")
                            // RESP3 is not spoken: clients that try HELLO fall back to RESP2 on this error.
                            ? new ErrorRedisMessage("ERR unknown command 'HELLO', with args beginning with: "
                                    + (args.size() > 1 ? "'" + new String(args.get(1), StandardCharsets.UTF_8) + "' " : ""))
                            : commands.execute(session, args);
                    metrics.record(name, System.nanoTime() - start);
                    ReplyWriter.write(out, reply);
                    ReferenceCountUtil.release(reply);
                    i++;
                    if (session.closeAfterReply) {
                        close = true;
                        break;
                    }
                }
                if (out.readableBytes() >= WRITE_AT_BYTES) {
                    // Sent at once (in order: before the rest of this batch); the batch stays out.
                    ByteBuf part = out;
                    ctx.channel().eventLoop().execute(() -> ctx.write(part));
                    out = ctx.alloc().ioBuffer(64 << 10);
                }
            }
        } catch (RuntimeException | Error e) {
            out.release();
            ctx.channel().eventLoop().execute(() -> batchesOut--);
            ctx.close();
            throw e;
        } finally {
            commandsAnswered(ctx, batch.size());
        }
        send(ctx, out, close);
    }

    /**
     * Runs the writes {@link RespCommands#batchableWrite} takes (plain SETs, INCRs ...) from
     * {@code batch[from]} on as one write batch; returns the index after them.
     */
    private int runWrites(List<Object> batch, int from, ByteBuf out) {
        int end = from;
        List<List<byte[]>> writes = new ArrayList<>();
        while (end < batch.size() && writes.size() < MAX_RUN && batch.get(end) instanceof List<?> l) {
            @SuppressWarnings("unchecked")
            List<byte[]> args = (List<byte[]>) l;
            if (!RespCommands.batchableWrite(args)) {
                break;
            }
            writes.add(args);
            end++;
        }
        long start = System.nanoTime();
        List<RedisMessage> replies = commands.writeAll(session, writes);
        recordRuns(metrics, writes, System.nanoTime() - start);
        for (RedisMessage reply : replies) {
            ReplyWriter.writeWriteReply(out, reply);
        }
        return end;
    }

    /**
     * Counts {@code writes}, applied together in {@code nanos}, per command name: each run of
     * one name at once (a pipeline's run is usually one name), its share of the time by count.
     */
    static void recordRuns(ServerMetrics metrics, List<List<byte[]>> writes, long nanos) {
        int runStart = 0;
        for (int k = 1; k <= writes.size(); k++) {
            if (k == writes.size() || !sameName(writes.get(k), writes.get(runStart))) {
                String name = new String(writes.get(runStart).get(0), StandardCharsets.US_ASCII).toUpperCase(Locale.ROOT);
                metrics.record(name, k - runStart, nanos * (k - runStart) / writes.size());
                runStart = k;
            }
        }
    }

    private static boolean sameName(List<byte[]> a, List<byte[]> b) {
        return java.util.Arrays.equals(a.get(0), b.get(0));
    }

    /** Runs the GETs from {@code batch[from]} on as one multi-get; returns the index after them. */
    private int runGets(List<Object> batch, int from, ByteBuf out) {
        int end = from;
        List<byte[]> keys = new ArrayList<>();
        while (end < batch.size() && keys.size() < MAX_RUN && batch.get(end) instanceof List<?> l) {
            @SuppressWarnings("unchecked")
            List<byte[]> args = (List<byte[]>) l;
            if (!isGet(args)) {
                break;
            }
            keys.add(args.get(1));
            end++;
        }
        long start = System.nanoTime();
        byte[][] stored;
        try {
            stored = commands.getAll(keys);
        } catch (RuntimeException e) {
            // A failed read (a corrupt table, a closing store): each GET answers for itself.
            for (byte[] key : keys) {
                RedisMessage reply = commands.execute(session, List.of("GET".getBytes(StandardCharsets.US_ASCII), key));
                ReplyWriter.write(out, reply);
                ReferenceCountUtil.release(reply);
            }
            return end;
        }
        long now = commands.now();
        for (byte[] value : stored) {
            int at;
            try {
                at = StoredValue.payloadStart(value, now);
            } catch (WrongTypeException e) {
                ReplyWriter.write(out, RespCommands.WRONGTYPE);
                continue;
            } catch (IllegalStateException e) {
                ReplyWriter.write(out, new ErrorRedisMessage("ERR " + e.getMessage()));
                continue;
            }
            if (at < 0) {
                out.writeBytes(ReplyWriter.NIL);
            } else {
                ReplyWriter.bulk(out, value, at);
            }
        }
        metrics.record("GET", keys.size(), System.nanoTime() - start);
        return end;
    }

    private static boolean isHGet(List<byte[]> args) {
        return args.size() == 3 && is(args.get(0), "HGET");
    }

    private static boolean isGet(List<byte[]> args) {
        return args.size() == 2 && is(args.get(0), "GET");
    }

    private static boolean is(byte[] name, String upper) {
        return RespCommands.is(name, upper);
    }
}
