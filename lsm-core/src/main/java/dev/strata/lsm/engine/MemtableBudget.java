package dev.strata.lsm.engine;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One memtable budget for every store opened with the same {@link dev.strata.lsm.SharedResources}
 * (RocksDB's {@code WriteBufferManager}): after each write, when the memtables of all of
 * them (active and immutable, until flushed) hold more than the budget, the largest active
 * memtable among them is switched out and flushed, whichever store it belongs to; and a
 * write waits while they hold more than the budget plus the largest memtable size of a
 * member (flushes are behind), up to {@link #MAX_STALL_NANOS} per write.
 *
 * <p>The switch runs on the budget's own thread ({@code strata-memtable-budget}): it takes
 * the chosen store's mutex and write-queue turn as a flush does, so no writer of another
 * store ever waits for a lock of this one. At most one switch is in flight. Thread safe.
 */
public final class MemtableBudget implements AutoCloseable {
    /** A write waits at most this long for the memtables to come back under the budget. */
    static final long MAX_STALL_NANOS = TimeUnit.SECONDS.toNanos(10);

    /** What the budget sees of a store. */
    interface Member {
        /** Bytes of all its memtables not yet flushed. */
        long memtableBytes();

        /** Bytes of its active memtables (every family's). */
        long activeBytes();

        /** Switches its non-empty active memtables out and schedules their flush; a closed store does nothing. */
        void switchForBudget();
    }

    private final long budgetBytes;
    /** 7/8 of the budget: past it, the largest active memtable is switched out. */
    private final long switchBytes;
    private final Set<Member> members = ConcurrentHashMap.newKeySet();
    private final AtomicBoolean switchPending = new AtomicBoolean();
    private final ExecutorService switcher;
    private volatile boolean closed;

    /** @param budgetBytes the budget; positive */
    public MemtableBudget(long budgetBytes) {
        if (budgetBytes <= 0) {
            throw new IllegalArgumentException("memtable budget must be positive, was " + budgetBytes);
        }
        this.budgetBytes = budgetBytes;
        this.switchBytes = budgetBytes - budgetBytes / 8;
        this.switcher = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "strata-memtable-budget");
            t.setDaemon(true);
            return t;
        });
    }

    /** The budget in bytes. */
    public long budgetBytes() {
        return budgetBytes;
    }

    /** Bytes the members' memtables hold now (a sum of approximations read without locks). */
    public long usedBytes() {
        long used = 0;
        for (Member m : members) {
            used += m.memtableBytes();
        }
        return used;
    }

    /** Stores counted now. */
    public int members() {
        return members.size();
    }

    void register(Member m) {
        if (closed) {
            throw new dev.strata.lsm.ConfigException("the shared resources were closed: no store can be opened with them");
        }
        members.add(m);
    }

    /** Stops counting {@code m} (its store closed): its share is free. */
    void unregister(Member m) {
        members.remove(m);
    }

    /** Before a write (no lock held): waits while the members hold more than the budget, asking for switches meanwhile. */
    void admit() {
        long deadline = 0;
        while (!closed && usedBytes() > budgetBytes) {
            long now = System.nanoTime();
            if (deadline == 0) {
                deadline = now + MAX_STALL_NANOS;
            } else if (now - deadline > 0) {
                return;
            }
            afterWrite();
            try {
                Thread.sleep(1);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    /** After a write (no lock held): past 7/8 of the budget, switches the largest active memtable out. */
    void afterWrite() {
        if (closed || usedBytes() <= switchBytes || !switchPending.compareAndSet(false, true)) {
            return;
        }
        Member largest = null;
        long largestBytes = 0;
        for (Member m : members) {
            long b = m.activeBytes();
            if (b > largestBytes) {
                largest = m;
                largestBytes = b;
            }
        }
        if (largest == null) {
            switchPending.set(false);
            return;
        }
        Member chosen = largest;
        try {
            switcher.execute(() -> {
                try {
                    chosen.switchForBudget();
                } catch (RuntimeException e) {
                    // A store failing or closing under the switch: the next write picks again.
                } finally {
                    switchPending.set(false);
                }
            });
        } catch (java.util.concurrent.RejectedExecutionException e) {
            switchPending.set(false);
        }
    }

    /** Stops the switch thread; stores still open keep their memtables but are no longer switched for the budget. */
    @Override
    public void close() {
        closed = true;
        switcher.shutdownNow();
        try {
            switcher.awaitTermination(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
