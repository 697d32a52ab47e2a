package dev.strata.lsm.io;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/**
 * A file system with room for a fixed number of bytes, over a real {@link StorageIO}: every
 * write, append and {@link PageFile#preallocate} that would take a file's allocated length
 * past the space left fails with "No space left on device", as the kernel's ENOSPC does.
 *
 * <p>Appends to a file whose appends are {@linkplain PageFile#mapAppends() mapped} are
 * modelled as a memory mapping behaves: bytes landing in space the file already holds
 * (written or preallocated) are stored; a byte that needs a new block takes one if there is
 * room, and otherwise is lost without an error to the appender — a page the file system
 * cannot back raises SIGBUS, which the JVM reports asynchronously if at all, and the file
 * reads as zeros there afterwards. So this is what a mapped WAL on a full disk leaves
 * behind unless it reserved its space through {@link PageFile#preallocate} first.
 *
 * <p>Only growth of files opened through this instance is charged; {@link #delete} gives
 * a file's space back.
 */
public final class SpaceLimitedStorageIO extends ForwardingStorageIO {
    private long capacity;
    private long used;
    /** Allocated length of each file opened through this instance. */
    private final Map<Path, Long> allocated = new HashMap<>();
    private int refusals;
    private long lostMappedBytes;

    public SpaceLimitedStorageIO(StorageIO delegate, long capacity) {
        super(delegate);
        this.capacity = capacity;
    }

    /** Changes the room on the device (freeing space, say). */
    public synchronized void setCapacity(long capacity) {
        this.capacity = capacity;
    }

    /** How many writes were refused for lack of space. */
    public synchronized int refusals() {
        return refusals;
    }

    /** Bytes of mapped appends that were lost because no block could back them. */
    public synchronized long lostMappedBytes() {
        return lostMappedBytes;
    }

    /** Bytes charged so far. */
    public synchronized long used() {
        return used;
    }

    private static Path key(Path path) {
        return path.toAbsolutePath().normalize();
    }

    private synchronized long allocatedOf(Path path) {
        return allocated.getOrDefault(key(path), 0L);
    }

    /** Grows the file's allocation to {@code end}, or throws ENOSPC and changes nothing. */
    private synchronized void grow(Path path, long end) throws IOException {
        long have = allocatedOf(path);
        if (end <= have) {
            return;
        }
        if (used + end - have > capacity) {
            refusals++;
            throw new IOException("No space left on device (simulated: " + (capacity - used) + " of " + capacity
                    + " bytes free, " + path.getFileName() + " needs " + (end - have) + " more)");
        }
        used += end - have;
        allocated.put(key(path), end);
    }

    /** Grows the file's allocation towards {@code end} as far as space allows; returns the new allocated end. */
    private synchronized long growAsFarAsPossible(Path path, long end) {
        long have = allocatedOf(path);
        long reach = Math.min(end, have + Math.max(0, capacity - used));
        if (reach > have) {
            used += reach - have;
            allocated.put(key(path), reach);
            return reach;
        }
        return have;
    }

    private synchronized void shrink(Path path, long end) {
        long have = allocatedOf(path);
        if (end < have) {
            used -= have - end;
            allocated.put(key(path), end);
        }
    }

    @Override
    public synchronized void delete(Path path) throws IOException {
        super.delete(path);
        Long had = allocated.remove(key(path));
        if (had != null) {
            used -= had;
        }
    }

    @Override
    public synchronized void rename(Path source, Path target) throws IOException {
        super.rename(source, target);
        Long had = allocated.remove(key(source));
        Long replaced = allocated.remove(key(target));
        if (replaced != null) {
            used -= replaced;
        }
        if (had != null) {
            allocated.put(key(target), had);
        }
    }

    @Override
    protected PageFile wrap(PageFile file) {
        return new ForwardingPageFile(file) {
            private volatile boolean mapped;

            @Override
            public void write(ByteBuffer src, long position) throws IOException {
                grow(path(), position + src.remaining());
                super.write(src, position);
            }

            @Override
            public long append(ByteBuffer src) throws IOException {
                long start = size();
                long end = start + src.remaining();
                if (!mapped) {
                    grow(path(), end);
                    return super.append(src);
                }
                long backed = Math.max(start, Math.min(end, growAsFarAsPossible(path(), end)));
                if (backed == end) {
                    return super.append(src);
                }
                // The pages past the space left cannot be backed: they keep no data.
                synchronized (SpaceLimitedStorageIO.this) {
                    lostMappedBytes += end - backed;
                }
                ByteBuffer damaged = ByteBuffer.allocate(src.remaining());
                ByteBuffer kept = src.duplicate();
                kept.limit(kept.position() + (int) (backed - start));
                damaged.put(kept);
                damaged.clear();
                src.position(src.limit());
                return super.append(damaged);
            }

            @Override
            public void preallocate(long offset, long length) throws IOException {
                grow(path(), offset + length);
                super.preallocate(offset, length);
            }

            @Override
            public void truncate(long size) throws IOException {
                super.truncate(size);
                shrink(path(), size);
            }

            @Override
            public boolean mapAppends() throws IOException {
                mapped = super.mapAppends();
                return mapped;
            }

            @Override
            public void close() throws IOException {
                long size = size();
                super.close();
                // Closing cuts a mapped or preallocated tail back to the appended length.
                shrink(path(), size);
            }
        };
    }
}
