package dev.strata.lsm.io.direct;

import com.sun.jna.Native;
import com.sun.jna.Pointer;
import dev.strata.lsm.io.IoPurpose;
import dev.strata.lsm.io.OpenMode;
import dev.strata.lsm.io.PageFile;
import dev.strata.lsm.io.Uninterruptibly;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

/**
 * A file of {@link NativeStorageIO}: a buffered descriptor, and for O_DIRECT files a second,
 * direct one. IO whose buffer address, file offset and length are multiples of
 * {@link #alignment()} uses the direct descriptor; everything else the buffered one (the
 * kernel writes back and invalidates the page cache around direct IO, so the two stay
 * coherent). A heap buffer is copied through a per-thread direct buffer.
 *
 * <p>Write-behind: an aligned write to a table output on the direct descriptor is written
 * by a background thread while the caller encodes the next megabyte (O_DIRECT writes block
 * until the device has the data, where buffered writes return at once and the kernel writes
 * back behind them). {@link #writeBehind} takes the caller's buffer itself and hands back
 * another (up to two such writes in flight); {@link #write} copies into one of two buffers
 * of the file (one in flight). Every other call on the file ({@link #force}, reads, {@link
 * #close}, ...) first waits for the writes in flight and reports a failure. The table is
 * durable only after {@link #force}, as with any file.
 *
 * <p>System calls are not interruptible: an interrupted thread's IO completes and its
 * interrupt status is left alone, as {@link PageFile} requires. EINTR is retried.
 */
final class NativePageFile implements PageFile {
    /** Heap buffers are copied through this much direct memory per thread. */
    private static final int SCRATCH_BYTES = 64 << 10;
    private static final ThreadLocal<ByteBuffer> SCRATCH = ThreadLocal.withInitial(
            () -> ByteBuffer.allocateDirect(SCRATCH_BYTES));
    /** Merge reads drop the pages behind them in steps of this many bytes. */
    private static final long ADVISE_STEP = 4L << 20;
    private static final long MIN_PREALLOCATION = 1L << 20;
    /** Merge inputs on the direct descriptor are read this many bytes at a time (see {@link #readAhead}). */
    private static final int READ_AHEAD_BYTES = 1 << 20;
    private static final long MAX_PREALLOCATION = 32L << 20;
    /**
     * {@link #writeBehind}: how many of the caller's buffers may be in flight at once. Two keep
     * the device busy across the caller's uneven pace (a pause, a leaf of large values) and the
     * hand-off between threads.
     */
    private static final int MAX_HANDED_IN_FLIGHT = 2;

    private final NativeStorageIO owner;
    private final Path path;
    private final IoPurpose purpose;
    private final int fd;
    /** The O_DIRECT descriptor, or -1. */
    private final int directFd;
    private final int alignment;
    /** A table being written: preallocated ahead, pages dropped from the cache after a sync. */
    private final boolean tableOutput;
    /** A merge input: pages behind the reads are dropped from the cache. */
    private final boolean mergeInput;
    private volatile long end;
    /** How far blocks are allocated, preallocated ones past {@link #end} included; writer only. */
    private long allocatedEnd;
    private boolean preallocationUnsupported;
    /** Merge inputs on the direct descriptor: the two read-ahead windows, their file offsets and bytes. */
    private final ByteBuffer[] windows = new ByteBuffer[2];
    private final long[] windowStarts = new long[2];
    private final int[] windowLengths = new int[2];
    /** Which of the two windows is the newest. */
    private int newest;
    /** Where the last read outside the windows ended (-1: none since the last window). */
    private long jumpEnd = -1;
    /** The window after the newest, being read on the writer thread (null when none), and where it starts. */
    private ByteBuffer nextWindow;
    private CompletableFuture<Integer> nextRead;
    private long nextStart;
    /** Merge inputs: the offset up to which pages were dropped. */
    private volatile long advisedUpTo;
    private boolean closed;
    /** Write-behind: the write in flight (null when none) and the two buffers it alternates. */
    private final java.util.ArrayDeque<InFlight> pending = new java.util.ArrayDeque<>();
    private final ByteBuffer[] behind = new ByteBuffer[2];
    private int nextBehind;
    /** {@link #writeBehind}: callers' buffers already written, free to hand back. */
    private final java.util.ArrayDeque<ByteBuffer> released = new java.util.ArrayDeque<>();

