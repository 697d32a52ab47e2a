package dev.strata.lsm;

import dev.strata.lsm.engine.Engine;
import dev.strata.lsm.repair.RepairReport;

import java.nio.file.Path;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * An embedded, crash-safe LSM-tree key-value store. Keys and values are byte arrays; keys
 * compare unsigned-lexicographically. With the default configuration (WAL mode
 * {@code async}) every write acknowledged by a returning call survives a process kill.
 * Merges run in the background, chosen by the configured merge policy.
 *
 * <pre>{@code
 * try (LsmStore store = LsmStore.open(Path.of("data"))) {
 *     store.put(key, value);
 *     byte[] v = store.get(key);
 * }
 * }</pre>
 *
 * Thread safe: any number of threads may read and write concurrently.
 *
 * <p>Errors: the store's failures are {@link StoreException}s (see there); bad arguments — a
 * null key, value or batch, a key or value over the configured size limits — throw
 * {@link IllegalArgumentException} and change nothing. Once closed, every call (also on
 * snapshots and cursors of the store) throws {@link StoreClosedException}. A write that
 * threw a {@link StoreException} was not acknowledged: it is not visible to reads, but its
 * record may have reached the WAL (say, only the force failed), so after a crash or reopen
 * it may or may not be there — like any write whose call had not returned.
 */
public final class LsmStore implements AutoCloseable {
    private final Engine engine;

    private LsmStore(Engine engine) {
        this.engine = engine;
    }

    /** Opens (creating if needed) the store in {@code dir} with the default configuration. */
    public static LsmStore open(Path dir) {
        return open(dir, StoreConfig.defaults());
    }

    /** Opens (creating if needed) the store in {@code dir}, recovering it after a crash. */
    public static LsmStore open(Path dir, StoreConfig config) {
        Objects.requireNonNull(dir, "dir");
        Objects.requireNonNull(config, "config");
        return new LsmStore(Engine.open(dir, config));
    }

    /**
     * Rebuilds the manifest of the closed store in {@code dir} from its table files, after
     * an open failed with a {@link CorruptionException} naming the manifest. Deletes
     * nothing: files it cannot use go to {@code dir/lost/}, listed in the report. The
     * WAL segments left are replayed by the next open. Also {@code strata-bench repair DIR}.
     *
     * @throws StoreException if the store is open or the directory cannot be repaired
     */
    public static RepairReport repair(Path dir, StoreConfig config) {
        Objects.requireNonNull(dir, "dir");
        Objects.requireNonNull(config, "config");
        return Engine.repair(dir, config);
    }

    /** Sets {@code key} to {@code value}. */
    public void put(byte[] key, byte[] value) {
        engine.write(new WriteBatch().put(key, value));
    }

    /** The value of {@code key}, or null when absent. */
    public byte[] get(byte[] key) {
        return engine.getLatest(key);
    }

    /**
     * The values of {@code keys}, null where absent, in the order of {@code keys}: a
     * multi-get. All are read at one sequence number (as one {@link #snapshot} would, without
     * taking one), in one pass through the read path in ascending key order, which costs
     * less than a {@link #get} per key. A key may appear more than once.
     */
    public byte[][] getAll(byte[]... keys) {
        Objects.requireNonNull(keys, "keys");
        return engine.getLatestAll(keys);
    }

    /**
     * The value of {@code key} if the store can tell from memory alone, that is when its
     * newest version is in a memtable: {@link MemoryRead#answered()} is then true and
     * {@link MemoryRead#value()} the value, or null when that version is a delete. Otherwise
     * the answer is not answered, and {@link #get} must read the tables. Never reads a file,
     * so a caller that must not block (an event loop) can try it first.
     */
    public MemoryRead getFromMemory(byte[] key) {
        dev.strata.lsm.sstable.InternalEntry e = engine.latestInMemtables(key);
        if (e == null) {
            return MemoryRead.NOT_IN_MEMORY;
        }
        return e.isTombstone() ? MemoryRead.DELETED : new MemoryRead(true, e.value());
    }

    /** Removes {@code key} (a no-op if absent). */
    public void delete(byte[] key) {
        engine.write(new WriteBatch().delete(key));
    }

    /** Applies every operation of {@code batch} atomically. */
    public void write(WriteBatch batch) {
        engine.write(batch);
    }

    /** A consistent view as of now; close it when done. */
    public Snapshot snapshot() {
        long seq = engine.acquireSnapshot();
        return new StoreSnapshot(seq);
    }

    /** Live keys in [fromInclusive, toExclusive); a null bound is open. Close the cursor. */
    public Cursor scan(byte[] fromInclusive, byte[] toExclusive) {
        return engine.scanLatest(fromInclusive, toExclusive);
    }

    /** Writes the memtable to a component; returns when it is durable. */
    public void flush() {
        engine.flush();
    }

    /** Returns when the policy wants no more merges and none is running. */
    public void awaitMerges() {
        engine.awaitMerges();
    }

    /** Current counters. */
    public StoreStats stats() {
        return engine.stats();
    }

    /** The directory of the store. */
    public Path directory() {
        return engine.directory();
    }

    /** The configuration the store was opened with. */
    public StoreConfig config() {
        return engine.config();
    }

    /** The engine behind this store, for tests in this package (not part of the API). */
    Engine engine() {
        return engine;
    }

    /** Waits for running background jobs, closes files and releases the directory. */
    @Override
    public void close() {
        engine.close();
    }

    private final class StoreSnapshot implements Snapshot {
        private final long seq;
        private final AtomicBoolean closed = new AtomicBoolean();

        StoreSnapshot(long seq) {
            this.seq = seq;
        }

        @Override
        public byte[] get(byte[] key) {
            check();
            return engine.get(key, seq);
        }

        @Override
        public Cursor scan(byte[] fromInclusive, byte[] toExclusive) {
            check();
            return engine.scan(fromInclusive, toExclusive, seq);
        }

        @Override
        public long sequenceNumber() {
            return seq;
        }

        private void check() {
            if (closed.get()) {
                throw new StoreClosedException("snapshot is closed");
            }
        }

        @Override
        public void close() {
            if (closed.compareAndSet(false, true)) {
                engine.releaseSnapshot(seq);
            }
        }
    }
}
