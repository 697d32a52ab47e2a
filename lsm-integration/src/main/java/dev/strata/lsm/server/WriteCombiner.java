package dev.strata.lsm.server;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.redis.RedisMessage;
import io.netty.util.concurrent.EventExecutor;

import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
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
    /** The writer thread ({@link NodeThreads#writer}), which may outlive this combiner. */
    private final EventExecutor thread;
    private final ConcurrentLinkedQueue<Submission> queue = new ConcurrentLinkedQueue<>();
    /** A drain is queued on the writer thread and has not started taking submissions. */
    private final AtomicBoolean scheduled = new AtomicBoolean();

    WriteCombiner(RespCommands commands, ServerMetrics metrics, EventExecutor thread) {
        this.commands = commands;
        this.metrics = metrics;
        this.thread = thread;
    }

    /** Queues {@code s}; its handler is given the replies ({@link CommandHandler#writesDoneTask}). */
    void submit(Submission s) {
        queue.add(s);
        if (scheduled.compareAndSet(false, true)) {
            thread.execute(this::drain);
        }
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
        // The replies' sends, per event loop: one hand-off to each loop for the whole batch.
        Map<EventExecutor, List<Runnable>> sends = new IdentityHashMap<>(4);
        int next = 0;
        for (int t = 0; t < taken.size(); t++) {
            Submission s = taken.get(t);
            int n = s.commands().size();
            ByteBuf out = ran.get(t) ? replies(replies, next, n, s) : Unpooled.EMPTY_BUFFER;
            if (ran.get(t)) {
                next += n;
            }
            sends.computeIfAbsent(s.ctx().channel().eventLoop(), loop -> new ArrayList<>())
                    .add(s.handler().writesDoneTask(s.ctx(), out, n));
        }
        for (Map.Entry<EventExecutor, List<Runnable>> e : sends.entrySet()) {
            List<Runnable> tasks = e.getValue();
            try {
                e.getKey().execute(() -> {
                    for (Runnable task : tasks) {
                        task.run();
                    }
                });
            } catch (java.util.concurrent.RejectedExecutionException closing) {
                // The node is shutting down and its event loops are gone: nothing can be sent
                // (the buffers go with the process).
            }
        }
    }

    /**
     * The buffer of {@code s}'s {@code n} replies, {@code replies[from..from+n)}: when all are
     * {@code +OK} (a run of SETs), a read-only slice of {@link #OKS}, which costs no allocation
     * and no copy; otherwise a buffer written here.
     */
    private static ByteBuf replies(List<RedisMessage> replies, int from, int n, Submission s) {
        boolean allOk = n <= MAX_OKS;
        for (int k = 0; k < n && allOk; k++) {
            allOk = replies.get(from + k) == RespCommands.OK;
        }
        if (allOk) {
            return OKS.retainedSlice(0, n * ReplyWriter.OK.length);
        }
        ByteBuf out = s.ctx().alloc().ioBuffer(16 * n);
        for (int k = 0; k < n; k++) {
            RedisMessage reply = replies.get(from + k);
            ReplyWriter.writeWriteReply(out, reply);
        }
        return out;
    }

    /** Most replies taken from {@link #OKS}: a handler hands off at most this many commands at once. */
    private static final int MAX_OKS = CommandHandler.MAX_HAND_OFF;
    /**
     * {@link #MAX_OKS} {@code +OK} replies in a row, in direct memory, never freed and never
     * written after this: every all-OK reply of a batch is a slice of it (its own indexes, the
     * same bytes), which the event loops write to their sockets as it is.
     */
    private static final ByteBuf OKS;

    static {
        ByteBuf oks = Unpooled.directBuffer(MAX_OKS * ReplyWriter.OK.length);
        for (int i = 0; i < MAX_OKS; i++) {
            oks.writeBytes(ReplyWriter.OK);
        }
        OKS = Unpooled.unreleasableBuffer(oks);
    }
}