    /** A write behind the caller, oldest first; {@code handed} is the caller's buffer it writes (or null: a copy). */
    private record InFlight(CompletableFuture<Void> done, ByteBuffer handed) {
    }

    private NativePageFile(NativeStorageIO owner, Path path, IoPurpose purpose, int fd, int directFd, int alignment,
                           boolean tableOutput, boolean mergeInput, long size) {
        this.owner = owner;
        this.path = path;
        this.purpose = purpose;
        this.fd = fd;
        this.directFd = directFd;
        this.alignment = alignment;
        this.tableOutput = tableOutput;
        this.mergeInput = mergeInput;
        this.end = size;
        this.allocatedEnd = size;
    }

    static NativePageFile open(NativeStorageIO owner, Path path, OpenMode mode, IoPurpose purpose, boolean direct)
            throws IOException {
        int flags = LibC.O_CLOEXEC;
        flags |= switch (mode) {
            case READ -> LibC.O_RDONLY;
            case READ_WRITE -> LibC.O_RDWR;
            case CREATE -> LibC.O_RDWR | LibC.O_CREAT;
            case CREATE_NEW -> LibC.O_RDWR | LibC.O_CREAT | LibC.O_EXCL;
        };
        byte[] cPath = NativeStorageIO.cPath(path);
        int fd = LibC.open(cPath, flags, 0644);
        if (fd < 0) {
            int errno = NativeStorageIO.lastError();
            if (errno == 2) {
                throw new java.nio.file.NoSuchFileException(path.toString());
            }
            if (errno == 17) {
                throw new java.nio.file.FileAlreadyExistsException(path.toString());
            }
            throw NativeStorageIO.error("open", path, errno);
        }
        int directFd = -1;
        try {
            if (direct) {
                // The file exists now: the direct descriptor never creates.
                int directFlags = (flags & ~(LibC.O_CREAT | LibC.O_EXCL)) | LibC.O_DIRECT;
                if (owner.refusesDirect(path)) {
                    owner.directRefused(path, LibC.EINVAL);
                } else {
                    directFd = LibC.open(cPath, directFlags, 0);
                    if (directFd < 0) {
                        int errno = NativeStorageIO.lastError();
                        if (errno != LibC.EINVAL) {
                            throw NativeStorageIO.error("open (O_DIRECT)", path, errno);
                        }
                        owner.directRefused(path, errno);
                    }
                }
            }
            int alignment = directFd >= 0 ? alignmentOf(directFd, owner.storeBlockSize(path)) : 1;
            long size = sizeOf(fd, path);
            boolean writing = mode != OpenMode.READ;
            boolean tableOutput = writing && (purpose == IoPurpose.FLUSH || purpose == IoPurpose.MERGE);
            boolean mergeInput = !writing && purpose == IoPurpose.MERGE;
            if (purpose == IoPurpose.READ && owner.options().fadvise()) {
                LibC.posix_fadvise(fd, 0, 0, LibC.POSIX_FADV_RANDOM);
            }
            return new NativePageFile(owner, path, purpose, fd, directFd, alignment, tableOutput, mergeInput, size);
        } catch (IOException | RuntimeException | Error e) {
            if (directFd >= 0) {
                LibC.close(directFd);
            }
            LibC.close(fd);
            throw e;
        }
    }

    /**
     * The alignment O_DIRECT IO on {@code fd} needs: the larger of statx's direct-IO
     * alignment (memory and offset; 4096 where statx does not report it) and the file
     * store's block size.
     */
    static int alignmentOf(int fd, int storeBlockSize) {
        int dio = 4096;
        Statx.Result st = Statx.of(fd);
        if (st != null && st.hasDioAlign()) {
            dio = Math.max(st.dioOffsetAlign(), st.dioMemAlign());
        }
        int a = Math.max(dio, storeBlockSize);
        return Integer.highestOneBit(a) == a ? a : Integer.highestOneBit(a) << 1;
    }

