package dev.strata.lsm.engine;

import dev.strata.lsm.io.StorageIO;
import dev.strata.lsm.memtable.Memtable;
import dev.strata.lsm.version.VersionSet;
import dev.strata.lsm.wal.WalSyncMode;
import dev.strata.lsm.wal.WalWriter;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The memtable set, the WAL segment the active memtable logs to, and the sequence numbers
 * written into them: switching a full memtable out (with a new WAL segment for its
 * successor), continuing in a fresh segment after a WAL write failed, and dropping a
 * flushed memtable.
 *
 * <p>Locking: everything but the memtable set and the visible sequence number (both
 * volatile, read by readers without a lock) is guarded by the engine's mutex.
 */
final class Memtables {
    private static final System.Logger LOG = System.getLogger(Memtables.class.getName());

    private final StorageIO io;
    private final Path dir;
    private final WalSyncMode walMode;
    private final VersionSet versions;

    private volatile MemtableSet set;
    private volatile long visibleSequence;
    private long lastSequence;
    private WalWriter wal;
    private boolean walFailed;

    Memtables(StorageIO io, Path dir, WalSyncMode walMode, VersionSet versions) {
        this.io = io;
        this.dir = dir;
        this.walMode = walMode;
        this.versions = versions;
    }

    /**
     * Starts the store's first memtable after recovery, logging to new segment
     * {@code segment}, with {@code lastSequence} the newest sequence number recovered.
     */
    void start(long segment, long lastSequence) {
        this.lastSequence = lastSequence;
        this.visibleSequence = lastSequence;
        if (walMode != WalSyncMode.NONE) {
            wal = WalWriter.create(io, dir, segment, walMode);
        }
        set = new MemtableSet(new Memtable(segment), List.of());
    }

    /** The memtables now; readers read this without a lock. */
    MemtableSet set() {
        return set;
    }

    /** The sequence number a new read or snapshot sees. */
    long visibleSequence() {
        return visibleSequence;
    }

    /** Takes {@code count} sequence numbers for a write group and returns the first. Mutex held. */
    long reserve(int count) {
        long first = lastSequence + 1;
        lastSequence += count;
        return first;
    }

    /** Every reserved sequence number is now in the memtable: make them visible. Mutex held. */
    void publish() {
        visibleSequence = lastSequence;
    }

    /** The WAL writer new write groups append to, or null in WAL mode none. Mutex held. */
    WalWriter wal() {
        return wal;
    }

    /** A WAL append failed: the segment may end in a torn record. Mutex held. */
    void walFailed() {
        walFailed = true;
    }

    /** After {@link #walFailed}: continue in a new segment; the memtable keeps what it has. Mutex held. */
    void rotateWalIfFailed() {
        if (!walFailed) {
            return;
        }
        long segment = versions.newFileNumber();
        WalWriter next = WalWriter.create(io, dir, segment, walMode);
        closeWal();
        wal = next;
        walFailed = false;
    }

    /** Makes the active memtable immutable with a new WAL segment for its successor. Mutex held. */
    void switchActive() {
        long segment = versions.newFileNumber();
        if (walMode != WalSyncMode.NONE) {
            WalWriter next = WalWriter.create(io, dir, segment, walMode);
            closeWal();
            wal = next;
            walFailed = false;
        }
        MemtableSet m = set;
        List<Memtable> imm = new ArrayList<>(m.immutable().size() + 1);
        imm.add(m.active());
        imm.addAll(m.immutable());
        set = new MemtableSet(new Memtable(segment), imm);
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
    }

    /** Closes the WAL writer, if any; its acknowledged records are on disk. Mutex held. */
    void closeWal() {
        if (wal != null) {
            try {
                wal.close();
            } catch (RuntimeException e) {
                // A failed writer reports its failure again on close; its acknowledged records are on disk.
                LOG.log(System.Logger.Level.DEBUG, "closing WAL segment failed", e);
            }
        }
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
