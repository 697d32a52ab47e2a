package dev.strata.lsm.kafka;

import dev.strata.lsm.StoreConfig;
import dev.strata.lsm.StoreException;
import dev.strata.lsm.WriteBatch;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.metrics.Sensor;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.apache.kafka.streams.errors.ProcessorStateException;
import org.apache.kafka.streams.processor.StateStore;
import org.apache.kafka.streams.processor.StateStoreContext;
import org.apache.kafka.streams.processor.TaskId;
import org.apache.kafka.streams.processor.api.RecordMetadata;
import org.apache.kafka.streams.processor.internals.ChangelogRecordDeserializationHelper;
import org.apache.kafka.streams.processor.internals.RecordBatchingStateRestoreCallback;
import org.apache.kafka.streams.processor.internals.metrics.StreamsMetricsImpl;
import org.apache.kafka.streams.processor.internals.metrics.TaskMetrics;
import org.apache.kafka.streams.query.Position;
import org.apache.kafka.streams.query.PositionBound;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.internals.PositionSerde;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * What the Strata window and session stores share: time segments of one Strata store each
 * ({@link TimeSegments}), the observed stream time, the IQv2 position, restore, flush and
 * close. See docs/kafka-streams.md, "Window and session stores".
 *
 * <h2>Offsets</h2>
 * {@link #managesOffsets()} is false: a commit's writes span several segments, each its own
 * Strata store with its own WAL, and no write batch covers two of them, so the store cannot
 * record changelog offsets atomically with its data. Kafka Streams keeps the offsets in the
 * task's {@code .checkpoint} file, written after {@link #commit(Map)}, which makes every write
 * durable (a WAL-synced write in each segment written since the last flush). Under
 * exactly-once Kafka Streams removes the checkpoint while the task runs and wipes and
 * restores a store it finds without one, so the store keeps no open/closed marker.
 */
abstract class AbstractSegmentedStore implements StateStore {
    static final Logger LOG = LoggerFactory.getLogger(AbstractSegmentedStore.class);

    private static final String POSITION_FILE = "position";

    final String name;
    final StoreConfig config;
    final long retentionPeriod;
    final long segmentInterval;
    private final Set<SegmentIterator<?>> openIterators = ConcurrentHashMap.newKeySet();

    TimeSegments segments;
    long observedStreamTime = -1;
    Position position = Position.emptyPosition();
    /**
     * The position as the position file holds it (a copy), or null when unknown: a commit
     * rewrites the file only when the position moved since (Kafka Streams calls
     * {@link #persist} twice a commit, and under {@code TopologyTestDriver} commits every record).
     */
    private Position persistedPosition;
    private StateStoreContext context;
    private TaskId taskId;
    private boolean consistencyEnabled;
    private Sensor droppedRecords;
    private volatile boolean open;
    /** The store's engine metrics in Kafka's (made by init, closed by close). */
    private StrataMetricsRecorder recorder;
    /** {@link #config} with the recorder's listener: what this instance opens its Strata stores with. */
    StoreConfig openConfig;

    AbstractSegmentedStore(String name, StoreConfig config, long retentionPeriod, long segmentInterval) {
        this.name = Objects.requireNonNull(name, "name cannot be null");
        this.config = Objects.requireNonNull(config, "config cannot be null");
        if (retentionPeriod < 0) {
            throw new IllegalArgumentException("retentionPeriod cannot be negative, was " + retentionPeriod);
        }
        if (segmentInterval < 1) {
            throw new IllegalArgumentException("segmentInterval must be positive, was " + segmentInterval);
        }
        this.retentionPeriod = retentionPeriod;
        this.segmentInterval = segmentInterval;
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
        return false;
    }

    /** The directory of this instance's segments, under the task's state directory. */
    static Path directory(StateStoreContext context, String storeName) {
        return context.stateDir().toPath().resolve("strata").resolve(storeName);
    }

    @Override
    public synchronized void init(StateStoreContext stateStoreContext, StateStore root) {
        if (open) {
            throw new IllegalStateException("store " + name + " is already open");
        }
        context = stateStoreContext;
        taskId = stateStoreContext.taskId();
        observedStreamTime = -1;
        consistencyEnabled = StreamsConfig.InternalConfig.getBoolean(stateStoreContext.appConfigs(),
                StreamsConfig.InternalConfig.IQ_CONSISTENCY_OFFSET_VECTOR_ENABLED, false);
        droppedRecords = null;
        if (stateStoreContext.metrics() instanceof StreamsMetricsImpl) {
            droppedRecords = TaskMetrics.droppedRecordsSensor(Thread.currentThread().getName(), taskId.toString(),
                    (StreamsMetricsImpl) stateStoreContext.metrics());
        }
        Path dir = directory(stateStoreContext, name);
        recorder = StrataMetricsRecorder.create(stateStoreContext.metrics(), taskId.toString(),
                StrataKeyValueBytesStoreSupplier.METRICS_SCOPE, name, this::lsmStores);
        try {
            openConfig = recorder.instrument(StrataStoreConfigs.forStore(name, config, stateStoreContext.appConfigs()));
            segments = new TimeSegments(name, segmentsDirectory(dir), openConfig, retentionPeriod, segmentInterval);
            segments.openExisting();
            try {
                openOthers(dir);
            } catch (RuntimeException e) {
                segments.close();
                throw e;
            }
            position = readPosition(dir.resolve(POSITION_FILE));
            persistedPosition = null;
        } catch (RuntimeException e) {
            recorder.close();
            throw e;
        }
        open = true;
        recorder.record(true);
        stateStoreContext.register(root, (RecordBatchingStateRestoreCallback) this::restoreBatch, this::persist);
    }

    /** Where the segments are, in the store's directory {@code storeDir}: there by default. */
    Path segmentsDirectory(Path storeDir) {
        return storeDir;
    }

    /** Every Strata store this instance holds now: its segments' and the others. Store's thread only. */
    private java.util.Collection<dev.strata.lsm.LsmStore> lsmStores() {
        List<dev.strata.lsm.LsmStore> all = new java.util.ArrayList<>();
        if (segments != null) {
            for (TimeSegments.Segment s : segments.all()) {
                all.add(s.store);
            }
        }
        addOthers(all);
        return all;
    }

    /** Adds the store's open Strata stores other than its segments (none by default). */
    void addOthers(List<dev.strata.lsm.LsmStore> stores) {
    }

    /** Opens the store's stores other than its segments (none by default); called by init. */
    void openOthers(Path storeDir) {
    }

    /** Makes the writes to the other stores durable (flush). */
    void syncOthers() {
    }

    /** Closes the other stores; the first failure is thrown after all are closed. */
    void closeOthers() {
    }

    private Position readPosition(Path file) {
        if (!Files.exists(file)) {
            return Position.emptyPosition();
        }
        try {
            return PositionSerde.deserialize(ByteBuffer.wrap(Files.readAllBytes(file)));
        } catch (IOException | RuntimeException e) {
            segments.close();
            closeOthers();
            throw new ProcessorStateException("store " + name + ": cannot read its position from " + file, e);
        }
    }

    /** The store's directory, {@code <task>/strata/<name>}. */
    Path storeDirectory() {
        return directory(context, name);
    }

    void checkOpen() {
        if (!open) {
            throw new InvalidStateStoreException("store " + name + " is currently closed");
        }
    }

    ProcessorStateException failure(String action, RuntimeException e) {
        return new ProcessorStateException("Strata store " + name + ": " + action + " failed", e);
    }

    /** Stream time less the retention period plus one: nothing older is returned. */
    long earliestLiveTime(long from) {
        long minLive = observedStreamTime - retentionPeriod + 1;
        if (observedStreamTime < 0 && minLive > observedStreamTime + 1) {
            minLive = Long.MIN_VALUE;  // underflow
        }
        return Math.max(from, minLive);
    }

    /** The segment a record of {@code time} goes to, or null (and a dropped record counted) if expired. */
    TimeSegments.Segment segmentForWrite(long time) {
        observedStreamTime = Math.max(observedStreamTime, time);
        TimeSegments.Segment segment = segments.getOrCreateIfLive(segments.segmentId(time), observedStreamTime);
        if (segment == null) {
            if (droppedRecords != null) {
                droppedRecords.record();
            }
            LOG.debug("store {}: skipping a record of time {}, expired at stream time {}", name, time,
                    observedStreamTime);
        }
        return segment;
    }

    void checkLimits(int storedKeyBytes, int userKeyBytes, byte[] value) {
        checkLimits(storedKeyBytes, userKeyBytes, value == null ? 0 : value.length);
    }

    /** Refuses, before anything is written, a record whose Strata key or value is over the Strata limits. */
    void checkLimits(int storedKeyBytes, int userKeyBytes, int storedValueBytes) {
        if (storedKeyBytes > config.maxKeyBytes()) {
            throw new ProcessorStateException("Strata store " + name + ": key of " + userKeyBytes
                    + " bytes is " + storedKeyBytes + " bytes in a segment (escaped, with its time suffix), over the"
                    + " maximum key size of " + config.maxKeyBytes() + " bytes at pageSize " + config.pageSize()
                    + "; the record was not written");
        }
        if (storedValueBytes > config.maxValueBytes()) {
            throw new ProcessorStateException("Strata store " + name + ": value of " + storedValueBytes
                    + " bytes (as stored) exceeds the maximum value size of " + config.maxValueBytes()
                    + " bytes (maxValueBytes); the record was not written");
        }
    }

    /** Writes {@code value} (null deletes) under {@code storedKey} in {@code segment}. */
    void write(TimeSegments.Segment segment, byte[] storedKey, byte[] value) {
        updatePosition();
        try {
            if (value == null) {
                segment.store.delete(storedKey);
            } else {
                segment.store.put(storedKey, value);
            }
            segment.dirty = true;
        } catch (StoreException | IllegalArgumentException e) {
            throw failure("put", e);
        }
    }

    void delete(TimeSegments.Segment segment, byte[] storedKey) {
        write(segment, storedKey, null);
    }

    byte[] get(TimeSegments.Segment segment, byte[] storedKey) {
        if (segment == null) {
            return null;
        }
        try {
            return segment.store.get(storedKey);
        } catch (StoreException e) {
            throw failure("get", e);
        }
    }

    /** Records the current record's input offset in the position. */
    void positionUpdate() {
        updatePosition();
    }

    /** Counts a record dropped for being expired. */
    void recordDropped() {
        if (droppedRecords != null) {
            droppedRecords.record();
        }
    }

    boolean consistencyEnabled() {
        return consistencyEnabled;
    }

    private void updatePosition() {
        if (context != null) {
            Optional<RecordMetadata> meta = context.recordMetadata();
            if (meta.isPresent() && meta.get().topic() != null) {
                position.withComponent(meta.get().topic(), meta.get().partition(), meta.get().offset());
            }
        }
    }

    <K> KeyValueIterator<K, byte[]> iterate(List<TimeSegments.Segment> searched, byte[] start, byte[] end,
                                            Function<byte[], K> decode, boolean forward) {
        return register(new SegmentIterator<>(name, searched, start, end, decode, forward, openIterators::remove));
    }

    <I extends SegmentIterator<?>> I register(I iterator) {
        openIterators.add(iterator);
        return iterator;
    }

    void unregister(SegmentIterator<?> iterator) {
        openIterators.remove(iterator);
    }

    /** A restored changelog record: the segment time it belongs to and its Strata key. */
    static final class Restored {
        final long time;
        final byte[] storedKey;

        Restored(long time, byte[] storedKey) {
            this.time = time;
            this.storedKey = storedKey;
        }
    }

    /** The segment time and Strata key of a changelog key in Kafka's binary format for this store. */
    abstract Restored fromChangelogKey(byte[] changelogKey);

    /**
     * Applies a batch of changelog records: one Strata write batch per segment they fall in
     * (records of expired segments are skipped, as Kafka's segmented stores do).
     */
    synchronized void restoreBatch(Collection<ConsumerRecord<byte[], byte[]>> records) {
        checkOpen();
        Map<TimeSegments.Segment, WriteBatch> batches = new LinkedHashMap<>();
        for (ConsumerRecord<byte[], byte[]> record : records) {
            ChangelogRecordDeserializationHelper.applyChecksAndUpdatePosition(record, consistencyEnabled, position);
            Restored r = fromChangelogKey(record.key());
            observedStreamTime = Math.max(observedStreamTime, r.time);
            TimeSegments.Segment segment = segments.getOrCreateIfLive(segments.segmentId(r.time), observedStreamTime);
            if (segment == null) {
                continue;
            }
            WriteBatch batch = batches.computeIfAbsent(segment, s -> new WriteBatch());
            if (record.value() == null) {
                batch.delete(r.storedKey);
            } else {
                batch.put(r.storedKey, record.value());
            }
        }
        for (Map.Entry<TimeSegments.Segment, WriteBatch> e : batches.entrySet()) {
            if (!e.getKey().open) {
                continue;  // dropped by a later record of the batch
            }
            try {
                e.getKey().store.write(e.getValue());
                e.getKey().dirty = true;
            } catch (StoreException | IllegalArgumentException ex) {
                throw failure("restore", ex);
            }
        }
    }

    /**
     * Makes every write durable and records the position (the offsets are not the store's:
     * Kafka Streams checkpoints them after this returns).
     */
    @Override
    public void commit(Map<TopicPartition, Long> changelogOffsets) {
        persist();
    }

    /** As {@link #commit(Map)}: for callers of the deprecated {@code StateStore.flush()}. */
    @Override
    @Deprecated
    public void flush() {
        persist();
    }

    private synchronized void persist() {
        if (!open) {
            return;
        }
        segments.sync();
        syncOthers();
        if (position.equals(persistedPosition)) {
            recorder.record(false);
            return;
        }
        Path file = storeDirectory().resolve(POSITION_FILE);
        Path tmp = storeDirectory().resolve(POSITION_FILE + ".tmp");
        try {
            Files.write(tmp, PositionSerde.serialize(position).array());
            Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            persistedPosition = position.copy();
        } catch (IOException e) {
            throw new ProcessorStateException("store " + name + ": cannot write its position to " + file, e);
        }
        recorder.record(false);
    }

    @Override
    public synchronized Position getPosition() {
        return position;
    }

    /** True when, for the task's partition, the position is at or past every bound offset. */
    boolean isPermitted(PositionBound bound) {
        if (taskId == null) {
            return false;
        }
        int partition = taskId.partition();
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

    Integer partition() {
        return taskId == null ? null : taskId.partition();
    }

    /**
     * Makes the open iterators answer no more records, closes the segments. The writes are
     * already in the segments' WALs; the position is written. Idempotent.
     */
    @Override
    public synchronized void close() {
        if (!open) {
            return;
        }
        RuntimeException failure = null;
        try {
            persist();
        } catch (RuntimeException e) {
            failure = e;
        }
        open = false;
        for (SegmentIterator<?> it : List.copyOf(openIterators)) {
            it.storeClosed();
        }
        openIterators.clear();
        try {
            segments.close();
        } catch (RuntimeException e) {
            if (failure == null) {
                failure = e;
            } else {
                failure.addSuppressed(e);
            }
        }
        try {
            closeOthers();
        } catch (RuntimeException e) {
            if (failure == null) {
                failure = e;
            } else {
                failure.addSuppressed(e);
            }
        }
        recorder.close();
        if (failure != null) {
            throw failure;
        }
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + "[" + name + (open ? ", open in " + storeDirectory() : ", closed") + "]";
    }
}