    private static long sizeOf(int fd, Path path) throws IOException {
        // lseek(fd, 0, SEEK_END) would move the offset we never use; statx has the size too,
        // but it may be missing: the file's size from Java is enough (the file is open).
        try {
            return java.nio.file.Files.size(path);
        } catch (IOException e) {
            throw new IOException("cannot size " + path + ": " + e, e);
        }
    }

    /** The alignment direct IO on this file needs, or 1 when the file is not direct. */
    int alignment() {
        return alignment;
    }

    /** The O_DIRECT descriptor, or -1 when this file is buffered (tests look at its flags). */
    int directDescriptor() {
        return directFd;
    }

    /** The buffered descriptor. */
    int bufferedDescriptor() {
        return fd;
    }

    @Override
    public Path path() {
        return path;
    }

    @Override
    public IoPurpose purpose() {
        return purpose;
    }

    private boolean directEligible(ByteBuffer b, long position) {
        if (directFd < 0 || !b.isDirect()) {
            return false;
        }
        long mask = alignment - 1;
        return ((address(b) | position | b.remaining()) & mask) == 0;
    }

    /** The address of {@code b}'s position. */
    private static long address(ByteBuffer b) {
        return Pointer.nativeValue(Native.getDirectBufferPointer(b)) + b.position();
    }

    @Override
    public void readFully(ByteBuffer dst, long position) throws IOException {
        if (!pending.isEmpty()) {
            awaitPending();
        }
        if (mergeInput && directFd >= 0 && dst.remaining() <= READ_AHEAD_BYTES / 2 && readAhead(dst, position)) {
            return;
        }
        long reached = position + dst.remaining();
        if (directEligible(dst, position)) {
            // Aligned: straight into the caller's buffer. A read ending at an unaligned end of
            // file comes back short; the rest (none, at the end of the file) is read buffered.
            int done = preadDirect(address(dst), dst.remaining(), position);
            dst.position(dst.position() + done);
            position += done;
        }
        if (dst.hasRemaining()) {
            readBuffered(dst, position);
        }
        if (mergeInput && owner.options().fadvise()) {
            adviseBehind(reached);
        }
    }

