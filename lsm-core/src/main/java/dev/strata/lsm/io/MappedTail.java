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
 * window, and a new window is mapped when one fills up. Used by {@link FileChannelStorageIO}
 * for {@link PageFile#mapAppends()}, which reserves the blocks of a window (writing zeros
 * through the channel) before anything is copied into it: mapping alone would extend the
 * file sparsely, and a full disk would then lose the copy instead of failing it.
 *
 * <p>Not thread safe; the owner serializes appends, force and release. A window that is no
 * longer needed is unmapped at once: on JDK 22 and later it is mapped in its own shared
 * {@code java.lang.foreign.Arena}, which is closed; on older JDKs with
 * {@code sun.misc.Unsafe#invokeCleaner} (found reflectively; the JDK versions that warn
 * about it have the arena). Failing both, the garbage collector unmaps it.
 */
final class MappedTail {
    /** Bytes mapped at a time; a crashed file ends in at most this many zero bytes. */
    static final int WINDOW_BYTES = 4 << 20;
    private static final long PAGE = 4096;
    private static final Mapper MAPPER = Mapper.find();

    private final Path path;
    private Window window;
    private long windowStart;

    MappedTail(Path path) {
        this.path = path;
    }

    /**
     * Copies all remaining bytes of {@code src} to the file at {@code position}, mapping
     * windows of {@code channel} as needed. The owner must have reserved the disk blocks of
     * every byte written (see {@link PageFile#preallocate}): a page the file system cannot
     * back raises SIGBUS, which the JVM reports as an {@link InternalError} at some later
     * point of the thread's execution, not necessarily here. If it does arrive here it
     * becomes an {@link IOException}; {@code src} is then advanced past what was copied.
     */
    void write(ByteBuffer src, long position, FileChannel channel) throws IOException {
        long pos = position;
        try {
            while (src.hasRemaining()) {
                if (window == null || pos < windowStart || pos >= windowStart + window.buffer.capacity()) {
                    remap(pos, channel);
                }
                ByteBuffer buffer = window.buffer;
                int at = (int) (pos - windowStart);
                int n = Math.min(src.remaining(), buffer.capacity() - at);
                buffer.put(at, src, src.position(), n);
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
            window.buffer.force();
        }
    }

    /** Unmaps the current window; the next write maps a new one. */
    void release() {
        if (window != null) {
            Window w = window;
            window = null;
            w.unmap.run();
        }
    }

    private void remap(long pos, FileChannel channel) throws IOException {
        release();
        windowStart = pos - pos % PAGE;
        window = MAPPER.map(channel, windowStart, WINDOW_BYTES);
    }

    /** A mapped window and how to unmap it. */
    private record Window(MappedByteBuffer buffer, Runnable unmap) {
    }

    /** Maps windows with the best means the running JDK offers. */
    private interface Mapper {
        Window map(FileChannel channel, long position, int size) throws IOException;

        static Mapper find() {
            Mapper arena = ArenaMapper.find();
            if (arena != null) {
                return arena;
            }
            MethodHandle cleaner = findCleaner();
            return (channel, position, size) -> {
                MappedByteBuffer buffer = channel.map(FileChannel.MapMode.READ_WRITE, position, size);
                return new Window(buffer, () -> {
                    if (cleaner != null) {
                        try {
                            cleaner.invoke(buffer);
                        } catch (Throwable e) {
                            // Left to the garbage collector.
                        }
                    }
                });
            };
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

    /**
     * JDK 22+: {@code FileChannel.map(mode, position, size, Arena.ofShared())}, viewed as a
     * buffer; closing the arena unmaps. Bound reflectively because Strata targets Java 17.
     */
    private record ArenaMapper(MethodHandle ofShared, MethodHandle map, MethodHandle asByteBuffer) implements Mapper {
        static ArenaMapper find() {
            try {
                Class<?> arena = Class.forName("java.lang.foreign.Arena");
                Class<?> segment = Class.forName("java.lang.foreign.MemorySegment");
                MethodHandles.Lookup lookup = MethodHandles.publicLookup();
                return new ArenaMapper(
                        lookup.findStatic(arena, "ofShared", MethodType.methodType(arena)),
                        lookup.findVirtual(FileChannel.class, "map", MethodType.methodType(segment,
                                FileChannel.MapMode.class, long.class, long.class, arena)),
                        lookup.findVirtual(segment, "asByteBuffer", MethodType.methodType(ByteBuffer.class)));
            } catch (ReflectiveOperationException | RuntimeException e) {
                return null;
            }
        }

        @Override
        public Window map(FileChannel channel, long position, int size) throws IOException {
            AutoCloseable arena;
            try {
                arena = (AutoCloseable) ofShared.invoke();
            } catch (Throwable e) {
                throw new IOException("cannot create a memory arena: " + e, e);
            }
            try {
                Object segment = map.invoke(channel, FileChannel.MapMode.READ_WRITE, position, (long) size, arena);
                MappedByteBuffer buffer = (MappedByteBuffer) (ByteBuffer) asByteBuffer.invoke(segment);
                return new Window(buffer, () -> {
                    try {
                        arena.close();
                    } catch (Exception e) {
                        // Left to the garbage collector.
                    }
                });
            } catch (IOException | RuntimeException | Error e) {
                closeQuietly(arena);
                throw e;
            } catch (Throwable e) {
                closeQuietly(arena);
                throw new IOException("cannot map " + size + " bytes at " + position + ": " + e, e);
            }
        }

        private static void closeQuietly(AutoCloseable arena) {
            try {
                arena.close();
            } catch (Exception ignored) {
                // Nothing mapped yet.
            }
        }
    }
}
