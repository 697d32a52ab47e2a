package dev.strata.lsm.io.direct;

import com.sun.jna.Native;
import com.sun.jna.Platform;
import dev.strata.lsm.io.FileChannelStorageIO;
import dev.strata.lsm.io.IoPurpose;
import dev.strata.lsm.io.OpenMode;
import dev.strata.lsm.io.PageFile;
import dev.strata.lsm.io.StorageIO;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * Strata's storage IO on Linux through JNA ({@code <storageIO name="native">}).
 *
 * <h2>Which file gets what</h2>
 * <ul>
 *   <li>Table outputs (purpose {@link IoPurpose#FLUSH FLUSH} or {@link IoPurpose#MERGE MERGE},
 *       created) and merge inputs ({@code MERGE}, read): opened with O_DIRECT when
 *       {@code direct} is on. Page IO whose buffer address, offset and length are multiples
 *       of the file's {@linkplain NativePageFile#alignment() alignment} goes straight
 *       between the caller's buffer and the disk; anything else (a footer read of a few
 *       bytes, a heap buffer) goes through a second, buffered descriptor of the same file,
 *       which the kernel keeps coherent with the direct one. Table outputs are preallocated
 *       ahead with {@code fallocate(KEEP_SIZE)} ({@code preallocate}); the blocks past the
 *       end are freed again when the file is closed.</li>
 *   <li>Point and scan reads ({@link IoPurpose#READ READ}): buffered (the page cache is the
 *       second cache level behind the block cache), with {@code POSIX_FADV_RANDOM} so that
 *       a point read does not read ahead ({@code fadvise}).</li>
 *   <li>The WAL, the manifest and anything else: {@link FileChannelStorageIO}'s files,
 *       buffered. A WAL commit appends a few hundred bytes at an unaligned offset; O_DIRECT
 *       would make each one a read-modify-write (or a padded record) of its last block, and
 *       in async mode the WAL appends by copying into a shared mapping of the segment, which
 *       O_DIRECT does not apply to. {@code direct} therefore does not apply to the WAL.</li>
 * </ul>
 * Where O_DIRECT is refused (EINVAL: a file system without direct IO), the file is used
 * buffered; the first such fallback is logged (once per instance), and
 * {@link #directFallbacks()} counts them.
 *
 * <h2>Capabilities</h2>
 * {@link #createDirectories} (the engine's first call on a store directory) probes the
 * directory's file system once: whether {@code fallocate} and hole punching work there and
 * whether O_DIRECT is accepted ({@link #capabilities(Path)}). {@link #supportsPreallocate()}
 * and {@link #supportsPunchHole()} answer for the last probed file system, within what the
 * parameters allow.
 *
 * <p>Thread-safe. Works on JDK 17 and later; on JDK 22+ run with
 * {@code --enable-native-access=ALL-UNNAMED} (the module's jar manifest and the
 * {@code strata-bench} script say so) to avoid the JDK's restricted-method warning.
 */
public final class NativeStorageIO implements StorageIO {
    private static final System.Logger LOG = System.getLogger(NativeStorageIO.class.getName());

    private final NativeOptions options;
    private final FileChannelStorageIO buffered = new FileChannelStorageIO();
    private final Consumer<String> warnings;
    private final Predicate<Path> refuseDirect;
    private final AtomicBoolean fallbackLogged = new AtomicBoolean();
    private final AtomicLong directFallbacks = new AtomicLong();
    private final AtomicLong directBytesRead = new AtomicLong();
    private final AtomicLong directBytesWritten = new AtomicLong();
    private final Map<Path, Capabilities> probed = new ConcurrentHashMap<>();
    private final Map<Path, Integer> storeBlockSizes = new ConcurrentHashMap<>();
    private volatile Capabilities current;
    /** Runs the write-behind of O_DIRECT table outputs (daemon threads, idle ones expire). */
    private final java.util.concurrent.ExecutorService writer = new java.util.concurrent.ThreadPoolExecutor(
            0, Integer.MAX_VALUE, 10, java.util.concurrent.TimeUnit.SECONDS,
            new java.util.concurrent.SynchronousQueue<>(), r -> {
                Thread t = new Thread(r, "strata-direct-writer");
                t.setDaemon(true);
                return t;
            });

    /** With every parameter at its default. */
    public NativeStorageIO() {
        this(NativeOptions.DEFAULTS);
    }

    /**
     * A native storage IO with {@code options}, logging its fallbacks (O_DIRECT refused, hole
     * punching unsupported) as warnings.
     *
     * @param options what to use: O_DIRECT, hole punching, ...
     * @throws UnsupportedOperationException off Linux, or if the C library cannot be bound
     */
    public NativeStorageIO(NativeOptions options) {
        this(options, message -> LOG.log(System.Logger.Level.WARNING, message), path -> false);
    }

    /**
     * For tests: warnings go to {@code warnings}, and O_DIRECT opens of the paths
     * {@code refuseDirect} accepts fail as a file system without direct IO fails them
     * (EINVAL), for kernels where no file system at hand refuses O_DIRECT (tmpfs accepts it
     * since Linux 6.6).
     */
    NativeStorageIO(NativeOptions options, Consumer<String> warnings, Predicate<Path> refuseDirect) {
        this.options = Objects.requireNonNull(options, "options");
        this.warnings = warnings;
        this.refuseDirect = refuseDirect;
        if (!Platform.isLinux() || !Platform.is64Bit()) {
            throw new UnsupportedOperationException("the native storage IO needs 64-bit Linux; this is "
                    + System.getProperty("os.name") + " on " + Platform.ARCH + " (use nio)");
        }
        try {
            Objects.requireNonNull(LibC.describe(0));
        } catch (LinkageError e) {
            throw new UnsupportedOperationException("the native storage IO cannot bind the C library: " + e, e);
        }
    }

    /**
     * The parameters this instance was created with.
     *
     * @return the options, as given
     */
    public NativeOptions options() {
        return options;
    }

    @Override
    public PageFile open(Path path, OpenMode mode, IoPurpose purpose) throws IOException {
        switch (purpose) {
            case FLUSH, MERGE, READ -> {
                boolean direct = options.direct() && purpose != IoPurpose.READ;
                return NativePageFile.open(this, path, mode, purpose, direct);
            }
            default -> {
                return buffered.open(path, mode, purpose);
            }
        }
    }

    /**
     * The alignment page IO should have: 4096, the least any Linux file system needs for
     * O_DIRECT. A file whose own alignment is larger (statx's direct-IO alignment, or its
     * file store's block size) serves IO that does not meet it through its buffered
     * descriptor, so IO aligned to this value is always correct.
     */
    @Override
    public int alignment() {
        return 4096;
    }

    @Override
    public boolean supportsPreallocate() {
        Capabilities c = current;
        return options.preallocate() && (c == null || c.fallocate());
    }

    @Override
    public boolean supportsPunchHole() {
        Capabilities c = current;
        return options.punchHoles() && (c == null || c.punchHole());
    }

    /**
     * O_DIRECT opens refused so far, each served buffered instead.
     *
     * @return the count since this instance was created
     */
    public long directFallbacks() {
        return directFallbacks.get();
    }

    /**
     * Bytes read through O_DIRECT descriptors so far (the rest went through the page cache).
     *
     * @return the count since this instance was created
     */
    public long directBytesRead() {
        return directBytesRead.get();
    }

    /**
     * Bytes written through O_DIRECT descriptors so far.
     *
     * @return the count since this instance was created
     */
    public long directBytesWritten() {
        return directBytesWritten.get();
    }

    java.util.concurrent.Executor writer() {
        return writer;
    }

    void countDirect(boolean write, long bytes) {
        (write ? directBytesWritten : directBytesRead).addAndGet(bytes);
    }

    /**
     * What the file system of {@code dir} (an existing directory) supports, probed once per
     * directory with a short-lived file.
     *
     * @param dir an existing directory
     * @return what its file system supports (cached after the first probe)
     * @throws IOException when the probe file cannot be created, written or deleted
     */
    public Capabilities capabilities(Path dir) throws IOException {

        Path key = dir.toAbsolutePath().normalize();
        Capabilities c = probed.get(key);
        if (c == null) {
            c = Capabilities.probe(key, this);
            probed.put(key, c);
        }
        current = c;
        return c;
    }

    @Override
    public boolean exists(Path path) {
        return buffered.exists(path);
    }

    @Override
    public List<Path> list(Path dir) throws IOException {
        return buffered.list(dir);
    }

    /** Creates {@code dir} and probes its file system's {@linkplain #capabilities capabilities}. */
    @Override
    public void createDirectories(Path dir) throws IOException {
        buffered.createDirectories(dir);
        capabilities(dir);
    }

    @Override
    public void delete(Path path) throws IOException {
        buffered.delete(path);
    }

    @Override
    public void rename(Path source, Path target) throws IOException {
        buffered.rename(source, target);
    }

    @Override
    public void syncDirectory(Path dir) throws IOException {
        buffered.syncDirectory(dir);
    }

    @Override
    public String toString() {
        return "NativeStorageIO" + options;
    }

    // ---- used by NativePageFile

    /** Whether an O_DIRECT open of {@code path} is to fail as if refused (tests). */
    boolean refusesDirect(Path path) {
        return refuseDirect.test(path);
    }

    /** Records a refused O_DIRECT open, logging the first. */
    void directRefused(Path path, int errno) {
        directFallbacks.incrementAndGet();
        if (fallbackLogged.compareAndSet(false, true)) {
            warnings.accept("O_DIRECT refused for " + path + " (" + LibC.describe(errno)
                    + "); using buffered IO for such files (logged once)");
        }
    }

    /** The block size of {@code path}'s file store (its directory's, cached), or 4096 if unknown. */
    int storeBlockSize(Path path) {
        Path dir = path.toAbsolutePath().getParent();
        return storeBlockSizes.computeIfAbsent(dir, d -> {
            try {
                long size = Files.getFileStore(d).getBlockSize();
                return size > 0 && size <= (1 << 20) ? (int) size : 4096;
            } catch (IOException | UnsupportedOperationException e) {
                return 4096;
            }
        });
    }

    /** A NUL-terminated path for the C library. */
    static byte[] cPath(Path path) {
        byte[] name = path.toString().getBytes(StandardCharsets.UTF_8);
        byte[] c = new byte[name.length + 1];
        System.arraycopy(name, 0, c, 0, name.length);
        return c;
    }

    /** The error of the last C call on this thread, as an IOException naming the call and file. */
    static IOException error(String call, Path path, int errno) {
        return new IOException(call + " of " + path + " failed: " + LibC.describe(errno));
    }

    static int lastError() {
        return Native.getLastError();
    }

    /**
     * What one file system supports.
     *
     * @param fallocate  {@code fallocate(KEEP_SIZE)} works
     * @param punchHole  {@code fallocate(PUNCH_HOLE|KEEP_SIZE)} works
     * @param direct     O_DIRECT opens are accepted
     * @param alignment  the alignment O_DIRECT IO needs there (statx, or 4096, and at least the block size)
     */
    public record Capabilities(boolean fallocate, boolean punchHole, boolean direct, int alignment) {

        static Capabilities probe(Path dir, NativeStorageIO io) throws IOException {
            Path probe = dir.resolve(".strata-io-probe-" + ProcessHandle.current().pid() + "-" + System.nanoTime());
            int fd = LibC.open(cPath(probe), LibC.O_RDWR | LibC.O_CREAT | LibC.O_EXCL | LibC.O_CLOEXEC, 0644);
            if (fd < 0) {
                throw error("open", probe, lastError());
            }
            try {
                boolean fallocate = LibC.fallocate(fd, LibC.FALLOC_FL_KEEP_SIZE, 0, 8192) == 0;
                boolean punch = LibC.fallocate(fd, LibC.FALLOC_FL_PUNCH_HOLE | LibC.FALLOC_FL_KEEP_SIZE, 0, 4096) == 0;
                boolean direct = false;
                int alignment = Math.max(4096, io.storeBlockSize(probe));
                if (!io.refusesDirect(probe)) {
                    int dfd = LibC.open(cPath(probe), LibC.O_RDWR | LibC.O_DIRECT | LibC.O_CLOEXEC, 0);
                    if (dfd >= 0) {
                        direct = true;
                        alignment = NativePageFile.alignmentOf(dfd, io.storeBlockSize(probe));
                        LibC.close(dfd);
                    }
                }
                return new Capabilities(fallocate, punch, direct, alignment);
            } finally {
                LibC.close(fd);
                Files.deleteIfExists(probe);
            }
        }
    }
}
