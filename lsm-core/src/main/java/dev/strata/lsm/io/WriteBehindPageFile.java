package dev.strata.lsm.io;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * A {@link PageFile} for one writer of a new file (a {@code TableWriter}'s table) whose
 * delegate writes on the caller's thread (the default {@code nio} storage IO): full page
 * buffers handed to {@link #writeBehind} are written by a thread of this file's own while the
 * caller fills the next buffer, and every {@code syncBytes} bytes written that thread starts a
 * force of the data written so far (fdatasync, as RocksDB's {@code bytes_per_sync}) on a
 * second thread of the file's own, at most one at a time, so writes go on while the device
 * catches up and the {@link #force} that ends the file finds little left to write back.
 *
 * <p>At most {@value #IN_FLIGHT} buffers are written behind the caller at once: a
 * {@code writeBehind} beyond that waits for the oldest (so at most {@value #IN_FLIGHT} + 1
 * buffers of the caller's size exist). A write or background force that fails fails this
 * file (a failed fdatasync may have lost written pages that a later force would not report): that call and every later one ({@code writeBehind}, {@link #write}, {@link #force},
 * {@link #size}, {@link #close}, ...) throw an {@link IOException} naming the file, the
 * offset and the cause. Every call other than {@code writeBehind}, {@link #path()} and
 * {@link #purpose()} first waits for the writes behind the caller and the background force in
 * progress, so it sees (and, for {@link #force}, makes durable) every byte handed in before it. Nothing is durable before
 * {@link #force} returns, as with any {@link PageFile}.
 *
 * <p>Not thread safe: one thread uses the file (positional reads included). {@link #close()}
 * waits for the pending writes, stops the thread and closes the delegate; the file's
 * failure, if any, is thrown after the delegate is closed.
 */
public final class WriteBehindPageFile extends ForwardingStorageIO.ForwardingPageFile {
    /** Buffers written behind the caller at once. */
    public static final int IN_FLIGHT = 2;
    /** The default bytes written between background forces: 8 MiB. */
    public static final long DEFAULT_SYNC_BYTES = 8L << 20;

    private final long syncBytes;
    private final ArrayDeque<Pending> pending = new ArrayDeque<>();
    private final ArrayDeque<ByteBuffer> free = new ArrayDeque<>();
    /** Started at the first {@link #writeBehind}. */
    private ExecutorService thread;
    /** Runs the background forces; started with {@link #thread} when {@code syncBytes > 0}. */
    private ExecutorService syncer;
    /** The latest background force (set by {@link #thread}, awaited by the caller's thread); null before the first. */
    private volatile Future<?> syncing;
    /** Bytes written by the thread since its last force (confined to the thread). */
    private long unsynced;
    /** The first failure of a write behind the caller; fails every later call. */
    private IOException failure;
    private boolean closed;

    private record Pending(Future<?> done, ByteBuffer buffer, long position, int length) {
    }

    /**
     * Writes behind the caller to {@code delegate}, forcing its data every
     * {@code syncBytes} bytes written on a second background thread (one force at a time).
     *
     * @param delegate a file opened for writing (not null)
     * @param syncBytes bytes between background forces; 0 for none
     */
    public WriteBehindPageFile(PageFile delegate, long syncBytes) {
        super(java.util.Objects.requireNonNull(delegate, "delegate"));
        if (syncBytes < 0) {
            throw new IllegalArgumentException("syncBytes must be at least 0, got " + syncBytes);
        }
        this.syncBytes = syncBytes;
    }

    /**
     * Takes {@code src} and writes it at {@code position} on this file's thread; returns a
     * cleared buffer of at least {@code src}'s capacity (page aligned) to fill next.
     *
     * @throws IOException if an earlier write behind the caller failed
     */
    @Override
    public ByteBuffer writeBehind(ByteBuffer src, long position) throws IOException {
        checkOpen();
        while (pending.size() >= IN_FLIGHT) {
            awaitOldest();
        }
        if (thread == null) {
            String name = "strata-write-behind " + path().getFileName();
            thread = Executors.newSingleThreadExecutor(r -> {
                Thread t = new Thread(r, name);
                t.setDaemon(true);
                return t;
            });
            if (syncBytes > 0) {
                syncer = Executors.newSingleThreadExecutor(r -> {
                    Thread t = new Thread(r, name + " sync");
                    t.setDaemon(true);
                    return t;
                });
            }
        }
        int length = src.remaining();
        Future<?> done = thread.submit(() -> {
            writeAndSync(src, position);
            return null;
        });
        pending.addLast(new Pending(done, src, position, length));
        ByteBuffer next = free.pollFirst();
        if (next == null || next.capacity() < src.capacity()) {
            next = AlignedBuffers.allocate(src.capacity(), AlignedBuffers.PAGE_ALIGNMENT);
        }
        next.clear();
        return next;
    }

    /**
     * On this file's thread: writes {@code src} whole; then, once {@code syncBytes} have
     * accumulated and no background force is running, starts one (a failed earlier one fails
     * this write).
     */
    private void writeAndSync(ByteBuffer src, long position) throws Exception {
        int length = src.remaining();
        delegate().write(src, position);
        unsynced += length;
        Future<?> last = syncing;
        if (syncBytes > 0 && unsynced >= syncBytes && (last == null || last.isDone())) {
            if (last != null) {
                try {
                    last.get();
                } catch (ExecutionException e) {
                    throw new IOException("background force of " + path() + " failed: " + e.getCause(), e.getCause());
                }
            }
            unsynced = 0;
            syncing = syncer.submit(() -> {
                delegate().force(false);
                return null;
            });
        }
    }

    /** Waits for the background force in progress (if any); records (and throws) its failure. */
    private void awaitSync() throws IOException {
        Future<?> s = syncing;
        if (s == null) {
            return;
        }
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    s.get();
                    return;
                } catch (InterruptedException e) {
                    interrupted = true;
                } catch (ExecutionException e) {
                    failure = new IOException("background force of " + path() + " failed: " + e.getCause(), e.getCause());
                    throw failure;
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Waits for the oldest pending write; records (and throws) its failure. */
    private void awaitOldest() throws IOException {
        Pending p = pending.pollFirst();
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    p.done().get();
                    break;
                } catch (InterruptedException e) {
                    interrupted = true; // the write goes on; an interrupt must not lose it
                } catch (ExecutionException e) {
                    Throwable cause = e.getCause();
                    failure = new IOException("write behind of " + p.length() + " bytes at offset " + p.position()
                            + " to " + path() + " failed: " + cause, cause);
                    throw failure; // the later ones stay pending: close waits for them
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
        p.buffer().clear();
        free.addLast(p.buffer());
    }

    /** Waits for every pending write and the background force, and throws this file's failure, if any. */
    private void drain() throws IOException {
        checkOpen();
        while (!pending.isEmpty()) {
            awaitOldest();
        }
        awaitSync(); // the writes behind are done: no other force starts
    }

    private void checkOpen() throws IOException {
        if (closed) {
            throw new IOException(path() + " is closed");
        }
        if (failure != null) {
            throw new IOException("an earlier write behind to " + path() + " failed: " + failure.getMessage(), failure);
        }
    }

    @Override
    public void readFully(ByteBuffer dst, long position) throws IOException {
        drain();
        super.readFully(dst, position);
    }

    @Override
    public void write(ByteBuffer src, long position) throws IOException {
        drain();
        super.write(src, position);
    }

    @Override
    public long append(ByteBuffer src) throws IOException {
        drain();
        return super.append(src);
    }

    /** Waits for the writes behind the caller, then forces the file (their bytes included). */
    @Override
    public void force(boolean metadata) throws IOException {
        drain();
        super.force(metadata);
    }

    @Override
    public void truncate(long size) throws IOException {
        drain();
        super.truncate(size);
    }

    @Override
    public long size() throws IOException {
        drain();
        return super.size();
    }

    @Override
    public void preallocate(long offset, long length) throws IOException {
        drain();
        super.preallocate(offset, length);
    }

    @Override
    public boolean mapAppends() {
        return false; // appends stay on the caller's thread, after the writes behind it
    }

    @Override
    public void punchHole(long offset, long length) throws IOException {
        drain();
        super.punchHole(offset, length);
    }

    @Override
    public long allocatedBytes() throws IOException {
        drain();
        return super.allocatedBytes();
    }

    /**
     * Waits for the pending writes and the background force (an interrupt does not cut the
     * wait short), stops this file's threads and closes the delegate; then throws the file's failure, if any.
     */
    @Override
    public void close() throws IOException {
        if (closed) {
            return;
        }
        IOException error = failure;
        boolean interrupted = false;
        for (Pending p : pending) {
            while (true) {
                try {
                    p.done().get();
                    break;
                } catch (InterruptedException e) {
                    interrupted = true;
                } catch (ExecutionException e) {
                    if (error == null) {
                        error = new IOException("write behind of " + p.length() + " bytes at offset " + p.position()
                                + " to " + path() + " failed: " + e.getCause(), e.getCause());
                    }
                    break;
                }
            }
        }
        pending.clear();
        // The writes are done, so no other background force starts.
        Future<?> s = syncing;
        while (s != null) {
            try {
                s.get();
                break;
            } catch (InterruptedException e) {
                interrupted = true;
            } catch (ExecutionException e) {
                if (error == null) {
                    error = new IOException("background force of " + path() + " failed: " + e.getCause(), e.getCause());
                }
                break;
            }
        }
        closed = true;
        if (thread != null) {
            thread.shutdown();
        }
        if (syncer != null) {
            syncer.shutdown();
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        try {
            super.close();
        } catch (IOException e) {
            if (error == null) {
                throw e;
            }
            error.addSuppressed(e);
        }
        if (error != null) {
            throw error;
        }
    }
}
