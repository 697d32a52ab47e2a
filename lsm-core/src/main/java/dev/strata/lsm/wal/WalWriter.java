package dev.strata.lsm.wal;

import dev.strata.lsm.WalSyncMode;


import dev.strata.lsm.StoreException;
import dev.strata.lsm.io.IoPurpose;
import dev.strata.lsm.io.OpenMode;
import dev.strata.lsm.io.PageFile;
import dev.strata.lsm.io.StorageIO;
import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Objects;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Appends logical records to one WAL segment file, committing concurrent appends in
 * groups. The format is described in {@code docs/format.md} ("WAL segment").
 *
 * <h2>Locking</h2>
 * One {@link ReentrantLock}, {@code lock}, guards every mutable field. An appender frames
 * its record into the shared {@code pending} buffer under the lock; that fixes the
 * record's place in the file and its end offset. The file itself is touched only by the
 * <em>leader</em>, at most one thread at a time ({@code leading}): the leader takes the
 * whole pending buffer, releases the lock, writes the buffer with one
 * {@link PageFile#append} and, when a force is due, calls one {@link PageFile#force},
 * then re-takes the lock, publishes the new written and forced offsets and signals
 * {@code progress}. Every other appender waits on {@code progress} until the offset its
 * mode needs is covered, or becomes the next leader when nobody leads. Holding the lock
 * never includes IO, and the single leader is what serializes writers as
 * {@link PageFile} requires.
 *
 * <h2>Failures</h2>
 * The first IO failure (or {@link RuntimeException} from the file) is remembered: every
 * appender whose record it left uncovered, and every later {@link #append}, {@link #sync}
 * and {@link #close}, throws a fresh {@link StoreException} naming the segment file, with
 * the original failure as its cause. The writer is unusable from then on: after a failed
 * force the kernel may already have dropped the dirty pages, so retrying could report
 * durability that does not exist. Appends after {@link #close} throw
 * {@link IllegalStateException}.
 *
 * <p>A full disk is such a failure in every mode, reported to the appenders of the batch
 * that met it. In {@link WalSyncMode#ASYNC} appends are copied into a memory mapping of the
 * segment, where a full disk could not fail the copy, only lose it; so the leader
 * {@linkplain PageFile#preallocate preallocates} the segment {@link #RESERVE_BYTES} at a
 * time before appending past what is reserved, and the preallocation fails instead. An
 * {@link InternalError} from the file (how the JVM reports a fault in a mapped copy) counts
 * as an IO failure too.
 */
public final class WalWriter implements Closeable {
    /** In {@link WalSyncMode#NONE}, buffered bytes beyond this are handed to the OS. */
    public static final int NONE_BUFFER_LIMIT = 1 << 20;

    /**
     * The largest payload one append accepts. It keeps a framed record, with its headers,
     * inside one Java array.
     */
    public static final int MAX_RECORD_SIZE = 1 << 30;

    /**
     * With mapped appends ({@link WalSyncMode#ASYNC}), the leader preallocates the segment
     * this many bytes at a time, ahead of the batch it appends: a full disk then fails that
     * preallocation, before any record in the batch is acknowledged, instead of losing a copy
     * into the mapping. Matches the mapping's window, so one sequential write of zeros per
     * window.
     */
    static final int RESERVE_BYTES = 4 << 20;

    private static final int INITIAL_BUFFER = 64 * 1024;
    /** Buffers that grew past this for one huge batch are dropped rather than kept. */
    private static final int RETAINED_BUFFER = 4 << 20;

    private final PageFile file;
    private final long segmentNumber;
    private final WalSyncMode mode;
    /** Whether appends go through a memory mapping and so must be preceded by preallocation. */
    private final boolean mapped;
    /** The prefix of the file preallocated so far; touched only by the leader. */
    private long reservedEnd;

    private final ReentrantLock lock = new ReentrantLock();
    private final Condition progress = lock.newCondition();

    // All fields below are guarded by lock.
    /** Framed bytes no leader has taken yet; they start at {@code writtenEnd} or later. */
    private WalFrameBuffer pending = new WalFrameBuffer(INITIAL_BUFFER);
    /** An empty buffer to swap in for {@code pending}; null while a leader holds a batch. */
    private WalFrameBuffer spare = new WalFrameBuffer(INITIAL_BUFFER);
    /** File offset just past everything framed so far: the segment's logical size. */
    private long framedEnd;
    /** Length of the prefix handed to the OS. */
    private long writtenEnd;
    /** Length of the prefix covered by a completed force. */
    private long forcedEnd;
    /** The highest offset some caller waits to see forced. */
    private long forceWanted;
    private boolean leading;
    private boolean closed;
    private Throwable failure;

    private WalWriter(PageFile file, long segmentNumber, WalSyncMode mode, boolean mapped) {
        this.file = file;
        this.segmentNumber = segmentNumber;
        this.mode = mode;
        this.mapped = mapped;
        byte[] header = ByteBuffer.allocate(WalFormat.SEGMENT_HEADER_PAYLOAD)
                .putInt(WalFormat.MAGIC)
                .putShort(WalFormat.FORMAT_VERSION)
                .putLong(segmentNumber)
                .array();
        // The header goes out with the first batch: no extra write, and no extra force in
        // SYNC mode. A crash before that leaves a 0-byte file, which reads as empty.
        pending.putRecord(WalFormat.TYPE_SEGMENT_HEADER, header, 0, header.length);
        framedEnd = pending.size();
    }

    /**
     * Creates segment {@code segmentNumber} in {@code dir} (file name from
     * {@link WalSegments#fileName}); the file must not exist yet. In {@link WalSyncMode#SYNC}
     * the directory is synced too, so that the new file's entry is as durable as the
     * records that will be acknowledged in it.
     *
     * @throws StoreException naming the file if it cannot be created
     */
    public static WalWriter create(StorageIO io, Path dir, long segmentNumber, WalSyncMode mode) {
        return create(io, WalSegments.path(dir, segmentNumber), segmentNumber, mode, IoPurpose.WAL);
    }

    /**
     * Creates a record log in the WAL segment format at {@code path} (any name), counting
     * its bytes under {@code purpose}; the manifest uses this with {@link IoPurpose#MANIFEST}.
     *
     * @throws StoreException naming the file if it cannot be created
     */
    public static WalWriter create(StorageIO io, Path path, long segmentNumber, WalSyncMode mode, IoPurpose purpose) {
        Objects.requireNonNull(io, "io");
        Objects.requireNonNull(mode, "mode");
        Path dir = path.toAbsolutePath().getParent();
        PageFile file;
        try {
            file = io.open(path, OpenMode.CREATE_NEW, purpose);
        } catch (IOException e) {
            throw new StoreException("cannot create WAL segment " + path + ": " + e, e);
        }
        if (mode == WalSyncMode.SYNC) {
            try {
                io.syncDirectory(dir);
            } catch (IOException e) {
                StoreException failed = new StoreException(
                        "cannot sync directory " + dir + " after creating WAL segment " + path + ": " + e, e);
                closeQuietly(file, failed);
                throw failed;
            }
        }
        boolean mapped = false;
        if (mode == WalSyncMode.ASYNC && io.supportsPreallocate()) {
            // Each commit is handed to the OS without a force, and the system call is most of
            // its cost; copying into a shared mapping hands the bytes over just as well. (NONE
            // hands over a megabyte at a time, where a write call is cheaper than page faults.)
            // Only where space can be preallocated: a mapping cannot report a full disk.
            try {
                mapped = file.mapAppends();
            } catch (IOException e) {
                StoreException failed = new StoreException("cannot map WAL segment " + path + ": " + e, e);
                closeQuietly(file, failed);
                throw failed;
            }
        }
        return new WalWriter(file, segmentNumber, mode, mapped);
    }

    /** The segment file. */
    public Path path() {
        return file.path();
    }

    /** The number this segment was created with (also stored in its header). */
    public long segmentNumber() {
        return segmentNumber;
    }

    /** The durability each append waits for. */
    public WalSyncMode syncMode() {
        return mode;
    }

    /**
     * Appends {@code payload} as one logical record; see {@link #append(byte[], int, int)}.
     */
    public long append(byte[] payload) {
        return append(payload, 0, payload.length);
    }

    /**
     * Appends {@code buf[off, off + len)} as one logical record (empty records are
     * allowed) and returns once the record is as durable as {@link #syncMode()} promises.
     * Thread safe; concurrent appends are committed together. The bytes are copied before
     * this returns, so the caller may reuse {@code buf}.
     *
     * @return the file offset just past the record's last byte; the segment holds the record
     *         once its length reaches this offset
     * @throws IllegalArgumentException if {@code len} exceeds {@link #MAX_RECORD_SIZE}
     * @throws IllegalStateException    if the writer is closed
     * @throws StoreException           naming the file if a write or force failed, now or earlier
     */
    public long append(byte[] buf, int off, int len) {
        Objects.checkFromIndexSize(off, len, buf.length);
        if (len > MAX_RECORD_SIZE) {
            throw new IllegalArgumentException("WAL record of " + len + " bytes exceeds the limit of "
                    + MAX_RECORD_SIZE + " bytes for " + file.path());
        }
        try {
            return frameAndAwait(buf, off, len);
        } catch (InternalError e) {
            throw mappedCopyFault(e);
        }
    }

    private long frameAndAwait(byte[] buf, int off, int len) {
        lock.lock();
        try {
            ensureWritable();
            // Room first, so that a record is framed completely or not at all.
            pending.reserve(WalFrameBuffer.maxFramedSize(len));
            long end = frame(buf, off, len);
            switch (mode) {
                case NONE -> {
                    if (pending.size() > NONE_BUFFER_LIMIT) {
                        awaitCovered(end, false);
                    }
                }
                case ASYNC -> awaitCovered(end, false);
                case SYNC -> awaitCovered(end, true);
            }
            return end;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Writes everything appended so far and forces it to stable storage, whatever the
     * sync mode; returns at once if that is already done.
     *
     * @throws IllegalStateException if the writer is closed
     * @throws StoreException        naming the file if a write or force failed, now or earlier
     */
    public void sync() {
        lock.lock();
        try {
            ensureWritable();
            awaitCovered(framedEnd, true);
        } finally {
            lock.unlock();
        }
    }

    /**
     * Bytes handed to the operating system so far, in whole batches (not necessarily
     * forced). After a failure, a record that ends at or below this may be on disk.
     */
    public long writtenEnd() {
        lock.lock();
        try {
            return writtenEnd;
        } finally {
            lock.unlock();
        }
    }

    /**
     * The segment's logical size: the file length once everything appended so far is
     * written. This is what a store compares against its segment size limit.
     */
    public long size() {
        lock.lock();
        try {
            return framedEnd;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Writes what is still buffered (forcing it in {@link WalSyncMode#SYNC}), waits for an
     * active leader, and closes the file. Idempotent.
     *
     * @throws StoreException naming the file if appended records could not all be written
     *                        (forced, in SYNC mode) because of a failure now or earlier; the
     *                        file is closed anyway
     */
    @Override
    public void close() {
        lock.lock();
        try {
            if (closed) {
                return;
            }
            closed = true;
            // Also serve sync() callers still waiting, before the file goes away under them.
            boolean force = mode == WalSyncMode.SYNC || forceWanted > forcedEnd;
            StoreException error = null;
            try {
                awaitCovered(framedEnd, force);
            } catch (StoreException e) {
                error = e;
            }
            // A sync() leader may still be forcing a prefix we did not need.
            while (leading) {
                progress.awaitUninterruptibly();
            }
            try {
                file.close();
            } catch (IOException e) {
                StoreException closeFailure = new StoreException("cannot close WAL segment " + file.path() + ": " + e, e);
                if (error == null) {
                    error = closeFailure;
                } else {
                    error.addSuppressed(closeFailure);
                }
            }
            if (error != null) {
                throw error;
            }
        } finally {
            lock.unlock();
        }
    }

    private void ensureWritable() {
        if (closed) {
            throw new IllegalStateException("WAL segment " + file.path() + " is closed");
        }
        if (failure != null) {
            throw failed();
        }
    }

    /** Frames a logical record into {@code pending}; returns the record's end offset. */
    private long frame(byte[] buf, int off, int len) {
        framedEnd = pending.frame(framedEnd, buf, off, len);
        return framedEnd;
    }

    /**
     * Returns once {@code [0, target)} is written (and forced, if {@code force}), leading
     * batches whenever nobody else does. Called with the lock held.
     */
    private void awaitCovered(long target, boolean force) {
        if (force && forceWanted < target) {
            forceWanted = target;
        }
        while ((force ? forcedEnd : writtenEnd) < target) {
            if (failure != null) {
                throw failed();
            }
            if (leading) {
                // Uninterruptible: the record is framed and will be written regardless, so
                // giving up on an interrupt would misreport its fate.
                progress.awaitUninterruptibly();
            } else {
                lead();
            }
        }
    }

    /**
     * Writes the whole pending buffer with one append and, if anyone needs it, one force.
     * Called with the lock held and no active leader; releases the lock during the IO.
     */
    private void lead() {
        leading = true;
        WalFrameBuffer batch = pending;
        pending = spare;
        spare = null;
        long batchStart = writtenEnd;
        long batchEnd = framedEnd;
        boolean force = mode == WalSyncMode.SYNC || forceWanted > forcedEnd;
        boolean wrote = false;
        boolean forced = false;
        Throwable error = null;
        lock.unlock();
        // FileChannel closes itself when an interrupted thread does IO on it, which would
        // fail the WAL for every appender; so the leader does its IO uninterrupted.
        boolean interrupted = Thread.interrupted();
        try {
            if (batch.size() > 0) {
                if (mapped && batchEnd > reservedEnd) {
                    long target = (batchEnd + RESERVE_BYTES - 1) / RESERVE_BYTES * RESERVE_BYTES;
                    file.preallocate(reservedEnd, target - reservedEnd);
                    reservedEnd = target;
                }
                long at = file.append(batch.contents());
                if (at != batchStart) {
                    throw new StoreException("WAL segment " + file.path() + ": batch landed at offset " + at
                            + " instead of " + batchStart + "; something else wrote to the file");
                }
            }
            wrote = true;
            if (force) {
                file.force(false);
                forced = true;
            }
        } catch (InternalError e) {
            // A fault in a memory-mapped copy (SIGBUS: the page could not be backed or read)
            // is an IO failure of this segment, not a broken JVM: fail the writer with it.
            if (!mapped) {
                error = e;
            } else {
                error = new IOException("a write through the memory mapping of " + file.path() + " failed: " + e, e);
            }
        } catch (Throwable t) {
            error = t;
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
            lock.lock();
        }
        spare = batch.capacity() > RETAINED_BUFFER ? new WalFrameBuffer(INITIAL_BUFFER) : batch.clear();
        leading = false;
        if (wrote) {
            writtenEnd = batchEnd;
        }
        if (forced) {
            forcedEnd = batchEnd;
        }
        if (error != null) {
            failure = error;
        }
        progress.signalAll();
        if (error instanceof Error e) {
            throw e;
        }
    }

    /**
     * The JVM reports a fault in a copy into a mapping (SIGBUS) asynchronously, as an
     * {@link InternalError} at some later point of the copying thread; where that point is
     * inside {@link #append}, it fails this append and the writer like any IO failure
     * instead of escaping. Other errors are rethrown.
     */
    private StoreException mappedCopyFault(InternalError e) {
        if (!mapped) {
            throw e;
        }
        lock.lock();
        try {
            if (failure == null) {
                failure = new IOException("a write through the memory mapping of " + file.path() + " failed: " + e, e);
            }
            return failed();
        } finally {
            lock.unlock();
        }
    }

    private StoreException failed() {
        return new StoreException("WAL segment " + file.path()
                + " is unusable after a failed write or force: " + failure, failure);
    }

    private static void closeQuietly(PageFile file, Throwable primary) {
        try {
            file.close();
        } catch (IOException e) {
            primary.addSuppressed(e);
        }
    }
}
