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
 * policy tick), and the decider that consults the policy.
 */
final class BackgroundThreads implements AutoCloseable {
    final ScheduledExecutorService mergePool;
    final ScheduledExecutorService flushThread;
    final ExecutorService decider;

    BackgroundThreads(Path dir, int mergeThreads) {
        AtomicInteger number = new AtomicInteger();
        String name = String.valueOf(dir.getFileName());
        mergePool = Executors.newScheduledThreadPool(mergeThreads,
                r -> daemon(r, "strata-bg-" + name + "-" + number.incrementAndGet()));
        flushThread = Executors.newSingleThreadScheduledExecutor(r -> daemon(r, "strata-flush-" + name));
        decider = Executors.newSingleThreadExecutor(r -> daemon(r, "strata-policy-" + name));
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
        try {
            flushThread.awaitTermination(10, TimeUnit.SECONDS);
            mergePool.awaitTermination(10, TimeUnit.SECONDS);
            decider.awaitTermination(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