    /**
     * Merge inputs on the direct descriptor: a merge reads a table page after page, and O_DIRECT
     * has no kernel read-ahead, so each small read would wait for the device. The file reads
     * {@value #READ_AHEAD_BYTES} aligned bytes at a time into windows of its own and serves
     * reads inside them from memory: the two newest windows stay (a tree's leaves and the
     * interior page written after them, read before them, fall in neighbouring windows), and
     * the window after the newest is read on the owner's writer thread meanwhile, so a merge
     * reading in order seldom waits. A read elsewhere (a jump to an upper interior page, a
     * seek) is not windowed: the caller's own path reads just its range, as it does when the
     * range is not all in the file. Returns whether the read was served. Synchronized: the
     * sub-tasks of a block compaction read one input together.
     */
    private synchronized boolean readAhead(ByteBuffer dst, long position) throws IOException {
        int length = dst.remaining();
        for (int w = 0; w < 2; w++) {
            if (windows[w] != null && position >= windowStarts[w]
                    && position + length <= windowStarts[w] + windowLengths[w]) {
                serve(w, dst, position);
                return true;
            }
        }
        int target = 1 - newest; // the older window's slot takes the new one
        long end = windows[newest] == null ? -1 : windowStarts[newest] + windowLengths[newest];
        ByteBuffer buffer;
        long start;
        int read;
        if (windows[newest] != null && windowLengths[newest] == READ_AHEAD_BYTES && position >= end
                && position < end + READ_AHEAD_BYTES) {
            // The next window in order: the one read ahead (or read now).
            start = end;
            if (nextRead != null && nextStart == end) {
                read = awaitRead(nextRead);
                buffer = nextWindow;
                nextWindow = null;
            } else {
                discardReadAhead();
                buffer = newWindow(nextWindow);
                nextWindow = null;
                read = readWindow(buffer, start);
            }
            nextRead = null;
        } else if (position == jumpEnd) {
            // A second read in order outside the windows (after the root and interior pages a
            // tree iterator reads first, or a seek): a window starts here.
            discardReadAhead();
            start = position / alignment * alignment;
            buffer = newWindow(windows[target]);
            windows[target] = null;
            read = readWindow(buffer, start);
        } else {
            jumpEnd = position + length;
            return false; // a jump (or past the end of the file): the caller reads just this range
        }
        jumpEnd = -1;
        if (windows[target] != null) {
            nextWindow = windows[target]; // the older window's buffer takes the next read ahead
        }
        windows[target] = buffer;
        windowStarts[target] = start;
        windowLengths[target] = read;
        newest = target;
        if (owner.options().fadvise()) {
            adviseBehind(windowStarts[target]);
        }
        if (windowLengths[target] == READ_AHEAD_BYTES && !closed) {
            nextWindow = newWindow(nextWindow);
            long next = windowStarts[target] + READ_AHEAD_BYTES;
            ByteBuffer into = nextWindow;
            nextStart = next;
            nextRead = CompletableFuture.supplyAsync(() -> {
                try {
                    return readWindow(into, next);
                } catch (IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            }, owner.writer());
        }
        if (position + length > windowStarts[target] + windowLengths[target]) {
            return false;
        }
        serve(target, dst, position);
        return true;
    }

    /** {@code reuse}, or a new window buffer when null. */
    private ByteBuffer newWindow(ByteBuffer reuse) {
        return reuse != null ? reuse : aligned(READ_AHEAD_BYTES);
    }

    /** A new direct buffer of {@code capacity} bytes aligned for this file's direct IO. */
    private ByteBuffer aligned(int capacity) {
        return dev.strata.lsm.io.AlignedBuffers.allocate(capacity, Math.max(alignment, 4096));
    }

    /** Copies {@code dst.remaining()} bytes at {@code position} out of window {@code w}. */
    private void serve(int w, ByteBuffer dst, long position) {
        ByteBuffer slice = windows[w].duplicate();
        int from = (int) (position - windowStarts[w]);
        slice.limit(from + dst.remaining()).position(from);
        dst.put(slice);
    }

    /** Waits for a window being read ahead that is not wanted (it reads into {@link #nextWindow}). */
    private void discardReadAhead() {
        if (nextRead != null) {
            try {
                awaitRead(nextRead);
            } catch (IOException ignored) {
                // Nothing is taken from it.
            }
            nextRead = null;
        }
    }

    /** Reads up to {@value #READ_AHEAD_BYTES} bytes at {@code start} into {@code into} (fewer at the end of the file). */
    private int readWindow(ByteBuffer into, long start) throws IOException {
        return preadDirect(address(into.clear()), READ_AHEAD_BYTES, start);
    }

    /**
     * Reads up to {@code length} aligned bytes at {@code position} into {@code addr} on the
     * direct descriptor; returns the bytes read, fewer only at the end of the file (a short,
     * unaligned read there ends it).
     */
    private int preadDirect(long addr, int length, long position) throws IOException {
        long done = 0;
        while (done < length) {
            long n = LibC.pread(directFd, addr + done, length - done, position + done);
            if (n < 0) {
                int errno = NativeStorageIO.lastError();
                if (errno == LibC.EINTR) {
                    continue;
                }
                throw NativeStorageIO.error("pread (O_DIRECT)", path, errno);
            }
            done += n;
            if (n == 0 || done % alignment != 0) {
                break; // the end of the file
            }
        }
        owner.countDirect(false, done);
        return (int) done;
    }

    /** The bytes a window read got, waiting uninterruptibly; its failure as an IOException. */
    private int awaitRead(CompletableFuture<Integer> read) throws IOException {
        try {
            return Uninterruptibly.get(read);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof java.io.UncheckedIOException u) {
                throw u.getCause();
            }
            throw new IOException("read ahead in " + path + " failed: " + cause, cause);
        }
    }

