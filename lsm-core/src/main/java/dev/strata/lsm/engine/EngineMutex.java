package dev.strata.lsm.engine;

import dev.strata.lsm.StoreClosedException;
import dev.strata.lsm.StoreException;

import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The engine's one mutex (LevelDB's {@code DBImpl::mutex_}), the condition every change of
 * background work signals, and whether the store is closed. The write queue, the memtable
 * set, the flush lane's and the merge scheduler's bookkeeping are guarded by it; each of
 * those classes holds its own state and takes this lock to touch it. IO is never done under
 * it except switching the WAL segment.
 */
final class EngineMutex extends ReentrantLock {
    private final Path dir;
    private final Condition background = newCondition();
    private volatile boolean closed;

    EngineMutex(Path dir) {
        this.dir = dir;
    }

    /** Waits (mutex held) up to {@code millis} for background work to signal a change. */
    void awaitBackground(long millis) {
        try {
            background.await(millis, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new StoreException("interrupted while waiting for background work", e);
        }
    }

    /** Waits (mutex held) up to {@code nanos} for background work to signal a change. */
    void awaitBackgroundNanos(long nanos) {
        try {
            background.awaitNanos(nanos);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new StoreException("interrupted while waiting for background work", e);
        }
    }

    /** Wakes every thread in {@link #awaitBackground}; mutex held. */
    void signalBackground() {
        background.signalAll();
    }

    boolean closed() {
        return closed;
    }

    void markClosed() {
        closed = true;
    }

    /** @throws StoreClosedException if the store is closed */
    void checkOpen() {
        if (closed) {
            throw new StoreClosedException("store " + dir + " is closed");
        }
    }
}
