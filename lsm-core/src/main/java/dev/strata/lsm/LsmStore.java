package dev.strata.lsm;

import dev.strata.lsm.engine.Engine;

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
 * <p>Column families: the calls without a {@link ColumnFamily} act on the default family,
 * the store's only one unless families are created ({@link #createColumnFamily}) or
 * configured ({@link StoreConfig.Builder#family}); each data call has a form that takes a
 * family's handle. A store from before families existed opens unchanged.
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
    /** The engine; replaced only by {@link #refresh()} of a read-only store. */
    private volatile Engine engine;
    /** Set by {@link #close()}, guarded by this. */
    private boolean closed;
    /** The handles of the live column families by id; the same handle for a family every time. */
    private final java.util.concurrent.ConcurrentHashMap<Integer, ColumnFamily> handles =
            new java.util.concurrent.ConcurrentHashMap<>();

    private LsmStore(Engine engine) {
        this.engine = engine;
        for (Engine.FamilyInfo f : engine.families()) {
            handles.put(f.id(), new ColumnFamily(f.name(), f.id(), this));
        }
    }

    /**
     * Opens (creating if needed) the store in {@code dir} with the default configuration.
     *
     * @param dir the store's directory; created when missing
     * @return the open store, which the caller closes
     */
    public static LsmStore open(Path dir) {
        return open(dir, StoreConfig.defaults());
    }

    /**
     * Opens (creating if needed) the store in {@code dir}, recovering it after a crash.
     *
     * @param dir the store's directory; created when missing
     * @param config the store's configuration
     * @return the open store, which the caller closes
     */
    public static LsmStore open(Path dir, StoreConfig config) {
        Objects.requireNonNull(dir, "dir");
        Objects.requireNonNull(config, "config");
        return new LsmStore(Engine.open(dir, config));
    }

    /**
     * Opens the store in {@code dir} for reading only, beside a writer that may have it open
     * in another process (RocksDB's secondary instance, as a snapshot): no directory lock is
     * taken and nothing in {@code dir} is written or deleted. The store reads the state it
     * found at open — every write the writer had acknowledged by then, in a WAL mode that
     * writes the WAL (with {@code none}, what it had flushed) — until {@link #refresh()}.
     *
     * <p>How: the WAL segments and the manifest are copied and the manifest's tables
     * hard-linked (copied across file systems) into a staging directory beside {@code dir}
     * ({@code .NAME.reader-*}, or the system's temporary directory where the parent cannot be
     * written), which is opened as a store and deleted on close. The writer's deletion of a
     * merged table or a flushed WAL segment therefore never breaks the reader. While a reader
     * links a table, the writer's block compaction rewrites that table instead of merging into
     * it in place. Writes, {@code flush}, {@code compactRange} and {@code checkpoint} throw
     * {@link UnsupportedOperationException}.
     *
     * <p>A store with column families opens with all of them, at one sequence number: the
     * catalog and every family's manifest (its tables linked into {@code families/<id>/} of
     * the staging directory) are staged first and the WAL segments from the lowest log number
     * of any family on after them, and staging starts again if the writer changed a manifest
     * or the catalog meanwhile; each family replays the WAL above its own last sequence
     * number, so a batch across families is seen whole or not at all. Every family of the
     * reader runs with no merge policy. After {@link #refresh()} the store's handles cover the
     * families the writer created meanwhile; handles of families it dropped are refused.
     *
     * @param dir the directory of the store to read
     * @param config the reader's configuration (its merge policy is not used)
     * @return the open read-only store, which the caller closes
     * @throws StoreException if {@code dir} holds no store or cannot be staged
     */
    public static LsmStore openReadOnly(Path dir, StoreConfig config) {
        Objects.requireNonNull(dir, "dir");
        Objects.requireNonNull(config, "config");
        return new LsmStore(Engine.openReadOnly(dir, config));
    }

    /**
     * For a store opened with {@link #openReadOnly}: catches up with the writer, staging and
     * opening its state now (its newer manifest, tables and WAL). Cursors and snapshots taken
     * before belong to the old state, which is closed here: their next call throws
     * {@link StoreClosedException}; take new ones. The state is one the writer's files held:
     * a prefix of its writes in sequence order, every batch whole, never behind an earlier
     * refresh, holding every write the writer acknowledged before the call (in a WAL mode that
     * writes the WAL) — also while the writer flushes, merges, deletes files, or is killed and
     * restarted: a file deleted under the staging makes it start again, never a corruption
     * error (docs/engine.md, "Checkpoints, read-only opens and backups").
     *
     * @throws UnsupportedOperationException if the store was opened for writing
     */
    public void refresh() {
        Engine old = engine;
        Engine next = old.refreshed();
        synchronized (this) {
            if (closed || engine != old) {
                next.close();
                if (closed) {
                    throw new StoreClosedException("store " + old.directory() + " is closed");
                }
                throw new StoreException("refresh() ran concurrently with another refresh()");
            }
            engine = next;
            syncHandles(next);
        }
        old.close();
    }

    /**
     * After a refresh: a handle for each family the writer created meanwhile; the handles of
     * families it dropped are marked dropped (refused from now on). Handles of families that
     * stayed keep working.
     */
    private void syncHandles(Engine next) {
        synchronized (handles) {
            java.util.Set<Integer> live = new java.util.HashSet<>();
            for (Engine.FamilyInfo f : next.families()) {
                live.add(f.id());
                handles.computeIfAbsent(f.id(), id -> new ColumnFamily(f.name(), id, this));
            }
            for (ColumnFamily cf : java.util.List.copyOf(handles.values())) {
                if (!live.contains(cf.id())) {
                    cf.markDropped();
                    handles.remove(cf.id());
                }
            }
        }
    }

    /**
     * Rebuilds the manifest of the closed store in {@code dir} from its table files, after
     * an open failed with a {@link CorruptionException} naming the manifest. Deletes
     * nothing: files it cannot use go to {@code dir/lost/}, listed in the report. The
     * WAL segments left are replayed by the next open. The tables of an atomic flush that a
     * crash interrupted before its commit are set aside too (docs/engine.md, "Repair"), so no
     * column family keeps its part of a flush group the others lack. Also
     * {@code strata-bench repair DIR}.
     *
     * @param dir the directory of the closed store
     * @param config the configuration the store is opened with
     * @return what was kept, set aside and rebuilt
     * @throws StoreException if the store is open or the directory cannot be repaired
     */
    public static RepairReport repair(Path dir, StoreConfig config) {
        Objects.requireNonNull(dir, "dir");
        Objects.requireNonNull(config, "config");
        return Engine.repair(dir, config);
    }

    // ------------------------------------------------------------------ column families

    /**
     * The default column family's handle: the family every call without a handle uses.
     *
     * @return the handle of the family named {@code default}
     */
    public ColumnFamily defaultColumnFamily() {
        engine.checkOpen();
        return handles.get(0);
    }

    /**
     * Creates column family {@code name} with {@code options} (options left unset take the
     * store's) and returns its handle. The family is durable when the call returns: it is in
     * the store after a crash or reopen, with the options it was created with unless the
     * store's configuration names it ({@link StoreConfig#familyOptions()}).
     *
     * @param name the new family's name
     * @param options the family's options; unset ones take the store's
     * @return the new family's handle
     * @throws IllegalArgumentException if {@code name} is invalid ({@link ColumnFamily#checkName})
     *     or taken, or the options are bad; nothing is changed
     */
    public ColumnFamily createColumnFamily(String name, FamilyOptions options) {
        engine.checkOpen();
        synchronized (handles) {
            int id = engine.createFamily(name, options);
            ColumnFamily handle = new ColumnFamily(name, id, this);
            handles.put(id, handle);
            return handle;
        }
    }

    /**
     * The handle of the live column family {@code name}.
     *
     * @param name the family's name
     * @return its handle
     * @throws IllegalArgumentException if the store has no live family of that name
     */
    public ColumnFamily columnFamily(String name) {
        engine.checkOpen();
        if (name == null) {
            throw new IllegalArgumentException("column family name must not be null");
        }
        for (ColumnFamily cf : listColumnFamilies()) {
            if (cf.name().equals(name)) {
                return cf;
            }
        }
        throw new IllegalArgumentException("store " + engine.directory() + " has no column family \"" + name
                + "\"; it has " + listColumnFamilies().stream().map(ColumnFamily::name).toList());
    }

    /**
     * The live column families, the default one first, then in creation order.
     *
     * @return the handles of the live families, a new list
     */
    public java.util.List<ColumnFamily> listColumnFamilies() {
        engine.checkOpen();
        return engine.families().stream().map(f -> handles.get(f.id())).filter(Objects::nonNull).toList();
    }

    /**
     * Drops column family {@code family}: once the call returns its handle is refused
     * everywhere (also in a {@link WriteBatch}), the drop is durable, and the family's tables
     * are deleted (only after the drop is recorded: a crash in between leaves the family
     * whole or gone, never half). Its name may then be used for a new family.
     *
     * @param family the handle of the family to drop
     * @throws IllegalArgumentException if {@code family} is the default family, dropped, or
     *     another store's; nothing is changed
     */
    public void dropColumnFamily(ColumnFamily family) {
        engine.checkOpen();
        check(family);
        if (family.isDefault()) {
            throw new IllegalArgumentException("the default column family cannot be dropped");
        }
        synchronized (handles) {
            check(family);
            engine.dropFamily(family.id());
            family.markDropped();
            handles.remove(family.id());
        }
    }

    /** Checks a handle: not null, this store's, not dropped. */
    private ColumnFamily check(ColumnFamily family) {
        if (family == null) {
            throw new IllegalArgumentException("column family must not be null (the calls without one use the default"
                    + " family)");
        }
        if (!family.ownedBy(this)) {
            throw new IllegalArgumentException("the handle of column family \"" + family.name() + "\" belongs to another"
                    + " store (or an earlier open of this one); get this store's with columnFamily(name)");
        }
        if (family.isDropped()) {
            throw new IllegalArgumentException("column family \"" + family.name() + "\" (id " + family.id()
                    + ") was dropped");
        }
        return family;
    }

    /** Checks every handle {@code batch} names (see {@link #check}). */
    private WriteBatch checkFamilies(WriteBatch batch) {
        if (batch != null) {
            for (WriteBatch.Op op : batch.ops()) {
                if (op.family() != null) {
                    check(op.family());
                }
            }
        }
        return batch;
    }

    /**
     * Sets {@code key} to {@code value} in {@code family}.
     *
     * @param family the family written (a live handle of this store)
     * @param key the key (not null)
     * @param value the value (not null)
     */
    public void put(ColumnFamily family, byte[] key, byte[] value) {
        engine.checkOpen();
        engine.write(new WriteBatch().put(check(family), key, value), WriteOptions.defaults());
    }

    /**
     * {@link #put(ColumnFamily, byte[], byte[])} with {@code options}.
     *
     * @param family the family written (a live handle of this store)
     * @param key the key (not null)
     * @param value the value (not null)
     * @param options the write's durability options
     */
    public void put(ColumnFamily family, byte[] key, byte[] value, WriteOptions options) {
        engine.checkOpen();
        engine.write(new WriteBatch().put(check(family), key, value), checked(options));
    }

    /**
     * The value of {@code key} in {@code family}, or null when absent.
     *
     * @param family the family read (a live handle of this store)
     * @param key the key (not null)
     * @return the value, or null when the key is absent or deleted
     */
    public byte[] get(ColumnFamily family, byte[] key) {
        engine.checkOpen();
        return engine.getLatest(check(family).id(), key);
    }

    /**
     * Removes {@code key} from {@code family} (a no-op if absent).
     *
     * @param family the family written (a live handle of this store)
     * @param key the key (not null)
     */
    public void delete(ColumnFamily family, byte[] key) {
        engine.checkOpen();
        engine.write(new WriteBatch().delete(check(family), key), WriteOptions.defaults());
    }

    /**
     * Records a merge {@code operand} for {@code key} in {@code family} (see {@link #merge(byte[],
     * byte[])}).
     *
     * @param family the family written (a live handle of this store)
     * @param key the key (not null)
     * @param operand the operand the family's merge operator combines (not null)
     */
    public void merge(ColumnFamily family, byte[] key, byte[] operand) {
        engine.checkOpen();
        engine.write(new WriteBatch().merge(check(family), key, operand), WriteOptions.defaults());
    }

    /**
     * {@link #delete(ColumnFamily, byte[])} with {@code options}.
     *
     * @param family the family written (a live handle of this store)
     * @param key the key (not null)
     * @param options the write's durability options
     */
    public void delete(ColumnFamily family, byte[] key, WriteOptions options) {
        engine.checkOpen();
        engine.write(new WriteBatch().delete(check(family), key), checked(options));
    }

    /**
     * {@link #merge(ColumnFamily, byte[], byte[])} with {@code options}.
     *
     * @param family the family written (a live handle of this store)
     * @param key the key (not null)
     * @param operand the operand the family's merge operator combines (not null)
     * @param options the write's durability options
     */
    public void merge(ColumnFamily family, byte[] key, byte[] operand, WriteOptions options) {
        engine.checkOpen();
        engine.write(new WriteBatch().merge(check(family), key, operand), checked(options));
    }

    /**
     * The values of {@code keys} in {@code family}, null where absent, in the order of
     * {@code keys}, read at one sequence number in one pass (see {@link #getAll(byte[]...)}).
     *
     * @param family the family read (a live handle of this store)
     * @param keys the keys to read; repeats allowed
     * @return an array as long as {@code keys}: each key's value, or null
     * @throws IllegalArgumentException if the handle is null, dropped or another store's, or
     *     {@code keys} or a key is null
     */
    public byte[][] getAll(ColumnFamily family, byte[]... keys) {
        engine.checkOpen();
        check(family);
        if (keys == null) {
            throw new IllegalArgumentException("keys must not be null");
        }
        return engine.getLatestAll(family.id(), keys);
    }

    /**
     * The value of {@code key} in {@code family} if the store can tell from memory alone (see
     * {@link #getFromMemory(byte[])}).
     *
     * @param family the family read (a live handle of this store)
     * @param key the key (not null)
     * @return the answer, or a not-answered result when the tables must be read
     * @throws IllegalArgumentException if the handle is null, dropped or another store's
     */
    public MemoryRead getFromMemory(ColumnFamily family, byte[] key) {
        engine.checkOpen();
        return memoryRead(engine.latestInMemtables(check(family).id(), key));
    }

    /**
     * Bulk-loads tables written by {@link TableWriter} into {@code family} (see
     * {@link #ingest(java.util.List, IngestOptions)}): validated against the family's options,
     * placed by the family's merge policy; the family's memtables are flushed first (the other
     * families' are not), and the other families are untouched.
     *
     * @param family the family loaded into (a live handle of this store)
     * @param files the table files to load, overlapping each other nowhere
     * @param options whether the files are moved or copied in
     * @throws IllegalArgumentException if the handle is null, dropped or another store's, or
     *     a file is not a valid table for this family, or two files overlap; nothing is
     *     changed then
     */
    public void ingest(ColumnFamily family, java.util.List<Path> files, IngestOptions options) {
        engine.checkOpen();
        engine.ingest(check(family).id(), files, options);
    }

    /**
     * A cursor over the live keys of {@code family} in [fromInclusive, toExclusive) as of now (see
     * {@link #scan(byte[], byte[])}).
     *
     * @param family the family read (a live handle of this store)
     * @param fromInclusive the first key, or null for the first key of the family
     * @param toExclusive the key the scan stops before, or null to the end
     * @return a new cursor, which the caller closes
     */
    public Cursor scan(ColumnFamily family, byte[] fromInclusive, byte[] toExclusive) {
        engine.checkOpen();
        return engine.scanLatest(check(family).id(), fromInclusive, toExclusive);
    }

    /**
     * {@link #scanPrefix(byte[])} over column family {@code family}.
     *
     * @param family the family read (a live handle of this store)
     * @param prefix the prefix every returned key starts with (not null; empty for all keys)
     * @return a new cursor, which the caller closes
     */
    public Cursor scanPrefix(ColumnFamily family, byte[] prefix) {
        engine.checkOpen();
        return engine.scanPrefix(check(family).id(), prefix, -1);
    }

    /**
     * Flushes {@code family}'s memtable; returns when it is durable in a table.
     *
     * @param family the family to flush (a live handle of this store)
     */
    public void flushColumnFamily(ColumnFamily family) {
        engine.checkOpen();
        engine.flushFamily(check(family).id());
    }

    /**
     * {@link #compactRange(byte[], byte[])} in {@code family}, as its merge policy plans it.
     *
     * @param family the family to compact (a live handle of this store)
     * @param fromInclusive the first key of the range, or null for no lower bound
     * @param toExclusive the end of the range, exclusive, or null for no upper bound
     */
    public void compactRange(ColumnFamily family, byte[] fromInclusive, byte[] toExclusive) {
        engine.checkOpen();
        engine.compactRange(check(family).id(), fromInclusive, toExclusive);
    }

    /**
     * {@link #approximateSize(byte[], byte[])} of {@code family}'s tables.
     *
     * @param family the family measured (a live handle of this store)
     * @param fromInclusive the first key of the range, or null for no lower bound
     * @param toExclusive the end of the range, exclusive, or null for no upper bound
     * @return the estimated bytes of the family's tables in the range
     */
    public long approximateSize(ColumnFamily family, byte[] fromInclusive, byte[] toExclusive) {
        engine.checkOpen();
        return engine.approximateSize(check(family).id(), fromInclusive, toExclusive);
    }

    /**
     * {@link #estimateKeyCount()} of {@code family}.
     *
     * @param family the family counted (a live handle of this store)
     * @return the estimated number of live keys in the family
     */
    public long estimateKeyCount(ColumnFamily family) {
        engine.checkOpen();
        return engine.estimateKeyCount(check(family).id());
    }

    /**
     * The counters and gauges of {@code family}: its tables, levels, memtables, flushes,
     * merges, stalls and policy errors; the IO counters (one WAL, one device) are the store's.
     *
     * @param family the family (a live handle of this store)
     * @return a new immutable snapshot of the family's statistics
     */
    public StoreStats columnFamilyStats(ColumnFamily family) {
        engine.checkOpen();
        return engine.stats(check(family).id());
    }

    // ------------------------------------------------------------------ default family

    /**
     * Sets {@code key} to {@code value}.
     *
     * @param key the key (not null)
     * @param value the value (not null)
     */
    public void put(byte[] key, byte[] value) {
        engine.write(new WriteBatch().put(key, value), WriteOptions.defaults());
    }

    /**
     * The value of {@code key}, or null when absent.
     *
     * @param key the key (not null)
     * @return the value, or null when the key is absent or deleted
     */
    public byte[] get(byte[] key) {
        return engine.getLatest(key);
    }

    /**
     * Records {@code operand} for {@code key}: reads see the key's value combined with it by
     * the store's merge operator ({@link StoreConfig.Builder#mergeOperator}; {@code uint64add}
     * adds 8-byte big-endian unsigned operands to an 8-byte big-endian value, a missing value
     * counting as 0), without the read-modify-write a get then put would take. Flushes and
     * merges combine operands where the operator allows.
     *
     * @param key the key (not null)
     * @param operand the operand the merge operator combines (not null)
     * @throws IllegalArgumentException if the store has no merge operator or the operator
     *     refuses the operand (nothing is written)
     */
    public void merge(byte[] key, byte[] operand) {
        engine.write(new WriteBatch().merge(key, operand), WriteOptions.defaults());
    }

    /**
     * {@link #merge(byte[], byte[])} with {@code options}.
     *
     * @param key the key (not null)
     * @param operand the operand the merge operator combines (not null)
     * @param options the write's durability options
     */
    public void merge(byte[] key, byte[] operand, WriteOptions options) {
        engine.write(new WriteBatch().merge(key, operand), checked(options));
    }

    /**
     * The values of {@code keys}, null where absent, in the order of {@code keys}: a
     * multi-get. All are read at one sequence number (as one {@link #snapshot} would, without
     * taking one), in one pass through the read path in ascending key order, which costs
     * less than a {@link #get} per key. A key may appear more than once.
     *
     * @param keys the keys to read (not null, no null key); repeats allowed
     * @return an array as long as {@code keys}: each key's value, or null
     */
    public byte[][] getAll(byte[]... keys) {
        engine.checkOpen();
        if (keys == null) {
            throw new IllegalArgumentException("keys must not be null");
        }
        return engine.getLatestAll(keys);
    }

    /**
     * The value of {@code key} if the store can tell from memory alone, that is when its
     * newest version is in a memtable: {@link MemoryRead#answered()} is then true and
     * {@link MemoryRead#value()} the value, or null when that version is a delete. Merge
     * operands are answered, combined, when the put or delete below them is in a memtable
     * too. A key the memtables do not hold is answered absent (a null value) when no table can
     * hold it either, that is when no table's key range contains it (a store that has not
     * flushed yet, or a key outside every table's range). Otherwise
     * the answer is not answered, and {@link #get} must read the tables. Never reads a file,
     * so a caller that must not block (an event loop) can try it first.
     *
     * @param key the key (not null)
     * @return the answer, or a not-answered result when the tables must be read
     */
    public MemoryRead getFromMemory(byte[] key) {
        return memoryRead(engine.latestInMemtables(key));
    }

    private static MemoryRead memoryRead(dev.strata.lsm.sstable.InternalEntry e) {
        if (e == null || e.type() == dev.strata.lsm.sstable.EntryType.MERGE) {
            // A merge operand whose value is not in memory needs the versions below it, in tables.
            return MemoryRead.NOT_IN_MEMORY;
        }
        return e.isTombstone() ? MemoryRead.DELETED : new MemoryRead(true, e.value());
    }

    /**
     * Removes {@code key} (a no-op if absent).
     *
     * @param key the key (not null)
     */
    public void delete(byte[] key) {
        engine.write(new WriteBatch().delete(key), WriteOptions.defaults());
    }

    /**
     * Deletes every key in {@code [fromInclusive, toExclusive)} (unsigned lexicographic order,
     * the store's key order) written before this call, with one range tombstone: one WAL
     * record and one memtable entry however many keys the range holds (RocksDB's
     * {@code DeleteRange}). Keys written afterwards are visible; a snapshot taken before still
     * sees the deleted data. Merges drop the data it covers once no snapshot needs it, and the
     * tombstone itself at the last level. {@code fromInclusive == toExclusive} is an empty
     * range: nothing is deleted.
     *
     * @param fromInclusive the first key deleted
     * @param toExclusive the key the range ends before (not deleted)
     * @throws IllegalArgumentException if a key is null, {@code fromInclusive} sorts after
     *     {@code toExclusive} (the message names both) or a key exceeds the maximum key size
     *     (nothing is written)
     * @throws StoreClosedException if the store is closed
     */
    public void deleteRange(byte[] fromInclusive, byte[] toExclusive) {
        engine.checkOpen();
        engine.write(new WriteBatch().deleteRange(fromInclusive, toExclusive), WriteOptions.defaults());
    }

    /**
     * Deletes every key in {@code [fromInclusive, toExclusive)} of {@code family} (see
     * {@link #deleteRange(byte[], byte[])}); other families are untouched.
     *
     * @param family the family written (a live handle of this store)
     * @param fromInclusive the first key deleted
     * @param toExclusive the key the range ends before (not deleted)
     * @throws IllegalArgumentException if the handle is null, dropped or another store's, or
     *     the range is invalid (nothing is written)
     */
    public void deleteRange(ColumnFamily family, byte[] fromInclusive, byte[] toExclusive) {
        engine.checkOpen();
        engine.write(new WriteBatch().deleteRange(check(family), fromInclusive, toExclusive), WriteOptions.defaults());
    }

    /**
     * {@link #deleteRange(byte[], byte[])} with {@code options}.
     *
     * @param fromInclusive the first key deleted
     * @param toExclusive the key the range ends before (not deleted)
     * @param options the write's durability options
     */
    public void deleteRange(byte[] fromInclusive, byte[] toExclusive, WriteOptions options) {
        engine.checkOpen();
        engine.write(new WriteBatch().deleteRange(fromInclusive, toExclusive), checked(options));
    }

    /**
     * {@link #deleteRange(ColumnFamily, byte[], byte[])} with {@code options}.
     *
     * @param family the family written (a live handle of this store)
     * @param fromInclusive the first key deleted
     * @param toExclusive the key the range ends before (not deleted)
     * @param options the write's durability options
     */
    public void deleteRange(ColumnFamily family, byte[] fromInclusive, byte[] toExclusive, WriteOptions options) {
        engine.checkOpen();
        engine.write(new WriteBatch().deleteRange(check(family), fromInclusive, toExclusive), checked(options));
    }

    /**
     * Applies every operation of {@code batch} atomically, across column families too: after
     * a crash all of it is there or none, and no reader sees part of it.
     *
     * @param batch the operations to apply (not null)
     * @throws IllegalArgumentException if the batch names a dropped family or another store's
     *     handle; nothing of it is written
     */
    public void write(WriteBatch batch) {
        engine.checkOpen();
        engine.write(checkFamilies(batch), WriteOptions.defaults());
    }

    /**
     * Applies every operation of {@code batch} atomically, with {@code options} (see there).
     *
     * @param batch the operations to apply (not null)
     * @param options the write's durability options
     */
    public void write(WriteBatch batch, WriteOptions options) {
        engine.checkOpen();
        engine.write(checkFamilies(batch), checked(options));
    }

    /**
     * Sets {@code key} to {@code value}, with {@code options}.
     *
     * @param key the key (not null)
     * @param value the value (not null)
     * @param options the write's durability options
     */
    public void put(byte[] key, byte[] value, WriteOptions options) {
        engine.write(new WriteBatch().put(key, value), checked(options));
    }

    /**
     * Removes {@code key} (a no-op if absent), with {@code options}.
     *
     * @param key the key (not null)
     * @param options the write's durability options
     */
    public void delete(byte[] key, WriteOptions options) {
        engine.write(new WriteBatch().delete(key), checked(options));
    }

    private static WriteOptions checked(WriteOptions options) {
        if (options == null) {
            throw new IllegalArgumentException("write options must not be null (WriteOptions.defaults())");
        }
        return options;
    }

    /**
     * A consistent view as of now; close it when done.
     *
     * @return a new snapshot, which the caller closes
     */
    public Snapshot snapshot() {
        Engine owner = engine;
        long seq = owner.acquireSnapshot();
        return new StoreSnapshot(owner, seq, this);
    }

    /**
     * A cursor over the live keys in [fromInclusive, toExclusive) as of now; a null bound is
     * open. It moves both ways (see {@link Cursor}). Close the cursor.
     *
     * @param fromInclusive the first key, or null for the first key of the store
     * @param toExclusive the key the scan stops before, or null to the end
     * @return a new cursor, which the caller closes
     */
    public Cursor scan(byte[] fromInclusive, byte[] toExclusive) {
        return engine.scanLatest(fromInclusive, toExclusive);
    }

    /**
     * A cursor over exactly the live keys that start with {@code prefix}, as of now: the
     * range [prefix, the first key after every key with the prefix), moving both ways
     * ({@link Cursor#seekToFirst()}, {@link Cursor#seekToLast()}, {@link Cursor#prev()} stay
     * within the prefix), like a RocksDB iterator with {@code prefix_same_as_start} and an
     * upper bound. An empty prefix scans every key. With a prefix extractor configured
     * ({@link StoreConfig.Builder#prefixExtractor(PrefixExtractor)}, XML {@code <sstable
     * prefixBloom="fixed:N"/>}) and a prefix of at least N bytes, tables built by the same
     * extractor whose bloom filter says no key has the prefix are not read at all
     * ({@link StoreStats#prefixBloomSkips()}); without one it reads what {@link #scan} reads.
     * Close the cursor.
     *
     * @param prefix the prefix every returned key starts with (empty for all keys)
     * @return a new cursor, which the caller closes
     * @throws IllegalArgumentException if {@code prefix} is null
     */
    public Cursor scanPrefix(byte[] prefix) {
        engine.checkOpen();
        return engine.scanPrefix(0, prefix, -1);
    }

    /** Writes the memtable to a component; returns when it is durable. */
    public void flush() {
        engine.flush();
    }

    /** Returns when the policy wants no more merges and none is running. */
    public void awaitMerges() {
        engine.awaitMerges();
    }

    /**
     * An estimate of the number of live keys, from the memtables' key counts and the tables'
     * entry and tombstone counts, without reading a table (like RocksDB's
     * {@code rocksdb.estimate-num-keys}). Exact for distinct inserts; it errs high while
     * versions of an overwritten key sit in several components not yet merged, and low while
     * tombstones stay whose keys a merge already dropped.
     *
     * @return the estimated number of live keys, 0 or more
     */
    public long estimateKeyCount() {
        engine.checkOpen();
        return engine.estimateKeyCount();
    }

    /**
     * Writes an openable copy of the store into {@code target}, which must not exist, while
     * reads, writes and merges go on (RocksDB's {@code Checkpoint}): the memtable is flushed,
     * then the table files of the current version are hard-linked into {@code target} (copied
     * where the file system refuses links) beside a manifest naming exactly them. The
     * checkpoint holds every write acknowledged before the call and opens with
     * {@code LsmStore.open(target, config)}. A file shared with a checkpoint is never changed
     * in place (block compaction rewrites it instead; no page of it is punched), so the two
     * stores stay independent. A crash during the call leaves no {@code target} (at most a
     * {@code target.checkpoint-tmp} directory, removed by the next checkpoint to that target).
     *
     * <p>A store with column families besides the default one is checkpointed whole, at one
     * sequence number: nothing is flushed (except in WAL mode none, where every family's
     * memtables are flushed with writers waiting); instead (writers waiting only for that instant)
     * every family's version is pinned and the WAL segments from the lowest log number of
     * any family on are linked, the one being written copied up to its length then; each
     * family's tables and a manifest naming them go to its directory ({@code families/<id>/})
     * beside the family catalog. Opening the checkpoint replays that WAL tail per family, so
     * it holds every family exactly as it was at that sequence number — a write batch across
     * families whole or not at all.
     *
     * @param target the checkpoint's directory, which must not exist; its parent must
     * @throws IllegalArgumentException if {@code target} exists or its parent does not
     */
    public void checkpoint(Path target) {
        engine.checkpoint(target);
    }

    /**
     * Bulk-loads tables written by {@link TableWriter} (RocksDB's {@code ingestExternalFile}):
     * each file is validated (format, page size, checksums, strictly increasing keys, the
     * store's limits), then all of them get one sequence number, newer than every write
     * before the call, and are installed at once in one version edit — after a crash either
     * all of them are in the store or none. The files' key ranges must not overlap each other.
     * Each table goes where the merge policy places it ({@code MergePolicy.placeIngest}; the
     * default is the deepest level such that nothing in it or above it overlaps). Writes wait
     * while the files are ingested: the memtables are flushed first. A file's entries are not
     * rewritten: the store's table is the file itself, hard-linked in, when it is moved
     * ({@link IngestOptions#deleteFiles}; copied where the file system refuses a link), else a
     * byte copy, and one page is appended to the store's file — a footer giving every entry
     * the ingest's sequence number (docs/format.md, footer format 4). A moved file's name is
     * removed once the ingest is installed; a crash before that can leave it one page longer,
     * still a valid table with the same entries that can be ingested again. A kept file is not
     * changed. (A table written with compression is rewritten entry by entry instead.)
     *
     * @param files the table files to load, overlapping each other nowhere
     * @param options whether the files are moved or copied in
     * @throws IllegalArgumentException naming the file and the problem when a file is not a
     *     valid table for this store, or two files overlap; nothing is changed then
     */
    public void ingest(java.util.List<Path> files, IngestOptions options) {
        engine.ingest(files, options);
    }

    /**
     * Compacts the keys in [{@code fromInclusive}, {@code toExclusive}) ({@code null} bounds are
     * open), as RocksDB's {@code compactRange}: flushes the memtable, waits for running merges,
     * then runs the merge policy's plan for the range ({@code MergePolicy.planCompaction}; the
     * default rewrites the tables overlapping the range, and those overlapping them, into the
     * deepest level they occupy, dropping overwritten versions and, at the bottom, tombstones)
     * and returns when it is done. Reads and writes go on meanwhile.
     *
     * @param fromInclusive the first key of the range, or null for no lower bound
     * @param toExclusive the end of the range, exclusive, or null for no upper bound
     * @throws IllegalArgumentException if {@code fromInclusive} is after {@code toExclusive}
     * @throws StoreException if the policy's plan is invalid or the merge fails
     */
    public void compactRange(byte[] fromInclusive, byte[] toExclusive) {
        engine.compactRange(fromInclusive, toExclusive);
    }

    /**
     * Estimated bytes of the tables for keys in [{@code fromInclusive}, {@code toExclusive})
     * ({@code null} bounds are open), from each table's interior-page fences, without reading
     * a leaf; the memtables are not counted (as RocksDB's {@code getApproximateSizes} with
     * files only).
     *
     * @param fromInclusive the first key of the range, or null for no lower bound
     * @param toExclusive the end of the range, exclusive, or null for no upper bound
     * @return the estimated bytes, 0 or more
     * @throws IllegalArgumentException if {@code fromInclusive} is after {@code toExclusive}
     */
    public long approximateSize(byte[] fromInclusive, byte[] toExclusive) {
        engine.checkOpen();
        return engine.approximateSize(fromInclusive, toExclusive);
    }

    /**
     * Current counters.
     *
     * @return a new immutable snapshot of the store's statistics
     */
    public StoreStats stats() {
        engine.checkOpen();
        return engine.stats();
    }

    /**
     * The directory of the store.
     *
     * @return the path the store was opened at
     */
    public Path directory() {
        engine.checkOpen();
        return engine.directory();
    }

    /**
     * The configuration the store was opened with. When that configuration names no merge
     * policy ({@link StoreConfig#mergePolicyNamed()} false), this one holds the policy the store
     * chose and runs: the one its manifest records, or the default for a new store
     * (docs/policies.md, "The default policy and what a store records").
     *
     * @return the configuration given to {@code open}, with the policy the store runs
     */
    public StoreConfig config() {
        engine.checkOpen();
        return engine.config();
    }

    /** The engine behind this store, for tests in this package (not part of the API). */
    Engine engine() {
        return engine;
    }

    /** Waits for running background jobs, closes files and releases the directory. */
    @Override
    public void close() {
        synchronized (this) {
            closed = true;
        }
        engine.close();
    }

    private static final class StoreSnapshot implements Snapshot {
        private final Engine engine;
        private final long seq;
        private final LsmStore owner;
        private final AtomicBoolean closed = new AtomicBoolean();

        StoreSnapshot(Engine engine, long seq, LsmStore owner) {
            this.engine = engine;
            this.seq = seq;
            this.owner = owner;
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
        public Cursor scanPrefix(byte[] prefix) {
            check();
            return engine.scanPrefix(0, prefix, seq);
        }

        @Override
        public Cursor scanPrefix(ColumnFamily family, byte[] prefix) {
            check();
            return engine.scanPrefix(family(family), prefix, seq);
        }

        @Override
        public byte[] get(ColumnFamily family, byte[] key) {
            check();
            return engine.get(family(family), key, seq);
        }

        @Override
        public Cursor scan(ColumnFamily family, byte[] fromInclusive, byte[] toExclusive) {
            check();
            return engine.scan(family(family), fromInclusive, toExclusive, seq);
        }

        private int family(ColumnFamily family) {
            if (family == null) {
                throw new IllegalArgumentException("column family must not be null");
            }
            if (!family.ownedBy(owner)) {
                throw new IllegalArgumentException("the handle of column family \"" + family.name() + "\" belongs to"
                        + " another store (or an earlier open of this one)");
            }
            if (family.isDropped()) {
                throw new IllegalArgumentException("column family \"" + family.name() + "\" (id " + family.id()
                        + ") was dropped");
            }
            return family.id();
        }

        @Override
        public long sequenceNumber() {
            check();
            return seq;
        }

        private void check() {
            if (closed.get()) {
                throw new StoreClosedException("snapshot is closed");
            }
            engine.checkOpen();
        }

        @Override
        public void close() {
            if (closed.compareAndSet(false, true)) {
                engine.releaseSnapshot(seq);
            }
        }
    }
}
