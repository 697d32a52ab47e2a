package dev.strata.lsm.engine;

import dev.strata.lsm.StoreException;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Exclusive use of a store directory: across processes by a lock on its {@code LOCK} file,
 * within this process by a registry of the directories open here.
 *
 * <p>The registry is checked before the {@code LOCK} file is touched, and that order
 * matters: file locks belong to the process, not to the channel that took them, so when a
 * second channel on the same file is closed, POSIX drops every lock the process holds on
 * it — a failed second open that had opened its own channel would silently let another
 * process in. Directories are identified by their file key (device and inode) where the
 * platform has one, else by their real path, so other spellings, symbolic links and bind
 * mounts of an open directory are recognised too.
 *
 * <p>Thread safe.
 */
final class DirectoryLock implements AutoCloseable {
    static final String LOCK_FILE = "LOCK";

    /** Identities of the directories open in this process. */
    private static final Set<Object> OPEN = ConcurrentHashMap.newKeySet();

    private final Object identity;
    private final FileChannel channel;
    private final FileLock lock;
    private boolean released;

    private DirectoryLock(Object identity, FileChannel channel, FileLock lock) {
        this.identity = identity;
        this.channel = channel;
        this.lock = lock;
    }

    /**
     * Takes the existing directory {@code dir} for one store.
     *
     * @throws StoreException if the store in {@code dir} is open in this or another process
     * @throws IOException if the directory or its {@code LOCK} file cannot be accessed
     */
    static DirectoryLock acquire(Path dir) throws IOException {
        Path real = dir.toRealPath();
        Object fileKey = Files.readAttributes(real, BasicFileAttributes.class).fileKey();
        Object identity = fileKey != null ? fileKey : real;
        if (!OPEN.add(identity)) {
            throw new StoreException("store " + dir + " is already open in this process"
                    + (real.equals(dir) ? "" : " (as " + real + ")"));
        }
        FileChannel channel = null;
        try {
            channel = FileChannel.open(real.resolve(LOCK_FILE), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
            FileLock lock;
            try {
                lock = channel.tryLock();
            } catch (OverlappingFileLockException e) {
                // Only code outside Strata can hold it: every store goes through the registry.
                throw new StoreException("the LOCK file of store " + dir + " is locked by other code in this process", e);
            }
            if (lock == null) {
                throw new StoreException("store " + dir + " is already open in another process");
            }
            return new DirectoryLock(identity, channel, lock);
        } catch (IOException | RuntimeException | Error e) {
            if (channel != null) {
                try {
                    channel.close();
                } catch (IOException suppressed) {
                    e.addSuppressed(suppressed);
                }
            }
            OPEN.remove(identity);
            throw e;
        }
    }

    /** Releases the directory: first the file lock, then this process's claim. Idempotent. */
    @Override
    public synchronized void close() {
        if (released) {
            return;
        }
        released = true;
        try {
            lock.release();
        } catch (IOException ignored) {
            // Closing the channel releases it too.
        }
        try {
            channel.close();
        } catch (IOException ignored) {
            // The lock goes with the process at the latest.
        } finally {
            // Last: until the channel is closed, another open here must not open a channel on LOCK.
            OPEN.remove(identity);
        }
    }
}
