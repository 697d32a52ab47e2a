package dev.strata.lsm.kafka;

import dev.strata.lsm.Cursor;
import dev.strata.lsm.LsmStore;
import dev.strata.lsm.StoreConfig;
import dev.strata.lsm.StoreException;
import dev.strata.lsm.StoreStats;
import dev.strata.lsm.WriteBatch;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.apache.kafka.streams.errors.ProcessorStateException;
import org.apache.kafka.streams.errors.TaskCorruptedException;
import org.apache.kafka.streams.processor.StateStore;
import org.apache.kafka.streams.processor.StateStoreContext;
import org.apache.kafka.streams.processor.TaskId;
import org.apache.kafka.streams.processor.api.RecordMetadata;
import org.apache.kafka.streams.processor.internals.ChangelogRecordDeserializationHelper;
import org.apache.kafka.streams.processor.internals.RecordBatchingStateRestoreCallback;
import org.apache.kafka.streams.query.FailureReason;
import org.apache.kafka.streams.query.KeyQuery;
import org.apache.kafka.streams.query.Position;
import org.apache.kafka.streams.query.PositionBound;
import org.apache.kafka.streams.query.Query;
import org.apache.kafka.streams.query.QueryConfig;
import org.apache.kafka.streams.query.QueryResult;
import org.apache.kafka.streams.query.RangeQuery;
import org.apache.kafka.streams.query.ResultOrder;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.internals.PositionSerde;

