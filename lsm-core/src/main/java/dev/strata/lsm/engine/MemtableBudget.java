package dev.strata.lsm.engine;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One memtable budget for every store opened with the same {@link dev.strata.lsm.SharedResources}
 * (RocksDB's {@code WriteBufferManager}): after each write, when the active memtables of all of
 * them hold more than 7/8 of the budget, or all their memtables (active and immutable, until
 * flushed) hold the budget and the active ones at least half of it, the largest active memtable
 * among them is switched out and flushed, whichever store it belongs to; and a write waits while
 * all the memtables hold more than the budget (flushes are behind), up to
 * {@link #MAX_STALL_NANOS} per write, woken when a flush gives bytes back. As in RocksDB's
 * {@code ShouldFlush}, memtables already switched out and waiting for their flush do not make
 * more switches: with many stores, switching on the total alone switched out one small active
 * memtable after another while the flushes were behind (33,000 switches, each a WAL segment and
 * a tiny flush, in 100 stores loading 300 MB through a 64 MiB budget).
 *
 * <p>Accounting: each store is counted through its {@link Share}, which holds the bytes the
 * store last reported and adds the change to the budget's running total when the store
 * {@linkplain Share#refresh() refreshes} it (after each write, and whenever a memtable is
 * switched out, flushed or dropped); its {@linkplain Share#release() release} (the store
 * closes) takes its bytes out. So a write costs O(1) here however many stores share the
 * budget; only choosing the memtable to switch looks at every store, once per switch.
 *
 * <p>The switch runs on the budget's own thread ({@code strata-memtable-budget}): it takes
 * the chosen store's mutex and write-queue turn as a flush does, so no writer of another
 * store ever waits for a lock of this one. At most one switch is in flight. Thread safe.
 */
public final class MemtableBudget implements AutoCloseable {
    /** A write waits at most this long for the memtables to come back under the budget. */
    static final long MAX_STALL_NANOS = TimeUnit.SECONDS.toNanos(10);
    /**
     * A waiting write looks again this often even if nothing woke it: a switch it asked for may
     * have found nothing to switch, and it then asks again.
     */
    private static final long RECHECK_MILLIS = 10;

    /** What the budget sees of a store. */
    interface Member {
        /** Bytes of all its memtables not yet flushed. */
        long memtableBytes();

        /** Bytes of its active memtables (every family's). */
        long activeBytes();

        /** Switches its non-empty active memtables out and schedules their flush; a closed store does nothing. */
        void switchForBudget();
    }

    /**
     * A store's share of the budget: the bytes it reported last, which the budget's total
     * counts until {@link #release()}. Thread safe; {@link #refresh()} may run on several
     * threads of the store at once (a writer, a flush), and the last to run reads the
     * memtables after every change that happened before it.
     */
    final class Share {
        private final Member member;
        /** Guarded by this. */
        private long reported;
        /** The active memtables' part of {@link #reported}; guarded by this. */
        private long reportedActive;
        /** Guarded by this. */
        private boolean released;

        private Share(Member member) {
            this.member = member;
        }

        /** Reads the store's memtable bytes and counts the change since the last report. */
        void refresh() {
            long delta;
            long activeDelta;
            synchronized (this) {
                if (released) {
                    return;
                }
                long now = member.memtableBytes();
                long activeNow = member.activeBytes();
                delta = now - reported;
                activeDelta = activeNow - reportedActive;
                reported = now;
                reportedActive = activeNow;
            }
            if (activeDelta != 0) {
                active.addAndGet(activeDelta);
            }
            changed(delta);
        }

        /** Takes the store's bytes out of the budget for good (it closed); later refreshes do nothing. Idempotent. */
        void release() {
            long delta;
            synchronized (this) {
                if (released) {
                    return;
                }
                released = true;
                delta = -reported;
                active.addAndGet(-reportedActive);
                reported = 0;
                reportedActive = 0;
                members.remove(this);
            }
            changed(delta);
        }

        /** The bytes counted for the store now. */
        synchronized long reportedBytes() {
            return reported;
        }

        @Override
        public String toString() {
            return "Share[" + member + "]";
        }
    }

    private final long budgetBytes;
    /** 7/8 of the budget: past it, the largest active memtable is switched out. */
    private final long switchBytes;
    private final Set<Share> members = ConcurrentHashMap.newKeySet();
    /** The members' reported bytes together. */
    private final AtomicLong used = new AtomicLong();
    /** The active memtables' part of {@link #used}. */
    private final AtomicLong active = new AtomicLong();
    /** Writes waiting in {@link #admit()} for room; a release wakes them through {@link #room} only if any. */
    private final AtomicInteger waiting = new AtomicInteger();
    private final Object room = new Object();
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

    /** Bytes the members' memtables held when they last reported (the running total; no member is read). */
    public long usedBytes() {
        return used.get();
    }

    /** Bytes the members' active memtables held when they last reported (no member is read). */
    long activeBytes() {
        return active.get();
    }

    /** Stores counted now. */
    public int members() {
        return members.size();
    }

    /**
     * Counts {@code m} from now on, with the bytes its memtables hold now; the store refreshes
     * its share on every change of them and releases it when it closes.
     *
     * @throws dev.strata.lsm.ConfigException when the budget is closed
     */
    Share register(Member m) {
        if (closed) {
            throw new dev.strata.lsm.ConfigException("the shared resources were closed: no store can be opened with them");
        }
        Share s = new Share(m);
        members.add(s);
        s.refresh();
        return s;
    }

    private void changed(long delta) {
        if (delta == 0) {
            return;
        }
        used.addAndGet(delta);
        if (delta < 0 && waiting.get() > 0) {
            synchronized (room) {
                room.notifyAll();
            }
        }
    }

    /**
     * Before a write (no lock held): waits while the members hold more than the budget, asking
     * for switches meanwhile, until a flush or a closing store gives bytes back, or
     * {@link #MAX_STALL_NANOS} passed.
     */
    void admit() {
        if (closed || used.get() <= budgetBytes) {
            return;
        }
        long deadline = System.nanoTime() + MAX_STALL_NANOS;
        waiting.incrementAndGet();
        try {
            while (!closed && used.get() > budgetBytes) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return;
                }
                afterWrite();
                synchronized (room) {
                    // Checked again under the monitor: a release between the check above and
                    // the wait sees waiting > 0 and notifies after this thread waits.
                    if (closed || used.get() <= budgetBytes) {
                        return;
                    }
                    room.wait(Math.max(1, Math.min(RECHECK_MILLIS, TimeUnit.NANOSECONDS.toMillis(left))));
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            waiting.decrementAndGet();
        }
    }

    /**
     * Whether a memtable should be switched out now: the active memtables hold more than 7/8
     * of the budget, or all of them hold the budget and the active ones at least half of it
     * (when more than half is already waiting for flushes, more switches would not help).
     */
    private boolean shouldSwitch() {
        long activeNow = active.get();
        return activeNow > switchBytes || (used.get() >= budgetBytes && activeNow >= budgetBytes / 2);
    }

    /** After a write (no lock held): switches the largest active memtable out when {@link #shouldSwitch()}. */
    void afterWrite() {
        if (closed || !shouldSwitch() || !switchPending.compareAndSet(false, true)) {
            return;
        }
        Member largest = null;
        long largestBytes = 0;
        for (Share s : members) {
            long b = s.member.activeBytes();
            if (b > largestBytes) {
                largest = s.member;
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
        synchronized (room) {
            room.notifyAll();
        }
        switcher.shutdownNow();
        try {
            switcher.awaitTermination(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
