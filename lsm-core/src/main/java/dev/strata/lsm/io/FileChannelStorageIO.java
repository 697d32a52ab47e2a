package dev.strata.lsm.io;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/**
 * The portable {@link StorageIO}: buffered IO through {@link FileChannel}. It has no
 * alignment requirement; it preallocates by writing zeros past the end of a file (what
 * glibc's {@code posix_fallocate} falls back to) and does not punch holes. IO on its files
 * is immune to thread interrupts (see {@link PageFile}).
 */
public final class FileChannelStorageIO implements StorageIO {
    /** A storage IO; it holds no state of its own (each {@link PageFile} holds its channel). */
    public FileChannelStorageIO() {
    }

    @Override
    public PageFile open(Path path, OpenMode mode, IoPurpose purpose) throws IOException {
        Set<StandardOpenOption> options = EnumSet.of(StandardOpenOption.READ);
        switch (mode) {
            case READ -> { }
            case READ_WRITE -> options.add(StandardOpenOption.WRITE);
            case CREATE -> {
                options.add(StandardOpenOption.WRITE);
                options.add(StandardOpenOption.CREATE);
            }
            case CREATE_NEW -> {
                options.add(StandardOpenOption.WRITE);
                options.add(StandardOpenOption.CREATE_NEW);
            }
        }
        return new ChannelPageFile(path, purpose, options);
    }

    @Override
    public int alignment() {
        return 1;
    }

    @Override
    public boolean supportsPreallocate() {
        return true;
    }

    @Override
    public boolean supportsPunchHole() {
        return false;
    }

    @Override
    public boolean exists(Path path) {
        return Files.exists(path);
    }

    @Override
    public List<Path> list(Path dir) throws IOException {
        List<Path> files = new ArrayList<>();
        try (DirectoryStream<Path> stream = Files.newDirectoryStream(dir)) {
            for (Path p : stream) {
                if (Files.isRegularFile(p)) {
                    files.add(p);
                }
            }
        }
        Collections.sort(files);
        return files;
    }

    @Override
    public void createDirectories(Path dir) throws IOException {
        Files.createDirectories(dir);
    }

    @Override
    public void delete(Path path) throws IOException {
        Files.deleteIfExists(path);
    }

