package dev.strata.lsm.server;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.util.concurrent.DefaultEventExecutor;
import io.netty.util.concurrent.DefaultEventExecutorGroup;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.EventExecutorGroup;

import java.util.concurrent.TimeUnit;

/**
 * The threads a node serves with: the acceptor, the event loops, the command threads and the
 * writer ({@link WriteCombiner}). A {@link RespServer} started with its own makes them and stops
 * them when it closes; threads given to it outlive it and may serve the next server. The node's
 * warm-up ({@link NodeWarmUp}) serves its scratch store with the threads the node then serves
 * with, because each of these threads spends its life in one loop, and the JIT compiles such a
 * loop while it runs (on-stack replacement), with the request path inlined into it: a thread
 * whose loop ends deoptimizes that code, and new threads would start their loops in the
 * interpreter and have them compiled again (measured: most of the warm-up's C2 work was thrown
 * away with the warm-up server's threads; docs/benchmarks.md, "Node warm-up").
 *
 * <p>Thread-safe.
 */
final class NodeThreads implements AutoCloseable {
    /** Linux's epoll transport where its native library loads (fewer system calls per request), else NIO. */
    static final boolean EPOLL = io.netty.channel.epoll.Epoll.isAvailable();

    final EventLoopGroup boss = EPOLL ? new io.netty.channel.epoll.EpollEventLoopGroup(1) : new NioEventLoopGroup(1);
    final EventLoopGroup workers;
    final EventExecutorGroup commandThreads;
    final EventExecutor writer = new DefaultEventExecutor(
            (java.util.concurrent.ThreadFactory) r -> new Thread(r, "strata-server-writer"));
    private boolean closed;

    /**
     * Threads for a node: one event loop per CPU and {@code commandThreads} command threads.
     *
     * @param commandThreads the command threads ({@link ServerOptions#commandThreads()})
     */
    NodeThreads(int commandThreads) {
        int loops = Math.max(1, Runtime.getRuntime().availableProcessors());
        this.workers = EPOLL ? new io.netty.channel.epoll.EpollEventLoopGroup(loops) : new NioEventLoopGroup(loops);
        this.commandThreads = new DefaultEventExecutorGroup(commandThreads);
    }

    /**
     * Waits until the tasks queued on the command threads, then the writer, then the event loops
     * before this call have run (each runs its tasks in order, so a no-op queued behind them runs
     * last); the threads stay up.
     */
    void awaitQueued() {
        for (EventExecutor e : commandThreads) {
            await(e);
        }
        await(writer);
        for (EventExecutor e : workers) {
            await(e);
        }
    }

    private static void await(EventExecutor e) {
        try {
            e.submit(() -> { }).awaitUninterruptibly(30, TimeUnit.SECONDS);
        } catch (java.util.concurrent.RejectedExecutionException stopped) {
            // Shutting down: nothing more will run on it.
        }
    }

    /**
     * Stops the threads: the acceptor and event loops at once, the command threads and the
     * writer once the tasks they hold have run (commands already running finish before the
     * store closes: their writes were acknowledged or will be). No interrupt: a thread
     * interrupted in file I/O would close the store's channel.
     */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        boss.shutdownGracefully(0, 2, TimeUnit.SECONDS);
        workers.shutdownGracefully(0, 2, TimeUnit.SECONDS);
        commandThreads.shutdownGracefully(0, 10, TimeUnit.SECONDS).awaitUninterruptibly(30, TimeUnit.SECONDS);
        writer.shutdownGracefully(0, 10, TimeUnit.SECONDS).awaitUninterruptibly(30, TimeUnit.SECONDS);
        boss.terminationFuture().awaitUninterruptibly(10, TimeUnit.SECONDS);
        workers.terminationFuture().awaitUninterruptibly(10, TimeUnit.SECONDS);
    }
}
