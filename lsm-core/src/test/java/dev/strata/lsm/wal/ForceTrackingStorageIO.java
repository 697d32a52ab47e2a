package dev.strata.lsm.wal;

import dev.strata.lsm.io.ForwardingStorageIO;

import dev.strata.lsm.io.PageFile;
import dev.strata.lsm.io.StorageIO;
import java.io.IOException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * Records, over all files it opened, the highest file length covered by a completed
 * {@code force}: the length when the force started, published once it returns. It can
 * also make each force take a while, as on a real disk; on tmpfs a force is free and
 * whether appenders overlap with it would be left to scheduling luck.
 */
final class ForceTrackingStorageIO extends ForwardingStorageIO {
    private final AtomicLong forcedEnd = new AtomicLong();
    private final long forceLatencyNanos;

    ForceTrackingStorageIO(StorageIO delegate, long forceLatencyMicros) {
        super(delegate);
        this.forceLatencyNanos = TimeUnit.MICROSECONDS.toNanos(forceLatencyMicros);
    }

    /** The highest length some completed force covered. */
    long forcedEnd() {
        return forcedEnd.get();
    }

    @Override
    protected PageFile wrap(PageFile file) {
        return new ForwardingPageFile(file) {
            @Override
            public void force(boolean metadata) throws IOException {
                long covered = size();
                if (forceLatencyNanos > 0) {
                    LockSupport.parkNanos(forceLatencyNanos);
                }
                super.force(metadata);
                forcedEnd.accumulateAndGet(covered, Math::max);
            }
        };
    }
}
