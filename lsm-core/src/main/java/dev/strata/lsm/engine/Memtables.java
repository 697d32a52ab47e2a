package dev.strata.lsm.engine;

import dev.strata.lsm.memtable.Memtable;

import java.util.ArrayList;
import java.util.List;

/**
 * One column family's memtable set (active + immutable, newest first) and the sequence numbers
 * written into it: switching a full memtable out (with a new WAL segment of the shared
 * {@link WalLog} for its successor) and dropping a flushed memtable. The WAL and the sequence
 * numbers are the store's ({@link WalLog}); the methods here that name them delegate.
 *
 * <p>Locking: everything but the memtable set (volatile, read by readers without a lock) is
 * guarded by the engine's mutex.
 */
final class Memtables {
    private final WalLog log;
    /** Whether new memtables keep their arenas in direct memory. */
    private final boolean offHeap;
    /**
     * Told after the set changes (a memtable switched out, flushed or dropped): the store's
     * share of a shared memtable budget is counted again. Writes into the active memtable are
     * told by the writer ({@link Engine#write}).
     */
    private final Runnable changed;

    private volatile MemtableSet set;

    Memtables(WalLog log, boolean offHeap, Runnable changed) {
        this.log = log;
        this.offHeap = offHeap;
        this.changed = changed;
    }

    /** A new, empty memtable of this family logging to {@code segment}, on or off the heap as configured. */
    Memtable newMemtable(long segment) {
        return new Memtable(segment, offHeap);
    }

    /** Starts the family's first memtable, logging to segment {@code segment}. */
    void start(long segment) {
        set = new MemtableSet(newMemtable(segment), List.of());
        changed.run();
    }

    /** The memtables now; readers read this without a lock. */
    MemtableSet set() {
        return set;
    }

    /** The store's WAL and sequence numbers. */
    WalLog log() {
        return log;
    }

    /** The sequence number a new read or snapshot sees. */
    long visibleSequence() {
        return log.visibleSequence();
    }

    /** Whether the family holds no unflushed write: no immutable memtable and an empty active one. */
    boolean allEmpty() {
        MemtableSet m = set;
        return m.immutable().isEmpty() && m.active().isEmpty();
    }

    /** After a failed WAL append: continue in a new segment. Mutex held. */
    void rotateWalIfFailed() {
        log.rotateIfFailed();
    }

    /** Makes the active memtable immutable with a new WAL segment for its successor. Mutex held. */
    void switchActive() {
        switchActive(log.switchSegment());
    }

    /**
     * Makes the active memtable immutable; its successor logs to {@code segment}, a segment
     * the caller started for every family it switches at once (an atomic flush's cut). Mutex held.
     */
    void switchActive(long segment) {
        MemtableSet m = set;
        List<Memtable> imm = new ArrayList<>(m.immutable().size() + 1);
        imm.add(m.active());
        imm.addAll(m.immutable());
        set = new MemtableSet(newMemtable(segment), imm);
        changed.run();
    }

    /**
     * Drops every memtable, unflushed writes included, for a family that was dropped (its
     * flush lane then finds nothing to flush, not even on a retry). Mutex held.
     */
    void discard() {
        set = new MemtableSet(newMemtable(log.segment()), List.of());
        changed.run();
    }

    /** The oldest immutable memtable. Mutex held. */
    Memtable oldestImmutable() {
        List<Memtable> imm = set.immutable();
        return imm.get(imm.size() - 1);
    }

    /**
     * The WAL segment that holds the writes after the oldest immutable memtable's: the log
     * number once that memtable is flushed. Mutex held.
     */
    long segmentAfterOldest() {
        List<Memtable> imm = set.immutable();
        return imm.size() > 1 ? imm.get(imm.size() - 2).walSegment() : set.active().walSegment();
    }

    /** The oldest immutable memtable is flushed: drop it. Mutex held. */
    void dropOldest() {
        List<Memtable> imm = new ArrayList<>(set.immutable());
        imm.remove(imm.size() - 1);
        set = new MemtableSet(set.active(), imm);
        changed.run();
    }

    /**
     * Live keys the memtables hold: per memtable the distinct keys whose newest entry is a
     * put, less those whose newest entry is a delete (each presumably deletes a key below).
     * A key in several memtables counts once per memtable.
     */
    long estimatedKeyCount() {
        MemtableSet m = set;
        long keys = m.active().liveKeyCount() - m.active().deletedKeyCount();
        for (Memtable imm : m.immutable()) {
            keys += imm.liveKeyCount() - imm.deletedKeyCount();
        }
        return keys;
    }

    /** Approximate bytes held by every memtable. */
    long approximateBytes() {
        MemtableSet m = set;
        long bytes = m.active().approximateBytes();
        for (Memtable imm : m.immutable()) {
            bytes += imm.approximateBytes();
        }
        return bytes;
    }
}
