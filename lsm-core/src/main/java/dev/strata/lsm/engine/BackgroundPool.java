package dev.strata.lsm.engine;

import dev.strata.lsm.ConfigException;

import java.nio.file.Path;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The threads background jobs run on, in four lanes (RocksDB's HIGH and LOW pools, plus two
 * of Strata's own):
 *
 * <ul>
 *   <li><b>flush</b> (HIGH): flushes. A flush never queues behind a merge, so a store whose
 *       writers stall on a full memtable backlog waits for flushes only.</li>
 *   <li><b>merge</b> (LOW): merges, merge retries, deletion of obsolete tables.</li>
 *   <li><b>control</b> (one thread): policy decisions, the policy tick and the timers of
 *       retries: short jobs that never wait for another job, so a writer waiting for its
 *       store's decision never waits for a flush or a merge of another store.</li>
 *   <li><b>block</b>: the per-child sub-tasks of block compactions and the pieces of a merge
 *       split into subcompactions (all but the first), which the merge that made them waits
 *       for; they wait for nothing. Two threads in a shared pool; in a store's own, one per
 *       piece beyond the first and at least two ({@link #blockThreadsFor}).</li>
 * </ul>
 *
 * <p>No job waits for a job of a lane it can be queued behind except its own store's
 * queued merges, which it then runs itself ({@link BackgroundThreads#helpMerges}): a flush
 * that must build on a merge of its store never waits for another store's merges.
 *
 * <p>Two kinds: {@linkplain #shared(int) shared} by every store opened with the same
 * {@link dev.strata.lsm.SharedResources} (threads named {@code strata-shared-*}, alive until
 * {@link #close}), or one store's own (threads named after its directory, closed with it).
 * Threads start when first needed. Thread safe.
 */
public final class BackgroundPool implements AutoCloseable {
    /** A lane. */
    enum Lane { FLUSH, MERGE, CONTROL }

    private final ThreadPoolExecutor flush;
    private final ThreadPoolExecutor merge;
    /** Runs control jobs, and the timers (delays, the policy tick) of every lane. */
    private final ScheduledThreadPoolExecutor control;
    private final ThreadPoolExecutor block;
    /** Runs delays and periodic jobs: the control thread of a shared pool, the flush thread of a store's own. */
    private final ScheduledThreadPoolExecutor timers;
    private final boolean shared;

    private BackgroundPool(ThreadPoolExecutor flush, ThreadPoolExecutor merge, ScheduledThreadPoolExecutor control,
                           ThreadPoolExecutor block, ScheduledThreadPoolExecutor timers, boolean shared) {
        this.flush = flush;
        this.merge = merge;
        this.control = control;
        this.block = block;
        this.timers = timers;
        this.shared = shared;
    }

    /**
     * A pool for any number of stores: {@code threads} flush and merge threads, a quarter
     * (at least one) flushing and the rest merging (RocksDB's split of
     * {@code max_background_jobs}), plus the control thread and the two block-merge threads.
     *
     * @param threads flush and merge threads together, 2 to 256
     * @throws ConfigException outside that range
     */
    public static BackgroundPool shared(int threads) {
        if (threads < 2 || threads > 256) {
            throw new ConfigException("backgroundThreads of shared resources must be 2 to 256 (at least one flush "
                    + "thread and one merge thread), was " + threads);
        }
        int flushThreads = Math.max(1, threads / 4);
        ScheduledThreadPoolExecutor control = scheduled("strata-shared-policy");
        return new BackgroundPool(fixed(flushThreads, "strata-shared-flush-"),
                fixed(threads - flushThreads, "strata-shared-merge-"), control,
                fixed(2, "strata-shared-block-"), control, true);
    }

    /**
     * One store's own threads, as a store had them before pools were shared:
     * {@code strata-flush-DIR} (flushes, and the timers: the policy tick runs there),
     * {@code strata-bg-DIR-N} ({@code mergeThreads} merge threads), {@code strata-policy-DIR}
     * (decisions) and {@code strata-block-DIR-N} ({@code blockThreads}).
     */
    static BackgroundPool ofStore(Path dir, int mergeThreads, int blockThreads) {
        String name = String.valueOf(dir.getFileName());
        ScheduledThreadPoolExecutor flushAndTimers = scheduled("strata-flush-" + name);
        return new BackgroundPool(flushAndTimers, fixed(mergeThreads, "strata-bg-" + name + "-"),
                scheduled("strata-policy-" + name), fixed(blockThreads, "strata-block-" + name + "-"), flushAndTimers,
                false);
    }

    /**
     * Block-merge threads of a store's own pool for {@code subcompactions} pieces a merge: one
     * for each piece but the first (which runs on the merge's thread), so a split merge's
     * pieces all run at once, and at least the two block compactions always had.
     */
    static int blockThreadsFor(int subcompactions) {
        return Math.max(2, subcompactions - 1);
    }

    private static ThreadPoolExecutor fixed(int threads, String prefix) {
        AtomicInteger number = new AtomicInteger();
        return new ThreadPoolExecutor(threads, threads, 0, TimeUnit.MILLISECONDS, new LinkedBlockingQueue<>(),
                r -> daemon(r, prefix + number.incrementAndGet()));
    }

    private static ScheduledThreadPoolExecutor scheduled(String name) {
        ScheduledThreadPoolExecutor e = new ScheduledThreadPoolExecutor(1, r -> daemon(r, name));
        e.setRemoveOnCancelPolicy(true);
        return e;
    }

    private static Thread daemon(Runnable r, String name) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        return t;
    }

    /** Whether stores share it (closed by its owner, never by a store). */
    boolean isShared() {
        return shared;
    }

    /** Flush and merge threads (the figure {@link #shared} was given; for a store's own pool, 1 + its merge threads). */
    public int threads() {
        return flush.getCorePoolSize() + merge.getCorePoolSize();
    }

    ThreadPoolExecutor lane(Lane lane) {
        return switch (lane) {
            case FLUSH -> flush;
            case MERGE -> merge;
            case CONTROL -> control;
        };
    }

    /** Runs delays and periodic jobs: the control thread of a shared pool, the flush thread of a store's own. */
    ScheduledThreadPoolExecutor timers() {
        return timers;
    }

    /** The block-merge sub-tasks' executor. */
    ExecutorService block() {
        return block;
    }

    /** Whether {@link #close} was called. */
    boolean isShutdown() {
        return merge.isShutdown();
    }

    /**
     * Stops every thread: interrupts running jobs and waits up to 10 s for each lane to end.
     * Jobs still queued are dropped; a store still open with a shared pool so closed has its
     * background work refused from then on (its writes stop once a flush is needed).
     */
    @Override
    public void close() {
        ThreadPoolExecutor[] all = {flush, merge, control, block};
        for (ThreadPoolExecutor e : all) {
            e.shutdownNow();
        }
        try {
            for (ThreadPoolExecutor e : all) {
                e.awaitTermination(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public String toString() {
        return "BackgroundPool[flush=" + flush.getCorePoolSize() + ", merge=" + merge.getCorePoolSize()
                + (shared ? ", shared" : "") + "]";
    }
}
