package dev.strata.lsm.io;

import java.io.IOException;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Field;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;

/**
 * The writable tail of a file as a window of shared memory mapping: appends copy into the
 * window, and a new window is mapped (extending the file, sparsely) when one fills up. Used
 * by {@link FileChannelStorageIO} for {@link PageFile#mapAppends()}.
 *
 * <p>Not thread safe; the owner serializes appends, force and release. Windows that are no
 * longer needed are unmapped at once where the JDK allows it ({@code sun.misc.Unsafe
 * #invokeCleaner}), otherwise when the garbage collector finds them.
 */
final class MappedTail {
    /** Bytes mapped at a time; a crashed file ends in at most this many zero bytes. */
    static final int WINDOW_BYTES = 4 << 20;
    private static final long PAGE = 4096;
    private static final MethodHandle INVOKE_CLEANER = findCleaner();

    private final Path path;
    private final FileChannel channel;
    private MappedByteBuffer window;
    private long windowStart;

    MappedTail(Path path, FileChannel channel) {
        this.path = path;
        this.channel = channel;
    }

    /** Copies all remaining bytes of {@code src} to the file at {@code position}. */
    void write(ByteBuffer src, long position) throws IOException {
        long pos = position;
        try {
            while (src.hasRemaining()) {
                if (window == null || pos < windowStart || pos >= windowStart + window.capacity()) {
                    remap(pos);
                }
                int at = (int) (pos - windowStart);
                int n = Math.min(src.remaining(), window.capacity() - at);
                window.put(at, src, src.position(), n);
                src.position(src.position() + n);
                pos += n;
            }
        } catch (InternalError e) {
            // How the JVM reports a SIGBUS in a mapped copy: the file system could not back the page (disk full).
            throw new IOException("cannot write " + path + " through its memory mapping at offset " + pos
                    + " (is the disk full?): " + e.getMessage(), e);
        }
    }

    /** Writes the current window's dirty pages back to the file (msync). */
    void force() {
        if (window != null) {
            window.force();
        }
    }

    /** Unmaps the current window; the next write maps a new one. */
    void release() {
        if (window != null) {
            unmap(window);
            window = null;
        }
    }

    private void remap(long pos) throws IOException {
        release();
        windowStart = pos - pos % PAGE;
        window = channel.map(FileChannel.MapMode.READ_WRITE, windowStart, WINDOW_BYTES);
    }

    private static void unmap(MappedByteBuffer buffer) {
        if (INVOKE_CLEANER == null) {
            return;
        }
        try {
            INVOKE_CLEANER.invoke(buffer);
        } catch (Throwable e) {
            // Left to the garbage collector.
        }
    }

    private static MethodHandle findCleaner() {
        try {
            Class<?> unsafeClass = Class.forName("sun.misc.Unsafe");
            Field theUnsafe = unsafeClass.getDeclaredField("theUnsafe");
            theUnsafe.setAccessible(true);
            Object unsafe = theUnsafe.get(null);
            return MethodHandles.lookup()
                    .findVirtual(unsafeClass, "invokeCleaner", MethodType.methodType(void.class, ByteBuffer.class))
                    .bindTo(unsafe);
        } catch (ReflectiveOperationException | RuntimeException e) {
            return null;
        }
    }
}