    private void readBuffered(ByteBuffer dst, long position) throws IOException {
        long pos = position;
        if (dst.isDirect()) {
            while (dst.hasRemaining()) {
                long n = LibC.pread(fd, address(dst), dst.remaining(), pos);
                if (n < 0) {
                    int errno = NativeStorageIO.lastError();
                    if (errno == LibC.EINTR) {
                        continue;
                    }
                    throw NativeStorageIO.error("pread", path, errno);
                }
                if (n == 0) {
                    throw eof(pos, dst.remaining());
                }
                dst.position(dst.position() + (int) n);
                pos += n;
            }
            return;
        }
        ByteBuffer scratch = SCRATCH.get();
        while (dst.hasRemaining()) {
            scratch.clear().limit(Math.min(SCRATCH_BYTES, dst.remaining()));
            long n = LibC.pread(fd, address(scratch), scratch.remaining(), pos);
            if (n < 0) {
                int errno = NativeStorageIO.lastError();
                if (errno == LibC.EINTR) {
                    continue;
                }
                throw NativeStorageIO.error("pread", path, errno);
            }
            if (n == 0) {
                throw eof(pos, dst.remaining());
            }
            scratch.limit((int) n);
            dst.put(scratch);
            pos += n;
        }
    }

    private EOFException eof(long pos, int remaining) {
        return new EOFException("end of " + path + " at offset " + pos + " with " + remaining
                + " bytes still to read");
    }

    /** Drops the cached pages of a merge input behind {@code reached}, in steps. */
    private void adviseBehind(long reached) {
        long from = advisedUpTo;
        if (reached - from >= ADVISE_STEP) {
            advisedUpTo = reached;
            LibC.posix_fadvise(fd, from, reached - from, LibC.POSIX_FADV_DONTNEED);
        }
    }

    @Override
    public void write(ByteBuffer src, long position) throws IOException {
        int length = src.remaining();
        if (tableOutput && owner.options().preallocate() && !preallocationUnsupported) {
            reserveAhead(position + length);
        }
        if (directEligible(src, position) && tableOutput) {
            copyBehind(src, position);
        } else if (directEligible(src, position)) {
            awaitPending();
            writeAll(directFd, src, position, "pwrite (O_DIRECT)");
            owner.countDirect(true, length);
        } else if (src.isDirect()) {
            awaitPending();
            writeAll(fd, src, position, "pwrite");
        } else {
            awaitPending();
            ByteBuffer scratch = SCRATCH.get();
            long pos = position;
            while (src.hasRemaining()) {
                scratch.clear();
                int n = Math.min(SCRATCH_BYTES, src.remaining());
                ByteBuffer part = src.slice();
                part.limit(n);
                scratch.put(part).flip();
                writeAll(fd, scratch, pos, "pwrite");
                src.position(src.position() + n);
                pos += n;
            }
        }
        extendTo(position + length);
    }

    /**
     * Table outputs on the direct descriptor: {@code src} itself is written on the owner's
     * writer thread, no copy, and the caller gets the buffer of the write before (or a new
     * one) to fill meanwhile. Anything else is written as {@link #write} does.
     */
    @Override
    public ByteBuffer writeBehind(ByteBuffer src, long position) throws IOException {
        if (!tableOutput || !directEligible(src, position)) {
            write(src, position);
            src.clear();
            return src;
        }
        int length = src.remaining();
        if (owner.options().preallocate() && !preallocationUnsupported) {
            reserveAhead(position + length);
        }
        awaitPending(MAX_HANDED_IN_FLIGHT - 1);
        ByteBuffer next = released.poll();
        if (next == null || next.capacity() < src.capacity()) {
            next = aligned(src.capacity());
        }
        submitBehind(src, position, src);
        extendTo(position + length);
        next.clear();
        return next;
    }

    /** Copies {@code src} into a buffer of this file and writes it on the owner's writer thread. */
    private void copyBehind(ByteBuffer src, long position) throws IOException {
        int length = src.remaining();
        awaitPending();
        ByteBuffer copy = behind[nextBehind];
        if (copy == null || copy.capacity() < length) {
            copy = aligned(length);
            behind[nextBehind] = copy;
        }
        nextBehind ^= 1;
        copy.clear();
        copy.put(src).flip();
        submitBehind(copy, position, null);
    }

