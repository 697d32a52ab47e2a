package dev.strata.lsm.engine;

import dev.strata.lsm.StoreConfig;
import dev.strata.lsm.StoreException;
import dev.strata.lsm.policy.WriteAdmission;

import java.nio.file.Path;

/**
 * Write admission (LevelDB's {@code MakeRoomForWrite}): before a write group goes in, its
 * leader waits while the policy stops writes or the memtable backlog is full, and switches a
 * full memtable out, handing it to the flush lane. Time spent waiting is counted as stall
 * time. A policy's SLOW_DOWN is not waited for here but paced by the write queue, by the
 * group's bytes over the delayed write rate ({@link WritePacer}).
 */
final class WriteControl {
    private final Path dir;
    private final StoreConfig config;
    private final EngineMutex mutex;
    private final Memtables memtables;
    private final FlushLane flushLane;
    private final MergeScheduler scheduler;
    private final EngineCounters counters;

    WriteControl(Path dir, StoreConfig config, EngineMutex mutex, Memtables memtables, FlushLane flushLane,
                 MergeScheduler scheduler, EngineCounters counters) {
        this.dir = dir;
        this.config = config;
        this.mutex = mutex;
        this.memtables = memtables;
        this.flushLane = flushLane;
        this.scheduler = scheduler;
        this.counters = counters;
    }

    /**
     * Called by the write-group leader with the mutex held: waits while the memtable backlog
     * or the policy stops writes, and switches a full memtable out. {@code checkWritable}
     * throws if writes are refused; it is run again after every wait.
     *
     * @return whether it waited (or switched a memtable out)
     */
    boolean makeRoomForWrite(Runnable checkWritable) {
        boolean waited = false;
        while (true) {
            mutex.checkOpen();
            checkWritable.run();
            memtables.rotateWalIfFailed();
            MemtableSet m = memtables.set();
            WriteAdmission admission = scheduler.admission();
            if (m.active().approximateBytes() < config.memtableBytes()) {
                counters.chains.stallEnded();
                return waited;
            }
            if (scheduler.decisionPending()) {
                // The policy is deciding after the last flush or merge: its admission first.
                waited = true;
                mutex.awaitBackground(100);
                continue;
            }
            boolean backlogFull = m.immutable().size() >= config.maxImmutableMemtables();
            Throwable flushError = flushLane.error();
            if (backlogFull && flushError != null) {
                throw new StoreException("writes are stopped: flushing to " + dir + " keeps failing (the store stays "
                        + "readable and retries in the background): " + flushError, flushError);
            }
            if (backlogFull || admission == WriteAdmission.STOP) {
                counters.chains.stallStarted();
                waited = true;
                stall(100);
                continue;
            }
            waited = true;
            switchMemtable();
        }
    }

    /** Makes the active memtable immutable (new WAL segment for its successor) and schedules its flush. Mutex held. */
    void switchMemtable() {
        FlushGroups groups = flushLane.groups();
        if (groups != null) {
            groups.switchAll(); // atomic flush: every family with unflushed writes, at one cut
            return;
        }
        memtables.switchActive();
        flushLane.schedule();
    }

    private void stall(long millis) {
        long t0 = System.nanoTime();
        mutex.awaitBackground(millis);
        counters.stallNanos.add(System.nanoTime() - t0);
    }
}
