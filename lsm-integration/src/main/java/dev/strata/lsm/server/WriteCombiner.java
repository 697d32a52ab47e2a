package dev.strata.lsm.server;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.redis.RedisMessage;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.DefaultEventExecutor;
import io.netty.util.concurrent.EventExecutor;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The node's one writer thread for plain writes ({@link RespCommands#batchableWrite}: SET key
 * value, INCR, DECR, INCRBY, DECRBY). A connection whose handed-off commands are all such
 * writes submits them here instead of to its command thread; the writer takes every
 * submission waiting, from every connection, and applies them as one
 * {@link RespCommands#writeAll} — one write batch, one WAL record, one wait for the store —
 * then hands each connection its replies. So concurrent clients that each send one SET and
 * wait cost one thread wake-up per group of writes rather than two or three per command (the
 * command thread's, the group commit's follower, the reply's), which is most of an
 * unpipelined write's CPU on a small machine.
 *
 * <p>Commands of one connection still run in the order they arrived: a connection has at
 * most one of its two executors (this writer or its command thread) working for it at a
 * time ({@link CommandHandler} holds a batch back until the other executor has answered).
 * Commands of different connections were never ordered against each other; one write batch
 * applies them atomically, in submission order.
 *
 * <p>Thread-safe: {@link #submit} is called by event loops; everything else runs on the
 * writer thread.
 */
final class WriteCombiner {
    /** Most commands applied as one write batch. */
    static final int MAX_COMMANDS = 1024;
    /** A write batch stops taking submissions once their arguments reach this many bytes. */
    static final long MAX_BYTES = 1 << 20;

    /** One connection's batch of plain writes and where its replies go. */
    record Submission(CommandHandler handler, ChannelHandlerContext ctx, Session session, List<Object> commands) {
    }

    private final RespCommands commands;
    private final ServerMetrics metrics;
    private final EventExecutor thread = new DefaultEventExecutor(
            (java.util.concurrent.ThreadFactory) r -> new Thread(r, "strata-server-writer"));
    private final ConcurrentLinkedQueue<Submission> queue = new ConcurrentLinkedQueue<>();
    /** A drain is queued on the writer thread and has not started taking submissions. */
    private final AtomicBoolean scheduled = new AtomicBoolean();

    WriteCombiner(RespCommands commands, ServerMetrics metrics) {
        this.commands = commands;
        this.metrics = metrics;
    }

    /** Queues {@code s}; its handler is told the replies ({@link CommandHandler#writesDone}). */
    void submit(Submission s) {
        queue.add(s);
        if (scheduled.compareAndSet(false, true)) {
            thread.execute(this::drain);
        }
    }

    /** Stops the writer once the writes queued so far are applied and answered. */
    void shutdown() {
        thread.shutdownGracefully(0, 10, TimeUnit.SECONDS).awaitUninterruptibly(30, TimeUnit.SECONDS);
    }

    private void drain() {
        // Cleared before taking: a submission added after the last poll schedules another drain.
        scheduled.set(false);
        while (!queue.isEmpty()) {
            applyOneBatch();
        }
    }

    private void applyOneBatch() {
        List<Submission> taken = new ArrayList<>();
        List<List<byte[]>> writes = new ArrayList<>();
        List<Session> sessions = new ArrayList<>();
        // Bit i: taken[i]'s commands are in writes (its connection was still open).
        java.util.BitSet ran = new java.util.BitSet();
        long bytes = 0;
        while (writes.size() < MAX_COMMANDS && bytes < MAX_BYTES) {
            Submission s = queue.peek();
            if (s == null || (!taken.isEmpty() && writes.size() + s.commands().size() > MAX_COMMANDS)) {
                break;
            }
            queue.poll();
            taken.add(s);
            // After QUIT or on a closed connection nothing more of it runs (as on its command thread).
            if (!s.ctx().channel().isOpen() || s.session().closeAfterReply) {
                continue;
            }
            ran.set(taken.size() - 1);
            for (Object msg : s.commands()) {
                @SuppressWarnings("unchecked")
                List<byte[]> args = (List<byte[]>) msg;
                writes.add(args);
                sessions.add(s.session());
                for (byte[] a : args) {
                    bytes += a.length;
                }
            }
        }
        List<RedisMessage> replies;
        long start = System.nanoTime();
        try {
            replies = writes.isEmpty() ? List.of() : commands.writeAll(sessions, writes);
        } catch (RuntimeException | Error e) {
            for (Submission s : taken) {
                s.handler().writesFailed(s.ctx(), s.commands().size());
            }
            if (e instanceof Error err) {
                throw err;
            }
            return;
        }
        CommandHandler.recordRuns(metrics, writes, System.nanoTime() - start);
        int next = 0;
        for (int t = 0; t < taken.size(); t++) {
            Submission s = taken.get(t);
            ByteBuf out = s.ctx().alloc().ioBuffer(ran.get(t) ? 16 * s.commands().size() : 0);
            if (ran.get(t)) {
                for (int k = 0; k < s.commands().size(); k++) {
                    RedisMessage reply = replies.get(next++);
                    if (reply == RespCommands.OK) {
                        out.writeBytes(ReplyWriter.OK);
                    } else {
                        ReplyWriter.write(out, reply);
                        ReferenceCountUtil.release(reply);
                    }
                }
            }
            s.handler().writesDone(s.ctx(), out, s.commands().size());
        }
    }
}