    @Override
    public void rename(Path source, Path target) throws IOException {
        try {
            Files.move(source, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (AtomicMoveNotSupportedException e) {
            throw new IOException("atomic rename not supported from " + source + " to " + target, e);
        }
    }

    @Override
    public void syncDirectory(Path dir) throws IOException {
        // On Linux a directory opened read-only can be fsync'ed; that persists its entries.
        boolean interrupted = false;
        try {
            for (int attempt = 0; ; attempt++) {
                try (FileChannel channel = FileChannel.open(dir, StandardOpenOption.READ)) {
                    channel.force(true);
                    return;
                } catch (ClosedChannelException e) {
                    // An interrupt closed the channel: sync again, uninterrupted (see PageFile).
                    if (attempt >= ChannelPageFile.MAX_REOPENS) {
                        throw e;
                    }
                    interrupted |= Thread.interrupted();
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** An IO call on a file's current channel. */
    @FunctionalInterface
    private interface ChannelCall<T> {
        T run(FileChannel channel) throws IOException;
    }

    /**
     * One open file. Appends are serialized by the caller; positional reads are concurrent.
     *
     * <h2>Interrupts</h2>
     * A {@link FileChannel} closes itself when a thread blocked in (or entering) IO on it is
     * interrupted, which would break the file for every thread sharing it. So every call that
     * finds the channel closed although this file is open reopens the channel (once per
     * closing: the stale channel is compared under the monitor) and retries, with the
     * calling thread's interrupt status cleared for the retry and restored afterwards. IO on
     * a file is therefore immune to interrupts: a read or write by an interrupted thread
     * completes, and the thread keeps its interrupt status for its own code to act on.
     * Positional writes are idempotent, so retrying one that was cut short is safe. A call
     * whose channel closes {@value #REOPENS_BEFORE_HANDOFF} times in a row (interrupts coming
     * faster than it completes) is handed to a thread that nobody interrupts, on a channel of
     * its own, and the caller waits for it: it completes however often the caller is interrupted.
     *
     * <h2>Space</h2>
     * {@code allocatedEnd} is how far the file's blocks are known to be allocated: everything
     * below {@link #end} was written, and {@link #preallocate} writes zeros through the
     * channel past it, so that a full disk fails that write with "No space left on device"
     * rather than a later copy into a mapping of the file.
     */
    private static final class ChannelPageFile implements PageFile {
        /** Consecutive reopenings one call tolerates before giving up. */
        private static final int MAX_REOPENS = 1000;
        /** Consecutive reopenings after which a call runs on a thread no caller interrupts ({@link #uninterrupted}). */
        private static final int REOPENS_BEFORE_HANDOFF = 16;
        /**
         * Threads that run the calls of interrupted callers on private channels; nothing
         * interrupts them. Daemon threads, created on demand, gone after a minute idle.
         */
        private static final java.util.concurrent.ExecutorService UNINTERRUPTED =
                new java.util.concurrent.ThreadPoolExecutor(0, Integer.MAX_VALUE, 60, java.util.concurrent.TimeUnit.SECONDS,
                        new java.util.concurrent.SynchronousQueue<>(), r -> {
                            Thread t = new Thread(r, "strata-io-uninterrupted");
                            t.setDaemon(true);
                            return t;
                        });

        private final Path path;
        private final IoPurpose purpose;
        private final Set<StandardOpenOption> reopenOptions;
        private volatile FileChannel channel;
        private volatile boolean closed;
        private volatile long end;
        /** The file's blocks up to here are allocated (written or preallocated); at least {@code end}. */
        private long allocatedEnd;
        /** Where appends go once {@link #mapAppends()} was called; null before. */
        private MappedTail mappedTail;

        ChannelPageFile(Path path, IoPurpose purpose, Set<StandardOpenOption> options) throws IOException {
            this.path = path;
            this.purpose = purpose;
            this.reopenOptions = EnumSet.copyOf(options);
            reopenOptions.remove(StandardOpenOption.CREATE);
            reopenOptions.remove(StandardOpenOption.CREATE_NEW);
            this.channel = FileChannel.open(path, options);
            try {
                this.end = call(FileChannel::size);
            } catch (IOException | RuntimeException e) {
                try {
                    channel.close();
                } catch (IOException suppressed) {
                    e.addSuppressed(suppressed);
                }
                throw e;
            }
            this.allocatedEnd = end;
        }

        @Override
        public Path path() {
            return path;
        }

        @Override
        public IoPurpose purpose() {
            return purpose;
        }

        @Override
        public void readFully(ByteBuffer dst, long position) throws IOException {
            // The hot path of every table read: written out rather than through call().
            long pos = position;
            FileChannel ch = channel;
            int reopens = 0;
            boolean interrupted = false;
            try {
                while (dst.hasRemaining()) {
                    int n;
                    try {
                        n = ch.read(dst, pos);
                    } catch (ClosedChannelException e) {
                        interrupted |= Thread.interrupted();
                        ch = reopen(ch, e, ++reopens);
                        continue;
                    }
                    if (n < 0) {
                        throw new EOFException("end of " + path + " at offset " + pos + " with "
                                + dst.remaining() + " bytes still to read");
                    }
                    pos += n;
                }
            } finally {
                if (interrupted) {
                    Thread.currentThread().interrupt();
                }
            }
        }

        @Override
        public void write(ByteBuffer src, long position) throws IOException {
            long first = src.position();
            call(ch -> {
                // A retry continues where the cut-short attempt got to.
                long pos = position + (src.position() - first);
                while (src.hasRemaining()) {
                    pos += ch.write(src, pos);
                }
                return null;
            });
            long written = position + (src.position() - first);
            if (written > end) {
                end = written;
            }
            if (written > allocatedEnd && position <= allocatedEnd) {
                allocatedEnd = written;
            }
        }

        @Override
        public long append(ByteBuffer src) throws IOException {
            long start = end;
            if (mappedTail == null) {
                write(src, start);
                return start;
            }
            int length = src.remaining();
            long target = start + length;
            if (target > allocatedEnd) {
                // Whoever appends should have preallocated; never copy into unreserved pages.
                long windowEnd = (target + MappedTail.WINDOW_BYTES - 1) / MappedTail.WINDOW_BYTES * MappedTail.WINDOW_BYTES;
                preallocate(allocatedEnd, windowEnd - allocatedEnd);
            }
            int first = src.position();
            call(ch -> {
                mappedTail.write(src, start + (src.position() - first), ch);
                return null;
            });
            end = target;
            return start;
        }

        @Override
        public boolean mapAppends() {
            if (mappedTail == null) {
                mappedTail = new MappedTail(path);
            }
            return true;
        }

        /**
         * Writes zeros through the channel to the part of the range past what is already
         * allocated. {@link #size()} is unchanged; {@link #close()} cuts the file back to it.
         */
        @Override
        public void preallocate(long offset, long length) throws IOException {
            if (offset < 0 || length < 0) {
                throw new IllegalArgumentException("preallocate of " + path + ": negative offset " + offset
                        + " or length " + length);
            }
            long target = offset + length;
            long known = Math.max(allocatedEnd, end);
            long from = Math.max(offset, known);
            if (from >= target) {
                return;
            }
            long pos = from;
            while (pos < target) {
                ByteBuffer zeros = Zeros.BUFFER.duplicate();
                zeros.limit((int) Math.min(zeros.capacity(), target - pos));
                long at = pos;
                call(ch -> {
                    while (zeros.hasRemaining()) {
                        ch.write(zeros, at + zeros.position());
                    }
                    return null;
                });
                pos += zeros.limit();
                if (offset <= known) {
                    // Contiguous with what was allocated: the new blocks count.
                    allocatedEnd = pos;
                }
            }
        }

        @Override
        public void force(boolean metadata) throws IOException {
            if (mappedTail != null) {
                mappedTail.force();
            }
            call(ch -> {
                ch.force(metadata);
                return null;
            });
        }

        @Override
        public void truncate(long size) throws IOException {
            if (mappedTail != null) {
                mappedTail.release();
            }
            call(ch -> ch.truncate(size));
            end = size;
            allocatedEnd = size;
        }

        @Override
        public long size() {
            return end;
        }

        @Override
        public void close() throws IOException {
            synchronized (this) {
                if (closed) {
                    return;
                }
                closed = true;
            }
            try (FileChannel ch = channel) {
                if (mappedTail != null) {
                    mappedTail.release();
                }
                // A mapping or a preallocation extended the file past what was written: cut the zeros off.
                if (allocatedEnd > end || mappedTail != null) {
                    if (onClosing(ch, FileChannel::size) > end) {
                        onClosing(ch, c -> c.truncate(end));
                    }
                }
            }
        }

        /** Runs {@code io} on the channel, reopening and retrying if an interrupt closed it. */
        private <T> T call(ChannelCall<T> io) throws IOException {
            FileChannel ch = channel;
            int reopens = 0;
            boolean interrupted = false;
            try {
                while (true) {
                    try {
                        return io.run(ch);
                    } catch (ClosedChannelException e) {
                        interrupted |= Thread.interrupted();
                        ch = reopen(ch, e, ++reopens);
                        if (reopens >= REOPENS_BEFORE_HANDOFF) {
                            return uninterrupted(io);
                        }
                    }
                }
            } finally {
                if (interrupted) {
                    Thread.currentThread().interrupt();
                }
            }
        }

        /**
         * Runs {@code io} on a private channel of this file from a thread no caller interrupts,
         * and waits for it however often the caller is interrupted (the caller's status is
         * kept): a call whose channel was closed {@value #REOPENS_BEFORE_HANDOFF} times in a row
         * meets interrupts faster than it completes (the shared channel closes when any thread
         * doing IO on it is interrupted), and retrying on its own thread could go on forever.
         * Seen: a WAL write under writers interrupted every 10 µs on a loaded machine gave up
         * after {@value #MAX_REOPENS} reopenings (InterruptTest).
         */
        private <T> T uninterrupted(ChannelCall<T> io) throws IOException {
            if (closed) {
                throw new ClosedChannelException();
            }
            java.util.concurrent.Future<T> done = UNINTERRUPTED.submit(() -> {
                try (FileChannel own = FileChannel.open(path, reopenOptions)) {
                    return io.run(own);
                }
            });
            try {
                return Uninterruptibly.get(done);
            } catch (java.util.concurrent.ExecutionException e) {
                Throwable cause = e.getCause();
                if (cause instanceof IOException io2) {
                    throw io2;
                }
                if (cause instanceof RuntimeException r) {
                    throw r;
                }
                if (cause instanceof Error err) {
                    throw err;
                }
                throw new IOException(path + ": " + cause, cause);
            }
        }

        /** Like {@link #call} while closing: {@link #channel} is no longer replaced, so retry on a private channel. */
        private <T> T onClosing(FileChannel ch, ChannelCall<T> io) throws IOException {
            try {
                return io.run(ch);
            } catch (ClosedChannelException e) {
                boolean interrupted = Thread.interrupted();
                try (FileChannel fresh = FileChannel.open(path, reopenOptions)) {
                    return io.run(fresh);
                } finally {
                    if (interrupted) {
                        Thread.currentThread().interrupt();
                    }
                }
            }
        }

        /**
         * Replaces {@code stale}, which {@code cause} found closed, with a new channel to the
         * same file, unless another thread already did; returns the current channel.
         *
         * @throws ClosedChannelException {@code cause}, if this file was closed
         */
        private synchronized FileChannel reopen(FileChannel stale, ClosedChannelException cause, int attempt)
                throws IOException {
            if (closed) {
                throw cause;
            }
            if (attempt > MAX_REOPENS) {
                throw new IOException(path + ": its channel was closed under " + MAX_REOPENS
                        + " consecutive attempts of one call (interrupts?)", cause);
            }
            if (channel == stale) {
                try {
                    stale.close();
                } catch (IOException ignored) {
                    // Already closed; closing again only makes sure.
                }
                try {
                    channel = FileChannel.open(path, reopenOptions);
                } catch (IOException e) {
                    IOException failed = new IOException("cannot reopen " + path + " after an interrupt closed it: " + e, e);
                    failed.addSuppressed(cause);
                    throw failed;
                }
            }
            return channel;
        }
    }

    /** A shared, read-only block of zeros for preallocation. */
    private static final class Zeros {
        static final ByteBuffer BUFFER = ByteBuffer.allocateDirect(1 << 20).asReadOnlyBuffer();
    }
}