    /**
     * Writes {@code buffer} at {@code position} on the owner's writer thread; {@code handed} is
     * the caller's buffer to hand back once written (null for a copy).
     */
    private void submitBehind(ByteBuffer buffer, long position, ByteBuffer handed) {
        int length = buffer.remaining();
        pending.add(new InFlight(CompletableFuture.runAsync(() -> {
            try {
                writeAll(directFd, buffer, position, "pwrite (O_DIRECT)");
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }, owner.writer()), handed));
        owner.countDirect(true, length);
    }

    /** Records that the file now reaches {@code written}. */
    private void extendTo(long written) {
        if (written > end) {
            end = written;
        }
        if (written > allocatedEnd) {
            allocatedEnd = written;
        }
    }

    /** Waits for every write in flight, uninterruptibly, and throws the first failure. */
    private void awaitPending() throws IOException {
        awaitPending(0);
    }

    /**
     * Waits, oldest first and uninterruptibly, until at most {@code inFlight} writes are in
     * flight; throws the failure of the first one that failed (the others stay queued and are
     * reported by later calls).
     */
    private void awaitPending(int inFlight) throws IOException {
        while (pending.size() > inFlight) {
            InFlight w = pending.peekFirst();
            try {
                Uninterruptibly.get(w.done());
            } catch (ExecutionException e) {
                pending.removeFirst();
                Throwable cause = e.getCause();
                if (cause instanceof java.io.UncheckedIOException u) {
                    throw new IOException(u.getCause().getMessage(), u.getCause());
                }
                throw new IOException("write of " + path + " failed: " + cause, cause);
            }
            pending.removeFirst();
            if (w.handed() != null) {
                released.add(w.handed());
            }
        }
    }

    private void writeAll(int descriptor, ByteBuffer src, long position, String call) throws IOException {
        long pos = position;
        while (src.hasRemaining()) {
            long n = LibC.pwrite(descriptor, address(src), src.remaining(), pos);
            if (n < 0) {
                int errno = NativeStorageIO.lastError();
                if (errno == LibC.EINTR) {
                    continue;
                }
                throw NativeStorageIO.error(call, path, errno);
            }
            src.position(src.position() + (int) n);
            pos += n;
        }
    }

    /**
     * Table outputs: reserves blocks ahead of {@code target} with fallocate(KEEP_SIZE), in
     * steps that grow with the file (1 to 32 MiB), so the file system can lay the table out
     * contiguously and a full disk fails here. Unsupported: silently not done.
     */
    private void reserveAhead(long target) throws IOException {
        if (target <= allocatedEnd) {
            return;
        }
        long step = Math.min(MAX_PREALLOCATION, Math.max(MIN_PREALLOCATION, end));
        long to = (target + step + MIN_PREALLOCATION - 1) / MIN_PREALLOCATION * MIN_PREALLOCATION;
        int rc = LibC.fallocate(fd, LibC.FALLOC_FL_KEEP_SIZE, allocatedEnd, to - allocatedEnd);
        if (rc != 0) {
            int errno = NativeStorageIO.lastError();
            if (errno == LibC.ENOSPC) {
                // Try just what this write needs: a nearly full disk may still hold it.
                if (LibC.fallocate(fd, LibC.FALLOC_FL_KEEP_SIZE, allocatedEnd, target - allocatedEnd) == 0) {
                    allocatedEnd = target;
                    return;
                }
                throw NativeStorageIO.error("fallocate", path, NativeStorageIO.lastError());
            }
            preallocationUnsupported = true;
            return;
        }
        allocatedEnd = to;
    }

    @Override
    public long append(ByteBuffer src) throws IOException {
        long start = end;
        write(src, start);
        return start;
    }

    @Override
    public void force(boolean metadata) throws IOException {
        awaitPending();
        int rc;
        do {
            rc = metadata ? LibC.fsync(fd) : LibC.fdatasync(fd);
        } while (rc != 0 && NativeStorageIO.lastError() == LibC.EINTR);
        if (rc != 0) {
            throw NativeStorageIO.error(metadata ? "fsync" : "fdatasync", path, NativeStorageIO.lastError());
        }
        if (tableOutput && owner.options().fadvise()) {
            // The pages written buffered are clean now: drop them (a table is read back
            // through the block cache, by point reads that fetch a page at a time).
            LibC.posix_fadvise(fd, 0, 0, LibC.POSIX_FADV_DONTNEED);
        }
    }

    @Override
    public void truncate(long size) throws IOException {
        awaitPending();
        if (LibC.ftruncate(fd, size) != 0) {
            throw NativeStorageIO.error("ftruncate", path, NativeStorageIO.lastError());
        }
        end = size;
        allocatedEnd = size;
    }

    @Override
    public long size() {
        return end;
    }

    /** Reserves blocks with fallocate(KEEP_SIZE); the file's size is unchanged. */
    @Override
    public void preallocate(long offset, long length) throws IOException {
        if (offset < 0 || length < 0) {
            throw new IllegalArgumentException("preallocate of " + path + ": negative offset " + offset
                    + " or length " + length);
        }
        if (!owner.supportsPreallocate()) {
            throw new UnsupportedOperationException("preallocate is not supported for " + path
                    + (owner.options().preallocate() ? " (the file system has no fallocate)" : " (preallocate=false)"));
        }
        if (length == 0) {
            return;
        }
        if (LibC.fallocate(fd, LibC.FALLOC_FL_KEEP_SIZE, offset, length) != 0) {
            int errno = NativeStorageIO.lastError();
            if (errno == LibC.EOPNOTSUPP) {
                throw new UnsupportedOperationException("preallocate is not supported for " + path + ": "
                        + LibC.describe(errno));
            }
            throw NativeStorageIO.error("fallocate", path, errno);
        }
        if (offset <= allocatedEnd && offset + length > allocatedEnd) {
            allocatedEnd = offset + length;
        }
    }

    /** Allocated blocks × 512 from statx(2) (-1 where statx is unavailable). */
    @Override
    public long allocatedBytes() {
        Statx.Result r = Statx.of(fd);
        return r == null || (r.mask() & Statx.STATX_BLOCKS) == 0 ? -1 : r.blocks() * 512;
    }

    /** Frees the blocks of the range with fallocate(PUNCH_HOLE | KEEP_SIZE). */
    @Override
    public void punchHole(long offset, long length) throws IOException {
        if (offset < 0 || length < 0) {
            throw new IllegalArgumentException("punchHole of " + path + ": negative offset " + offset
                    + " or length " + length);
        }
        if (!owner.supportsPunchHole()) {
            throw new UnsupportedOperationException("punchHole is not supported for " + path
                    + (owner.options().punchHoles() ? " (the file system cannot punch holes)" : " (punch-holes=false)"));
        }
        if (length == 0) {
            return;
        }
        awaitPending();
        if (LibC.fallocate(fd, LibC.FALLOC_FL_PUNCH_HOLE | LibC.FALLOC_FL_KEEP_SIZE, offset, length) != 0) {
            int errno = NativeStorageIO.lastError();
            if (errno == LibC.EOPNOTSUPP) {
                throw new UnsupportedOperationException("punchHole is not supported for " + path + ": "
                        + LibC.describe(errno));
            }
            throw NativeStorageIO.error("fallocate(PUNCH_HOLE)", path, errno);
        }
    }

    /** Frees blocks preallocated past the end, then closes both descriptors. */
    @Override
    public synchronized void close() throws IOException {
        if (closed) {
            return;
        }
        closed = true;
        IOException failure = null;
        try {
            awaitPending();
        } catch (IOException e) {
            failure = e;
        }
        // A window read ahead must not run on a closed (and maybe reused) descriptor.
        discardReadAhead();
        if (allocatedEnd > end) {
            // KEEP_SIZE blocks past the end stay allocated until the file is truncated
            // (punching past the end is a no-op on ext4); truncating to its own size frees them.
            if (LibC.ftruncate(fd, end) != 0) {
                failure = NativeStorageIO.error("freeing preallocated blocks past the end", path,
                        NativeStorageIO.lastError());
            }
        }
        if (directFd >= 0 && LibC.close(directFd) != 0 && failure == null) {
            failure = NativeStorageIO.error("close", path, NativeStorageIO.lastError());
        }
        if (LibC.close(fd) != 0 && failure == null) {
            failure = NativeStorageIO.error("close", path, NativeStorageIO.lastError());
        }
        if (failure != null) {
            throw failure;
        }
    }

    @Override
    public String toString() {
        return "NativePageFile[" + path + ", " + purpose + (directFd >= 0 ? ", O_DIRECT align " + alignment : "")
                + "]";
    }
}
