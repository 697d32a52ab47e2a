package dev.strata.lsm.engine;

import java.nio.file.Path;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One store's background jobs on a {@link BackgroundPool}: its own pool, or one that
 * {@link dev.strata.lsm.SharedResources} share between stores. Every job submitted here is
 * tracked until it ends, so the store's close waits for its own jobs only and never stops a
 * shared pool: {@link #close} runs the store's jobs still queued itself (they find the store
 * closed and end at once, or finish a flush the store started), cancels its timers and waits
 * for its running jobs; then it closes the pool if the pool is the store's own.
 *
 * <p>A job runs once: whichever of a pool thread and a helping thread ({@link #helpMerges},
 * {@link #close}) claims it first runs it, the other skips it.
 *
 * <p>Thread safe.
 */
final class BackgroundThreads implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(BackgroundThreads.class.getName());
    /** How long {@link #close} waits for the store's running jobs. */
    private static final long CLOSE_WAIT_NANOS = TimeUnit.SECONDS.toNanos(10);

    private final Path dir;
    private final BackgroundPool pool;
    private final Set<Job> jobs = ConcurrentHashMap.newKeySet();
    private final Set<ScheduledFuture<?>> timers = ConcurrentHashMap.newKeySet();
    private volatile boolean closed;

    /**
     * @param shared a shared pool, or null for the store's own ({@code mergeThreads} merge threads,
     *     block-merge threads for merges of {@code subcompactions} pieces)
     */
    BackgroundThreads(Path dir, int mergeThreads, int subcompactions, BackgroundPool shared) {
        this.dir = dir;
        this.pool = shared != null ? shared
                : BackgroundPool.ofStore(dir, mergeThreads, BackgroundPool.blockThreadsFor(subcompactions));
    }

    /** A job of this store, claimed once by whoever runs it first. */
    private final class Job implements Runnable {
        final BackgroundPool.Lane lane;
        final Runnable task;
        final AtomicBoolean claimed = new AtomicBoolean();

        Job(BackgroundPool.Lane lane, Runnable task) {
            this.lane = lane;
            this.task = task;
        }

        @Override
        public void run() {
            if (!claimed.compareAndSet(false, true)) {
                return;
            }
            try {
                task.run();
            } catch (Throwable t) {
                LOG.log(System.Logger.Level.ERROR, "background job of " + dir + " failed", t);
            } finally {
                jobs.remove(this);
            }
        }
    }

    /** Runs {@code task} on {@code lane}. @throws RejectedExecutionException once closed, or the pool is */
    void execute(BackgroundPool.Lane lane, Runnable task) {
        if (closed) {
            throw new RejectedExecutionException("the background jobs of " + dir + " are closed");
        }
        Job job = new Job(lane, task);
        jobs.add(job);
        try {
            pool.lane(lane).execute(job);
        } catch (RejectedExecutionException e) {
            jobs.remove(job);
            throw new RejectedExecutionException("the background pool of " + dir + " is closed"
                    + (pool.isShared() ? " (its shared resources were closed while it was open)" : ""), e);
        }
    }

    /** A flush. */
    void flush(Runnable task) {
        execute(BackgroundPool.Lane.FLUSH, task);
    }

    /** A merge, a merge retry, or a deletion of obsolete tables. */
    void merge(Runnable task) {
        execute(BackgroundPool.Lane.MERGE, task);
    }

    /** A policy decision. */
    void decide(Runnable task) {
        execute(BackgroundPool.Lane.CONTROL, task);
    }

    /** Runs {@code task} on {@code lane} after {@code delayMillis}. @throws RejectedExecutionException once closed */
    void schedule(BackgroundPool.Lane lane, Runnable task, long delayMillis) {
        if (closed) {
            throw new RejectedExecutionException("the background jobs of " + dir + " are closed");
        }
        timers.removeIf(java.util.concurrent.Future::isDone);
        timers.add(pool.timers().schedule(() -> {
            try {
                execute(lane, task);
            } catch (RejectedExecutionException e) {
                // Closed meanwhile: the job is not wanted any more.
            }
        }, delayMillis, TimeUnit.MILLISECONDS));
    }

    /**
     * Runs the short {@code task} every {@code periodMillis} on the pool's timer thread (the
     * control thread of a shared pool, the flush thread of a store's own) until close.
     */
    void tick(Runnable task, long periodMillis) {
        if (closed) {
            throw new RejectedExecutionException("the background jobs of " + dir + " are closed");
        }
        timers.add(pool.timers().scheduleWithFixedDelay(() -> {
            if (!closed) {
                task.run();
            }
        }, periodMillis, periodMillis, TimeUnit.MILLISECONDS));
    }

    /** The executor of block-compaction sub-tasks (which wait for nothing). */
    ExecutorService blockPool() {
        return pool.block();
    }

    /** Whether {@link #close} began (or the pool was closed). */
    boolean isShutdown() {
        return closed || pool.isShutdown();
    }

    /**
     * Runs this store's merge jobs that no thread has started yet, here and now (no lock
     * held): a job that must wait for a merge of its store (a flush building on it) then
     * waits for its store's merges only, never for the other stores' queued ahead of them
     * on a shared pool.
     */
    void helpMerges() {
        runQueued(BackgroundPool.Lane.MERGE);
    }

    /** Runs this store's jobs of {@code lane} (all lanes if null) that no thread has started yet. */
    private void runQueued(BackgroundPool.Lane lane) {
        for (Job job : jobs) {
            if ((lane == null || job.lane == lane) && !job.claimed.get()) {
                pool.lane(job.lane).remove(job);
                job.run();
            }
        }
    }

    /** Runs this store's queued jobs of every lane here and now (close: they find the store closed). */
    void runQueued() {
        runQueued(null);
    }

    /**
     * Ends the store's background work (its mutex is marked closed, no lock held): refuses
     * new jobs, cancels its timers, runs its queued jobs here, waits up to 10 s for its
     * running ones, and closes the pool if it is the store's own. A shared pool goes on.
     */
    @Override
    public void close() {
        closed = true;
        for (ScheduledFuture<?> t : timers) {
            t.cancel(false);
        }
        timers.clear();
        long deadline = System.nanoTime() + CLOSE_WAIT_NANOS;
        boolean interrupted = false;
        while (!jobs.isEmpty() && System.nanoTime() - deadline < 0) {
            runQueued(null);
            if (!jobs.isEmpty()) {
                try {
                    Thread.sleep(1);
                } catch (InterruptedException e) {
                    interrupted = true;
                    break;
                }
            }
        }
        if (!jobs.isEmpty()) {
            LOG.log(System.Logger.Level.WARNING, jobs.size() + " background job(s) of " + dir
                    + " still run after close");
        }
        if (!pool.isShared()) {
            pool.close();
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }
}
