package dev.strata.lsm.io;

import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

/**
 * Live byte and operation counters, one set per {@link IoPurpose}. Updated by
 * {@link CountingStorageIO}; read through {@link #snapshot()}. Thread safe.
 */
public final class IoCounters {
    private final Map<IoPurpose, Cells> cells = new EnumMap<>(IoPurpose.class);

    /** Counters at zero. */
    public IoCounters() {
        for (IoPurpose p : IoPurpose.values()) {
            cells.put(p, new Cells());
        }
    }

    void recordRead(IoPurpose purpose, long bytes) {
        Cells c = cells.get(purpose);
        c.bytesRead.add(bytes);
        c.reads.increment();
    }

    void recordWrite(IoPurpose purpose, long bytes) {
        Cells c = cells.get(purpose);
        c.bytesWritten.add(bytes);
        c.writes.increment();
    }

    void recordForce(IoPurpose purpose) {
        cells.get(purpose).forces.increment();
    }

    /**
     * A consistent-enough copy of all counters (each counter is read once).
     *
     * @return a new immutable snapshot of every purpose's counters
     */
    public IoStats snapshot() {
        Map<IoPurpose, IoStats.PurposeStats> copy = new EnumMap<>(IoPurpose.class);
        for (Map.Entry<IoPurpose, Cells> e : cells.entrySet()) {
            Cells c = e.getValue();
            copy.put(e.getKey(), new IoStats.PurposeStats(c.bytesRead.sum(), c.reads.sum(),
                    c.bytesWritten.sum(), c.writes.sum(), c.forces.sum()));
        }
        return new IoStats(copy);
    }

    private static final class Cells {
        final LongAdder bytesRead = new LongAdder();
        final LongAdder reads = new LongAdder();
        final LongAdder bytesWritten = new LongAdder();
        final LongAdder writes = new LongAdder();
        final LongAdder forces = new LongAdder();
    }
}
