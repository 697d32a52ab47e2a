package dev.strata.lsm.engine;

import dev.strata.lsm.io.StorageIO;
import dev.strata.lsm.version.VersionSet;
import dev.strata.lsm.WalSyncMode;
import dev.strata.lsm.wal.WalWriter;

import java.nio.file.Path;

/**
 * The store's one WAL and its sequence numbers, shared by every column family (RocksDB's
 * single log for all column families): the segment new write groups append to, switching to
 * a new segment when any family switches its memtable out, continuing in a fresh segment
 * after a failed append, and the last and visible sequence numbers. Segment numbers come from
 * the default family's version set, whose directory (the store's) holds the segments.
 *
 * <p>Locking: everything but the visible sequence number and the current segment number
 * (volatile, read without a lock) is guarded by the engine's mutex.
 */
final class WalLog {
    private static final System.Logger LOG = System.getLogger(WalLog.class.getName());

    private final StorageIO io;
    private final Path dir;
    private final WalSyncMode walMode;
    private final VersionSet numbers;

    private volatile long visibleSequence;
    private volatile long segment;
    private long lastSequence;
    private WalWriter wal;
    private boolean walFailed;
    /** The groups {first, count} whose WAL append failed since the last new segment (see {@link #walFailed}). */
    private final java.util.List<long[]> voided = new java.util.ArrayList<>();

    WalLog(StorageIO io, Path dir, WalSyncMode walMode, VersionSet numbers) {
        this.io = io;
        this.dir = dir;
        this.walMode = walMode;
        this.numbers = numbers;
    }

    /** Starts logging to new segment {@code segment} after recovery; {@code lastSequence} is the newest recovered. */
    void start(long segment, long lastSequence) {
        this.lastSequence = lastSequence;
        this.visibleSequence = lastSequence;
        this.segment = segment;
        if (walMode != WalSyncMode.NONE) {
            wal = WalWriter.create(io, dir, segment, walMode);
        }
    }

    /** The segment new writes go to (with WAL mode none, the number a memtable would log to). */
    long segment() {
        return segment;
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

    /** Every reserved sequence number is now in the memtables: make them visible. Mutex held. */
    void publish() {
        visibleSequence = lastSequence;
    }

    /** The WAL writer new write groups append to, or null in WAL mode none. Mutex held. */
    WalWriter wal() {
        return wal;
    }

    /**
     * A WAL append of the group of sequence numbers {@code first .. first + count - 1} failed:
     * the segment may end in its record, torn or whole (a failed sync does not take back what
     * was written). The next segment starts with a void record for the group, synced before
     * anything else goes there, so recovery skips the group in every family. Mutex held.
     */
    void walFailed(long first, int count) {
        walFailed = true;
        if (count > 0) {
            voided.add(new long[] {first, count});
        }
    }

    /**
     * Writes a void record for every failed group into {@code writer} (a new segment) and syncs
     * it; on failure closes and deletes the new segment and throws, the failures kept for the
     * next attempt.
     */
    private void writeVoids(WalWriter writer) {
        try {
            for (long[] v : voided) {
                writer.append(BatchCodec.encodeVoid(v[0], (int) v[1]));
            }
            writer.sync();
        } catch (RuntimeException e) {
            try {
                writer.close();
            } catch (RuntimeException ignored) {
                // it failed already
            }
            try {
                io.delete(writer.path());
            } catch (java.io.IOException | RuntimeException ignored) {
                // a segment with a torn tail replays up to its tail; one without records replays nothing
            }
            throw new dev.strata.lsm.StoreException("cannot start a new WAL segment in " + dir
                    + " after a failed write: writing its void record failed: " + e, e);
        }
        voided.clear();
    }

    /** After {@link #walFailed}: continue in a new segment; the memtables keep what they have. Mutex held. */
    void rotateIfFailed() {
        if (!walFailed) {
            return;
        }
        long next = numbers.newFileNumber();
        WalWriter writer = WalWriter.create(io, dir, next, walMode);
        writeVoids(writer);
        close();
        wal = writer;
        segment = next;
        walFailed = false;
    }

    /** Starts a new segment for the successor of a memtable switched out and returns its number. Mutex held. */
    long switchSegment() {
        long next = numbers.newFileNumber();
        if (walMode != WalSyncMode.NONE) {
            WalWriter writer = WalWriter.create(io, dir, next, walMode);
            if (walFailed) {
                writeVoids(writer);
            }
            close();
            wal = writer;
            walFailed = false;
        }
        segment = next;
        return next;
    }

    /** Closes the WAL writer, if any; its acknowledged records are on disk. Mutex held. */
    void close() {
        if (wal != null) {
            try {
                wal.close();
            } catch (RuntimeException e) {
                // A failed writer reports its failure again on close; its acknowledged records are on disk.
                LOG.log(System.Logger.Level.DEBUG, "closing WAL segment failed", e);
            }
        }
    }
}