import java.io.File;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A Kafka Streams key-value store of bytes kept in a Strata {@link LsmStore}, one Strata
 * store per state store instance (task), in {@code <state.dir>/<task>/strata/<name>}.
 *
 * <h2>Offsets committed with the data</h2>
 * The store {@linkplain #managesOffsets() manages its changelog offsets}. Writes are held in
 * memory ({@link UncommittedWrites}) and read from there until Kafka Streams commits the
 * task; {@link #commit(Map)} then writes them, the changelog offsets and the IQv2 position
 * as one Strata {@link WriteBatch}, so after a crash the store holds exactly the state of
 * some commit and its offsets say which. {@link #committedOffset(TopicPartition)} reads the
 * offsets back. A restore batch is one write batch too: its records, the offset of its last
 * record and the position. If the uncommitted writes pass {@link #MAX_UNCOMMITTED_BYTES}
 * between two commits, or grow while the application's shared memtables and write buffers are
 * over its memtable budget ({@link WriteBufferLimit}: the store's bytes are reserved in its
 * {@link dev.strata.lsm.SharedResources}), they are written without offsets (the store is then
 * ahead of its offsets, which restore tolerates under at-least-once and the open marker covers
 * under exactly-once).
 *
 * <h2>Coalesced commits</h2>
 * A commit that comes less than {@link StrataStoreConfigs#COMMIT_COALESCE_MS_CONFIG} (50 ms by
 * default) after the last commit the store wrote, while processing (writes are buffered), is
 * held in memory: its writes stay in the buffer, its offsets are what
 * {@link #committedOffset(TopicPartition)} answers, and both are written, in one batch, by the
 * next commit written, a spill of the buffer, a restore batch or the close. Kafka Streams under
 * {@code TopologyTestDriver} commits after every record; without this every record would be a
 * write batch of its own with the offsets and position. A crash loses a held commit's writes
 * and offsets together, so the store reports the offsets of the last written commit, never
 * offsets ahead of its data, and Kafka Streams replays the changelog from there (as after a
 * crash of Kafka's RocksDB store, which writes without a WAL and loses what its memtables
 * held). A commit that removes offsets, or one after a restore whose unlogged writes wait for
 * their checkpoint, is always written.
 *
 * <h2>Restore without the WAL</h2>
 * A restore batch (its records, offset and position) is written with
 * {@link dev.strata.lsm.WriteOptions#disableWal(boolean) disableWal}, as Kafka's RocksDB store
 * writes without a WAL: it is durable once its memtable is flushed, in write order, so a crash
 * loses the batch's offset with its records and never keeps the offset alone. A later write
 * <em>with</em> the WAL would survive a crash that loses the unlogged records before it, so the
 * store flushes before its first logged write after a restore: a commit that carries
 * uncommitted writes (processing has started) or follows
 * {@link AbstractSegmentedStore#UNLOGGED_RECORDS_PER_CHECKPOINT} restored records or more,
 * a spill of uncommitted writes, the close. A commit of offsets alone after a short restore
 * (a standby's) is written without the WAL too, so a standby does not flush at every commit.
 * The same rule as the window and session stores' ({@link AbstractSegmentedStore}).
 *
 * <h2>Open/closed marker</h2>
 * As Kafka's RocksDB store does, the store records "open" when it opens and "closed" when it
 * closes cleanly. Under {@code exactly_once_v2}, opening a store still marked open (the last
 * run did not close it) throws {@link TaskCorruptedException}: Kafka Streams then wipes the
 * task's state and restores it from the changelog.
 *
 * <h2>Threads</h2>
 * The stream thread writes; interactive queries may read from other threads at the same
 * time. Every operation takes the store's monitor; an iterator copies the uncommitted writes
 * of its range and reads a Strata cursor, so it needs no lock while it runs.
 */
public class StrataKeyValueStore implements KeyValueStore<Bytes, byte[]> {
    /** Uncommitted writes past this many bytes are written to Strata before the next commit. */
    public static final long MAX_UNCOMMITTED_BYTES = 32L << 20;

    /** Stores with fewer records than this are counted exactly by {@link #approximateNumEntries()}. */
    private static final int ENTRY_SIZE_SAMPLE = 256;

    private final String name;
    private final StoreConfig config;
    private final long maxUncommittedBytes;
    private final UncommittedWrites uncommitted = new UncommittedWrites();
    /**
     * When the uncommitted writes are written early: past {@link #maxUncommittedBytes}, or over the
     * shared memtable budget, where they are reserved (made by init, released by close).
     */
    private WriteBufferLimit bufferLimit;
    private final Set<StrataKeyValueIterator> openIterators = ConcurrentHashMap.newKeySet();

    private LsmStore store;
    /** Options of a restore write: without the WAL (see the class comment, "Restore without the WAL"). */
    private static final dev.strata.lsm.WriteOptions UNLOGGED = dev.strata.lsm.WriteOptions.defaults().disableWal(true);
    /** Whether the store holds writes made without the WAL that no flush has made durable yet. */
    private boolean unlogged;
    /** Records restored without the WAL since the last flush. */
    private long unloggedRecords;
    /**
     * Restored records not yet written to Strata (see "Restore in sorted chunks"), with the
     * last restored offset of each changelog partition among them; its one target is the store.
     */
    private final RestoredChunk<LsmStore> restoring = new RestoredChunk<>();
    /** The bytes of restored records gathered before they are written as one sorted chunk. */
    private long restoreChunkBytes;
    private StateStoreContext context;
    private TaskId taskId;
    private Position position = Position.emptyPosition();
    private boolean consistencyEnabled;
    private volatile boolean open;
    /** The store's engine metrics in Kafka's (made by init, closed by close). */
    private StrataMetricsRecorder recorder;

    /**
     * @param name the store name
     * @param config the configuration each Strata store of this name is opened with
     */
    /**
     * The committed offsets as this store last wrote or read them (a null value: none for that
     * partition), so that Kafka's reads of them at every commit do not go to the engine. Only
     * this store writes offsets; cleared when it opens and when a commit removes them all.
     */
    private final Map<TopicPartition, Long> committedOffsets = new java.util.HashMap<>();
    /** Each partition's offset key, encoded once. */
    private final Map<TopicPartition, byte[]> offsetKeys = new java.util.HashMap<>();
    /** The commits held in memory since the last written one (see "Coalesced commits"). */
    private final CommitCoalescing coalescing = new CommitCoalescing();

    public StrataKeyValueStore(String name, StoreConfig config) {
        this(name, config, MAX_UNCOMMITTED_BYTES);
    }

    StrataKeyValueStore(String name, StoreConfig config, long maxUncommittedBytes) {
        this.name = Objects.requireNonNull(name, "name");
        this.config = Objects.requireNonNull(config, "config");
        if (maxUncommittedBytes <= 0) {
            throw new IllegalArgumentException("maxUncommittedBytes must be positive, was " + maxUncommittedBytes);
        }
        this.maxUncommittedBytes = maxUncommittedBytes;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public boolean persistent() {
        return true;
    }

    @Override
    public boolean isOpen() {
        return open;
    }

    @Override
    @SuppressWarnings("deprecation")
    public boolean managesOffsets() {
        return true;
    }

    /** The directory of this instance's Strata store, under the task's state directory. */
    static Path directory(File stateDir, String storeName) {
        return stateDir.toPath().resolve("strata").resolve(storeName);
    }

    @Override
    public synchronized void init(StateStoreContext stateStoreContext, StateStore root) {
        if (open) {
            throw new IllegalStateException("store " + name + " is already open");
        }
        // A store object initialized again (Kafka's recovery path wipes the directory first)
        // starts from what is on disk, never from writes buffered before an earlier close.
        uncommitted.clear();
        committedOffsets.clear();
        coalescing.reset(0);
        unlogged = false;
        unloggedRecords = 0;
        restoring.clear();
        position = Position.emptyPosition();
        this.context = stateStoreContext;
        this.taskId = stateStoreContext.taskId();
        Map<String, Object> appConfigs = stateStoreContext.appConfigs();
        boolean eos = StreamsConfig.EXACTLY_ONCE_V2.equals(appConfigs.get(StreamsConfig.PROCESSING_GUARANTEE_CONFIG));
        consistencyEnabled = StreamsConfig.InternalConfig.getBoolean(appConfigs,
                StreamsConfig.InternalConfig.IQ_CONSISTENCY_OFFSET_VECTOR_ENABLED, false);
        Path dir = directory(stateStoreContext.stateDir(), name);
        recorder = StrataMetricsRecorder.create(stateStoreContext.metrics(), taskId.toString(),
                StrataKeyValueBytesStoreSupplier.METRICS_SCOPE, name, () -> store == null ? List.of() : List.of(store));
        StoreConfig openConfig;
        try {
            coalescing.reset(StrataStoreConfigs.commitCoalesceNanos(appConfigs));
            Files.createDirectories(dir);
            openConfig = recorder.instrument(StrataStoreConfigs.forStore(name, config, appConfigs));
            store = LsmStore.open(dir, openConfig);
        } catch (IOException | StoreException e) {
            recorder.close();
            throw new ProcessorStateException("cannot open Strata store " + name + " in " + dir, e);
        }
        try {
            byte[] status = store.get(StoreLayout.STATUS_KEY);
            if (eos && status != null && status[0] == StoreLayout.OPEN) {
                throw new TaskCorruptedException(Set.of(taskId), new ProcessorStateException("store " + name + " in "
                        + dir + " was not closed cleanly; under exactly-once it may hold uncommitted data"));
            }
            byte[] storedPosition = store.get(StoreLayout.POSITION_KEY);
            position = storedPosition == null ? Position.emptyPosition()
                    : PositionSerde.deserialize(ByteBuffer.wrap(storedPosition));
            store.put(StoreLayout.STATUS_KEY, new byte[] {StoreLayout.OPEN});
        } catch (RuntimeException e) {
            closeQuietly();
            recorder.close();
            if (e instanceof StoreException) {
                throw new ProcessorStateException("cannot open Strata store " + name + " in " + dir, e);
            }
            throw e;
        }
        bufferLimit = WriteBufferLimit.of(openConfig);
        restoreChunkBytes = RestoredChunk.maxBytes(openConfig.memtableBytes(), maxUncommittedBytes);
        recorder.writeBufferBytes(bufferLimit::bytes);
        open = true;
        recorder.record(true);
        stateStoreContext.register(root, (RecordBatchingStateRestoreCallback) this::restoreBatch, () -> { });
    }

    private void closeQuietly() {
        try {
            store.close();
        } catch (RuntimeException ignored) {
            // the original failure is the one to report
        }
        store = null;
    }

    private void checkOpen() {
        if (!open) {
            throw new InvalidStateStoreException("store " + name + " is currently closed");
        }
    }

    private ProcessorStateException failure(String action, RuntimeException e) {
        return new ProcessorStateException("Strata store " + name + ": " + action + " failed", e);
    }

    // ---- reads

    @Override
    public synchronized byte[] get(Bytes key) {
        Objects.requireNonNull(key, "key cannot be null");
        checkOpen();
        writeRestoredChunk();
        byte[] pending = uncommitted.get(key);
        if (pending != null) {
            return pending == UncommittedWrites.TOMBSTONE ? null : pending;
        }
        try {
            return store.get(StoreLayout.dataKey(key.get()));
        } catch (StoreException e) {
            throw failure("get", e);
        }
    }

    @Override
    public KeyValueIterator<Bytes, byte[]> range(Bytes from, Bytes to) {
        return range(from, to, true);
    }

    @Override
    public KeyValueIterator<Bytes, byte[]> reverseRange(Bytes from, Bytes to) {
        return range(from, to, false);
    }

    @Override
    public KeyValueIterator<Bytes, byte[]> all() {
        return range(null, null, true);
    }

    @Override
    public KeyValueIterator<Bytes, byte[]> reverseAll() {
        return range(null, null, false);
    }

    /** Records with keys in [from, to]; a null bound is open; empty when from is after to. */
    private synchronized KeyValueIterator<Bytes, byte[]> range(Bytes from, Bytes to, boolean forward) {
        checkOpen();
        writeRestoredChunk();
        if (from != null && to != null && from.compareTo(to) > 0) {
            InvalidKeyRange.warn();
            return iterator(StoreLayout.DATA_START, StoreLayout.DATA_START, List.of(), forward);
        }
        byte[] start = from == null ? StoreLayout.DATA_START : StoreLayout.dataKey(from.get());
        byte[] end = to == null ? StoreLayout.DATA_END : StoreLayout.dataKeyAfter(to.get());
        return iterator(start, end, uncommitted.copyRange(from, to), forward);
    }

    @Override
    public synchronized <PS extends Serializer<P>, P> KeyValueIterator<Bytes, byte[]> prefixScan(P prefix,
                                                                                                 PS prefixKeySerializer) {
        Objects.requireNonNull(prefix, "prefix cannot be null");
        Objects.requireNonNull(prefixKeySerializer, "prefixKeySerializer cannot be null");
        checkOpen();
        writeRestoredChunk();
        byte[] p = prefixKeySerializer.serialize(null, prefix);
        // The records of the prefix are the Strata keys with prefix dataKey(p): a prefix scan,
        // which skips tables whose prefix bloom rules the prefix out (<sstable prefixBloom>),
        // streams them; only the uncommitted writes of the prefix are copied.
        Cursor cursor;
        try {
            cursor = store.scanPrefix(StoreLayout.dataKey(p));
        } catch (StoreException e) {
            throw failure("prefixScan", e);
        }
        return iterator(cursor, uncommitted.copyPrefix(p), true);
    }

    private KeyValueIterator<Bytes, byte[]> iterator(byte[] start, byte[] end,
                                                     List<Map.Entry<Bytes, byte[]>> pending, boolean forward) {
        Cursor cursor;
        try {
            cursor = store.scan(start, end);
        } catch (StoreException e) {
            throw failure("range", e);
        }
        return iterator(cursor, pending, forward);
    }

    private KeyValueIterator<Bytes, byte[]> iterator(Cursor cursor, List<Map.Entry<Bytes, byte[]>> pending,
                                                     boolean forward) {
        StrataKeyValueIterator it = new StrataKeyValueIterator(name, cursor, pending, forward, openIterators::remove);
        openIterators.add(it);
        return it;
    }

    /**
     * An estimate: Strata's {@link LsmStore#estimateKeyCount()} (memtable key counts and table
     * entry counts, see there for its bias) less the store's few metadata records, plus the
     * uncommitted writes (less their deletes). Exact when the store holds fewer than
     * {@value #ENTRY_SIZE_SAMPLE} records: those are counted.
     */
    @Override
    public synchronized long approximateNumEntries() {
        checkOpen();
        writeRestoredChunk();
        try {
            long counted = 0;
            try (Cursor c = store.scan(StoreLayout.DATA_START, StoreLayout.DATA_END)) {
                while (counted < ENTRY_SIZE_SAMPLE && c.next()) {
                    counted++;
                }
            }
            long pending = uncommitted.size() - 2L * uncommitted.deletes();
            if (counted < ENTRY_SIZE_SAMPLE) {
                // The whole store was read: count it, with the uncommitted writes on top.
                return Math.max(0, counted + pending);
            }
            long metadata = 0;
            try (Cursor c = store.scan(null, StoreLayout.DATA_START)) {
                while (c.next()) {
                    metadata++;
                }
            }
            return Math.max(counted, store.estimateKeyCount() - metadata + pending);
        } catch (StoreException e) {
            throw failure("approximateNumEntries", e);
        }
    }

    // ---- writes

    @Override
    public synchronized void put(Bytes key, byte[] value) {
        Objects.requireNonNull(key, "key cannot be null");
        checkOpen();
        checkLimits(key, value);
        writeRestoredChunk();
        uncommitted.put(key, value);
        updatePosition();
        maybeSpill();
    }

    @Override
    public synchronized byte[] putIfAbsent(Bytes key, byte[] value) {
        byte[] previous = get(key);
        if (previous == null && value != null) {
            put(key, value);
        }
        return previous;
    }

    @Override
    public synchronized void putAll(List<KeyValue<Bytes, byte[]>> entries) {
        checkOpen();
        for (KeyValue<Bytes, byte[]> entry : entries) {
            Objects.requireNonNull(entry.key, "key cannot be null");
            checkLimits(entry.key, entry.value);
        }
        writeRestoredChunk();
        for (KeyValue<Bytes, byte[]> entry : entries) {
            uncommitted.put(entry.key, entry.value);
        }
        updatePosition();
        maybeSpill();
    }

    @Override
    public synchronized byte[] delete(Bytes key) {
        byte[] previous = get(key);
        put(key, null);
        return previous;
    }

    /**
     * Refuses a record the Strata store could not take, before it is buffered: a buffered
     * record that no commit can write would fail every later commit.
     */
    private void checkLimits(Bytes key, byte[] value) {
        int maxKey = config.maxKeyBytes() - StoreLayout.DATA_KEY_PREFIX_BYTES;
        if (key.get().length > maxKey) {
            throw new ProcessorStateException("Strata store " + name + ": key of " + key.get().length
                    + " bytes exceeds the maximum key size of " + maxKey + " bytes (the Strata store's "
                    + config.maxKeyBytes() + " at pageSize " + config.pageSize() + ", less the "
                    + StoreLayout.DATA_KEY_PREFIX_BYTES + "-byte record prefix); the record was not written");
        }
        if (value != null && value.length > config.maxValueBytes()) {
            throw new ProcessorStateException("Strata store " + name + ": value of " + value.length
                    + " bytes exceeds the maximum value size of " + config.maxValueBytes()
                    + " bytes (maxValueBytes); the record was not written");
        }
    }

    private void updatePosition() {
        if (context != null) {
            Optional<RecordMetadata> meta = context.recordMetadata();
            if (meta.isPresent() && meta.get().topic() != null) {
                position.withComponent(meta.get().topic(), meta.get().partition(), meta.get().offset());
            }
        }
    }

    /**
     * Writes the uncommitted writes without offsets when they have grown past the store's limit,
     * or when the shared memtables and write buffers are over the memtable budget (see
     * {@link WriteBufferLimit}: the thread adding bytes writes its own buffer).
     */
    private void maybeSpill() {
        if (bufferLimit.resized(uncommitted.approximateBytes(), maxUncommittedBytes)) {
            writeUncommittedWithoutOffsets();
            // Under exactly-once no commit may come before a rebalance: the metrics' snapshot follows the early writes.
            recorder.record(false);
        }
    }

    private void write(WriteBatch batch, String action) {
        try {
            flushUnlogged();
            store.write(batch);
        } catch (StoreException | IllegalArgumentException e) {
            throw failure(action, e);
        }
    }

    /** Writes {@code batch} without the WAL (see "Restore without the WAL"). */
    private void writeUnlogged(WriteBatch batch, String action) {
        try {
            store.write(batch, UNLOGGED);
        } catch (StoreException | IllegalArgumentException e) {
            throw failure(action, e);
        }
        unlogged = true;
    }

    /** Makes the unlogged writes durable (a flush) before a write with the WAL. */
    private void flushUnlogged() {
        if (unlogged) {
            store.flush();
            unlogged = false;
            unloggedRecords = 0;
        }
    }

    /** The approximate bytes of the uncommitted writes (tests). */
    synchronized long bufferedBytes() {
        return uncommitted.approximateBytes();
    }

    /** Whether the store holds unlogged writes not yet flushed (tests). */
    synchronized boolean holdsUnloggedWrites() {
        return unlogged || !restoring.isEmpty();
    }

    // ---- commit, offsets, restore

    /**
     * Writes the uncommitted writes, the given changelog offsets and the position as one
     * Strata write batch. An empty map removes every committed offset; a null offset removes
     * that partition's.
     */
    @Override
    public synchronized void commit(Map<TopicPartition, Long> changelogOffsets) {
        if (!open) {
            return;
        }
        writeRestoredChunk();
        long now = System.nanoTime();
        if (mayHold(changelogOffsets, now)) {
            // Coalesced: the writes stay buffered, the offsets are held with them (see "Coalesced commits").
            coalescing.hold(changelogOffsets);
            committedOffsets.putAll(changelogOffsets);
            return;
        }
        changelogOffsets = coalescing.withHeld(changelogOffsets);
        WriteBatch batch = new WriteBatch();
        uncommitted.addTo(batch);
        if (changelogOffsets.isEmpty()) {
            try (Cursor c = store.scan(StoreLayout.OFFSET_PREFIX, StoreLayout.OFFSET_END)) {
                while (c.next()) {
                    batch.delete(c.key());
                }
            } catch (StoreException e) {
                throw failure("commit", e);
            }
        }
        StoreLayout.addOffsets(batch, changelogOffsets, this::offsetKey);
        batch.put(StoreLayout.POSITION_KEY, PositionSerde.serialize(position).array());
        if (unlogged && uncommitted.isEmpty()
                && unloggedRecords < AbstractSegmentedStore.UNLOGGED_RECORDS_PER_CHECKPOINT) {
            writeUnlogged(batch, "commit");
        } else {
            write(batch, "commit");
        }
        if (changelogOffsets.isEmpty()) {
            committedOffsets.clear();
        }
        committedOffsets.putAll(changelogOffsets);
        coalescing.written(now);
        uncommitted.clear();
        bufferLimit.emptied();
        recorder.record(false);
    }

    /**
     * Whether a commit of {@code changelogOffsets} at {@code now} is held in memory rather than
     * written (see "Coalesced commits"): processing has buffered writes or a held commit, the
     * last written commit is less than the coalescing interval old, the commit removes no
     * offset, and no restore's unlogged writes wait for their checkpoint.
     */
    private boolean mayHold(Map<TopicPartition, Long> changelogOffsets, long now) {
        return coalescing.timely(changelogOffsets, now) && !unlogged
                && (!uncommitted.isEmpty() || coalescing.holds());
    }

    /** Sets the coalescing interval in ns, replacing the configured one (tests; 0: every commit is written). */
    synchronized void commitCoalesceNanos(long nanos) {
        coalescing.override(nanos);
    }

    /** Whether a commit is held in memory, not yet written (tests). */
    synchronized boolean holdsCommit() {
        return coalescing.holds();
    }

    /**
     * Adds the held commit's offsets and the position to {@code batch}, which carries every
     * buffered write (so the offsets are not ahead of the data), and forgets them: a write of
     * the buffer outside a commit (a spill, a restore batch, the close) takes them along.
     */
    private void addHeldCommit(WriteBatch batch) {
        if (!coalescing.holds()) {
            return;
        }
        StoreLayout.addOffsets(batch, coalescing.held(), this::offsetKey);
        batch.put(StoreLayout.POSITION_KEY, PositionSerde.serialize(position).array());
    }

    @Override
    public synchronized Long committedOffset(TopicPartition partition) {
        checkOpen();
        if (committedOffsets.containsKey(partition)) {
            return committedOffsets.get(partition);
        }
        byte[] value;
        try {
            value = store.get(offsetKey(partition));
        } catch (StoreException e) {
            throw failure("committedOffset", e);
        }
        Long offset = value == null ? null : StoreLayout.decodeOffset(value, name, partition);
        committedOffsets.put(partition, offset);
        return offset;
    }

    private byte[] offsetKey(TopicPartition partition) {
        return offsetKeys.computeIfAbsent(partition, StoreLayout::offsetKey);
    }

    /**
     * Takes one batch of changelog records (a null value deletes) into the restored chunk
     * (see "Restore in sorted chunks"), which is written as one Strata write batch, with the
     * offset of its last record and the position, once it holds {@link #restoreChunkBytes}
     * (or the shared budget is reached), and before anything reads, writes or commits.
     */
    synchronized void restoreBatch(Collection<ConsumerRecord<byte[], byte[]>> records) {
        checkOpen();
        if (records.isEmpty()) {
            return;
        }
        if (!uncommitted.isEmpty() || coalescing.holds()) {
            writeUncommittedWithoutOffsets();
        }
        ConsumerRecord<byte[], byte[]> last = null;
        for (ConsumerRecord<byte[], byte[]> record : records) {
            ChangelogRecordDeserializationHelper.applyChecksAndUpdatePosition(record, consistencyEnabled, position);
            restoring.add(store, StoreLayout.dataKey(record.key()), record.value(), records.size());
            last = record;
        }
        restoring.taken(records.size(), last);
        committedOffsets.put(new TopicPartition(last.topic(), last.partition()), last.offset());
        if (bufferLimit.resized(restoring.approximateBytes(), restoreChunkBytes)) {
            writeRestoredChunk();
        }
    }

    /**
     * Writes the restored chunk, if one is held: its records in key order, the last offset of
     * each partition and the position, as one Strata write batch without the WAL.
     */
    private void writeRestoredChunk() {
        if (restoring.isEmpty()) {
            return;
        }
        WriteBatch batch = restoring.batch(store, restoring.lastOffsets().size() + 1);   // + the position
        StoreLayout.addOffsets(batch, restoring.lastOffsets(), this::offsetKey);
        batch.put(StoreLayout.POSITION_KEY, PositionSerde.serialize(position).array());
        long records = restoring.records();
        restoring.clear();
        writeUnlogged(batch, "restore");
        unloggedRecords += records;
        bufferLimit.emptied();
    }

    /** Writes the uncommitted writes, with the held commit's offsets if one is held (else without offsets). */
    private void writeUncommittedWithoutOffsets() {
        WriteBatch batch = new WriteBatch();
        uncommitted.addTo(batch);
        addHeldCommit(batch);
        write(batch, "writing uncommitted records");
        coalescing.releaseHeld();
        uncommitted.clear();
        bufferLimit.emptied();
    }

    // ---- IQv2

    /** The position of the store: the input offsets its writes came from. */
    @Override
    public synchronized Position getPosition() {
        return position;
    }

    /**
     * Answers {@link KeyQuery} (the value, or null) and {@link RangeQuery} (an iterator the
     * caller closes) when the store's position is at or past {@code positionBound} for the
     * task's partition; other queries are {@link FailureReason#UNKNOWN_QUERY_TYPE}.
     */
    @Override
    @SuppressWarnings("unchecked")
    public synchronized <R> QueryResult<R> query(Query<R> query, PositionBound positionBound, QueryConfig config) {
        long start = config.isCollectExecutionInfo() ? System.nanoTime() : 0;
        QueryResult<R> result;
        if (!(query instanceof KeyQuery) && !(query instanceof RangeQuery)) {
            result = QueryResult.forUnknownQueryType(query, this);
        } else if (context == null || !isPermitted(positionBound, taskId.partition())) {
            result = QueryResult.notUpToBound(position, positionBound, context == null ? null : taskId.partition());
        } else {
            try {
                if (query instanceof KeyQuery) {
                    result = (QueryResult<R>) QueryResult.forResult(get(((KeyQuery<Bytes, byte[]>) query).getKey()));
                } else {
                    result = (QueryResult<R>) QueryResult.forResult(rangeQuery((RangeQuery<Bytes, byte[]>) query));
                }
                result.setPosition(position.copy());
            } catch (RuntimeException e) {
                result = QueryResult.forFailure(FailureReason.STORE_EXCEPTION,
                        "store " + name + " failed to run " + query + ": " + e);
            }
        }
        if (config.isCollectExecutionInfo()) {
            result.addExecutionInfo("Handled in " + getClass() + " in " + (System.nanoTime() - start) + "ns");
        }
        return result;
    }

    private KeyValueIterator<Bytes, byte[]> rangeQuery(RangeQuery<Bytes, byte[]> query) {
        Bytes from = query.getLowerBound().orElse(null);
        Bytes to = query.getUpperBound().orElse(null);
        return range(from, to, query.resultOrder() != ResultOrder.DESCENDING);
    }

    /** True when, for {@code partition}, the position is at or past every bound offset. */
    private boolean isPermitted(PositionBound bound, int partition) {
        Position required = bound.position();
        for (String topic : required.getTopics()) {
            Long needed = required.getPartitionPositions(topic).get(partition);
            if (needed != null) {
                Long seen = position.getPartitionPositions(topic).get(partition);
                if (seen == null || seen < needed) {
                    return false;
                }
            }
        }
        return true;
    }

    // ---- close

    /**
     * Closes open iterators, writes what is uncommitted and the "closed" marker in one batch
     * (the offsets stay those of the last commit), and closes the Strata store. Idempotent.
     */
    @Override
    public synchronized void close() {
        if (!open) {
            return;
        }
        open = false;
        for (StrataKeyValueIterator it : List.copyOf(openIterators)) {
            it.close();
        }
        RuntimeException failure = null;
        try {
            writeRestoredChunk();
            WriteBatch batch = new WriteBatch();
            uncommitted.addTo(batch);
            addHeldCommit(batch);
            batch.put(StoreLayout.STATUS_KEY, new byte[] {StoreLayout.CLOSED});
            flushUnlogged();
            store.write(batch);
        } catch (StoreException | IllegalArgumentException e) {
            failure = failure("close", e);
        } finally {
            // Whatever the last write did, the Strata store is closed and its directory released,
            // so that the task can open it again; what was not written is the changelog's to restore.
            uncommitted.clear();
            restoring.clear();
            coalescing.releaseHeld();
            bufferLimit.close();
            try {
                store.close();
            } catch (RuntimeException e) {
                if (failure == null) {
                    failure = failure("close", e);
                } else {
                    failure.addSuppressed(e);
                }
            }
            store = null;
            recorder.close();
        }
        if (failure != null) {
            throw failure;
        }
    }

    @Override
    public String toString() {
        return "StrataKeyValueStore[" + name + (open ? ", open in " + store.directory() : ", closed") + "]";
    }
}
