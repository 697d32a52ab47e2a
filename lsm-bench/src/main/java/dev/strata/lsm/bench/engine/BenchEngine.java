package dev.strata.lsm.bench.engine;

import dev.strata.lsm.StoreConfig;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * One key-value engine as the workload driver sees it: Strata, RocksDB or LevelDB behind
 * the same handful of calls, so that every engine runs the identical operation stream.
 *
 * <p>Implementations are thread safe: the driver calls them from several worker threads at
 * once. Writes go to the engine's log without an fsync per write ({@link #durability()}
 * says exactly what); the arrays passed in are never modified afterwards by the driver.
 */
public interface BenchEngine extends AutoCloseable {

    /** The pinned engine names, in their default comparison order. */
    List<String> NAMES = List.of(StrataAdapter.NAME, RocksDbAdapter.NAME, LevelDbAdapter.NAME);

    /**
     * Opens engine {@code name} on {@code dir}, which must not exist yet or be empty. The
     * other engines take their memtable size, block cache size, page size, bloom density and
     * background thread count from {@code config}, so all three are sized alike.
     *
     * @throws IllegalArgumentException if {@code name} is not one of {@link #NAMES}
     */
    static BenchEngine open(String name, Path dir, StoreConfig config) {
        if (!NAMES.contains(name)) {
            throw new IllegalArgumentException("unknown engine '" + name + "': choose one of " + NAMES);
        }
        requireFresh(dir);
        return switch (name) {
            case StrataAdapter.NAME -> new StrataAdapter(dir, config);
            case RocksDbAdapter.NAME -> new RocksDbAdapter(dir, config);
            case LevelDbAdapter.NAME -> new LevelDbAdapter(dir, config);
            default -> throw new IllegalArgumentException("unknown engine '" + name + "': choose one of " + NAMES);
        };
    }

    private static void requireFresh(Path dir) {
        try {
            if (java.nio.file.Files.exists(dir)) {
                try (var entries = java.nio.file.Files.list(dir)) {
                    if (entries.findAny().isPresent()) {
                        throw new IllegalArgumentException("engine directory " + dir + " is not empty: "
                                + "every run starts on a fresh directory");
                    }
                }
            }
            java.nio.file.Files.createDirectories(dir);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException("cannot create engine directory " + dir, e);
        }
    }

    /** The pinned name: {@code strata}, {@code rocksdb} or {@code leveldb}. */
    String name();

    /** The settings the engine was opened with, in one line. */
    String describe();

    /** What an acknowledged write survives and how it reaches the log, in one line. */
    String durability();

    /** Sets {@code key} to {@code value}. */
    void put(byte[] key, byte[] value);

    /** The value of {@code key}, or null when absent. */
    byte[] get(byte[] key);

    /** Removes {@code key}. */
    void delete(byte[] key);

    /** Whether the engine deletes a key range with one call ({@link #deleteRange}). */
    default boolean hasDeleteRange() {
        return false;
    }

    /**
     * Deletes every key in {@code [fromInclusive, toExclusive)} with one call (Strata's and
     * RocksDB's {@code deleteRange}).
     *
     * @throws UnsupportedOperationException if {@link #hasDeleteRange()} is false
     */
    default void deleteRange(byte[] fromInclusive, byte[] toExclusive) {
        throw new UnsupportedOperationException(name() + " has no range delete");
    }

    /**
     * Reads up to {@code count} entries in key order starting at {@code from} (inclusive),
     * touching every key and value, and returns how many it read.
     */
    int scan(byte[] from, int count);

    /**
     * Reads up to {@code count} entries in descending key order starting at the last key at
     * or before {@code from} (RocksDB's {@code seekForPrev} then {@code prev}), touching every
     * key and value, and returns how many it read.
     *
     * @throws UnsupportedOperationException if {@link #hasReadExtensions()} is false
     */
    default int scanReverse(byte[] from, int count) {
        throw new UnsupportedOperationException(name() + " has no reverse cursor in this driver");
    }

    /**
     * Whether the engine runs the reverse-scan, counter and prefix-scan workloads
     * ({@link #scanReverse}, {@link #mergeAdd}, {@link #scanPrefix}).
     */
    default boolean hasReadExtensions() {
        return false;
    }

    /**
     * Adds {@code delta} to the 8-byte big-endian counter at {@code key} with one merge call
     * (the {@code uint64add} operator, which the adapters open with; a missing value is 0).
     *
     * @throws UnsupportedOperationException if {@link #hasReadExtensions()} is false
     */
    default void mergeAdd(byte[] key, long delta) {
        throw new UnsupportedOperationException(name() + " has no merge operator in this driver");
    }

    /**
     * Reads every entry whose key starts with {@code prefix}, touching every key and value,
     * and returns how many it read: with the engine's prefix extractor, if configured
     * (Strata's {@code scanPrefix}; RocksDB's {@code prefix_same_as_start} seek).
     *
     * @throws UnsupportedOperationException if {@link #hasReadExtensions()} is false
     */
    default int scanPrefix(byte[] prefix) {
        throw new UnsupportedOperationException(name() + " has no prefix scan in this driver");
    }

    /**
     * Flushes the memtable and returns once no flush or merge is running or pending, so that
     * the write amplification of a workload includes the merge work it caused and space is
     * measured on a quiescent tree.
     */
    void settle();

    /**
     * The engine's bulk load of external table files, or null when it has none (then the
     * {@code ingest} workload reports the engine as not supported).
     */
    default BulkIngest bulkIngest() {
        return null;
    }

    /** The engine's own counters (amplification, stalls, files per level…), by name. */
    Map<String, Object> ownCounters();

    /** Closes the engine, waiting for its background work; the data stays on disk. */
    @Override
    void close();
}
