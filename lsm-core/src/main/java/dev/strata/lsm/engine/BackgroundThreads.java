package dev.strata.lsm.engine;

import java.nio.file.Path;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The engine's threads, all daemons named after the store directory: the merge pool
 * ({@code backgroundThreads} threads), the flush lane's one thread (which also runs the
 * policy tick), the decider that consults the policy, and the block-merge pool.
 */
final class BackgroundThreads implements AutoCloseable {
    final ScheduledExecutorService mergePool;
    final ScheduledExecutorService flushThread;
    final ExecutorService decider;
    /** Sub-tasks of block compactions, one per child table (two threads: the machines this targets have two cores). */
    final ExecutorService blockMergePool;

    BackgroundThreads(Path dir, int mergeThreads) {
        AtomicInteger number = new AtomicInteger();
        String name = String.valueOf(dir.getFileName());
        mergePool = Executors.newScheduledThreadPool(mergeThreads,
                r -> daemon(r, "strata-bg-" + name + "-" + number.incrementAndGet()));
        flushThread = Executors.newSingleThreadScheduledExecutor(r -> daemon(r, "strata-flush-" + name));
        decider = Executors.newSingleThreadExecutor(r -> daemon(r, "strata-policy-" + name));
        AtomicInteger blockNumber = new AtomicInteger();
        blockMergePool = Executors.newFixedThreadPool(2,
                r -> daemon(r, "strata-block-" + name + "-" + blockNumber.incrementAndGet()));
    }

    private static Thread daemon(Runnable r, String name) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        return t;
    }

    /** Interrupts every thread and waits up to 10 s for each executor to end. */
    @Override
    public void close() {
        flushThread.shutdownNow();
        mergePool.shutdownNow();
        decider.shutdownNow();
        blockMergePool.shutdownNow();
        try {
            flushThread.awaitTermination(10, TimeUnit.SECONDS);
            mergePool.awaitTermination(10, TimeUnit.SECONDS);
            decider.awaitTermination(10, TimeUnit.SECONDS);
            blockMergePool.awaitTermination(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
