package dev.strata.lsm.kafka;

import dev.strata.lsm.Cursor;
import dev.strata.lsm.IngestOptions;
import dev.strata.lsm.TableWriter;
import dev.strata.lsm.LsmStore;
import dev.strata.lsm.StoreConfig;
import dev.strata.lsm.WriteOptions;
import dev.strata.lsm.StoreException;
import dev.strata.lsm.WriteBatch;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.metrics.Sensor;
import org.apache.kafka.common.utils.Bytes;
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
import java.util.Collection;
import java.util.HashMap;
import java.util.TreeMap;
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
 * The store {@linkplain #managesOffsets() manages its changelog offsets}. Its data is spread
 * over several Strata stores (the segments, the versioned store's latest-value store), each
 * with its own WAL: call each of them a <em>participant</em>. Writes go to the participants
 * as they come, not forced. {@link #commit(Map)} writes the changelog offsets and the IQv2
 * position into <em>every</em> participant (one small write batch each, not forced), after
 * the data in each WAL; a segment created later starts with the last committed offsets and
 * position (a forced write: the segment holds nothing older). After a crash each
 * participant's WAL is a prefix of what was written to it, so a participant holding offset
 * {@code o} holds every write of the records up to {@code o}; the store reports, per
 * partition, the <b>smallest</b> offset its participants hold, and no offset (restore from the
 * changelog's start) when one of them holds none. Offsets therefore never run ahead of the
 * data, whichever WAL tails a crash loses. The position reported after opening is the
 * smallest per component likewise. A store with no participant (nothing written, or every
 * segment dropped) keeps its offsets in a small metadata store
 * ({@code <task>/strata-meta/<store>}, made when first needed), which also takes a commit that
 * removes offsets and holds the open/closed marker. See docs/kafka-streams.md, "Window and
 * session stores".
 *
 * <h2>Open/closed marker</h2>
 * Writes reach the segments before their commit, so after a crash a store may hold records
 * of an uncommitted (under exactly-once, aborted) transaction. As the key-value store does,
 * the metadata store records "open" at init and "closed" after a clean close; under
 * {@code exactly_once_v2} opening a store still marked open throws
 * {@link TaskCorruptedException}, and Kafka Streams wipes and restores the task.
 *
 * <h2>Write buffer</h2>
 * A store that {@linkplain #buffersWrites() buffers its writes} (the window and session
 * stores) holds them in memory ({@link SegmentWriteBuffer}) until the next commit, as the
 * key-value store does: reads (gets and iterators, both directions) merge the buffer with
 * the segments, the buffer's value winning, and a delete in the buffer hiding the stored
 * record. {@link #commit(Map)} writes each segment's buffered writes and then the offsets
 * and position as <em>one</em> write batch per segment (so offsets still follow their data
 * in every WAL, atomically), and the other participants' offsets as before. When the
 * buffer passes {@link #MAX_BUFFERED_BYTES} (approximate key and value bytes plus a per-entry
 * overhead) between two commits, or grows while the application's shared memtables and write
 * buffers are over its memtable budget ({@link WriteBufferLimit}; the buffer's bytes are
 * reserved in the store's {@link dev.strata.lsm.SharedResources}), it is written early, without offsets: the store is then
 * ahead of its offsets, which restore tolerates under at-least-once and the open marker
 * covers under exactly-once. A restore batch, {@link #flush()} and {@link #close()} write the
 * buffer first likewise. The writes of a segment that expires while buffered are dropped
 * with it.
 *
 * <h2>Coalesced commits</h2>
 * In a store that buffers its writes, a commit that comes less than
 * {@link StrataStoreConfigs#COMMIT_COALESCE_MS_CONFIG} (50 ms by default) after the last commit
 * the store wrote, while writes are buffered, is held in memory: its writes stay in the buffer,
 * its offsets are what {@link #committedOffset(TopicPartition)} answers (and what a segment
 * created meanwhile starts with: it holds no record they cover), and the next commit written,
 * a spill of the buffer, a restore batch, {@link #flush()} or the close writes them into every
 * participant as a commit does. Kafka Streams under {@code TopologyTestDriver} commits after
 * every record: without this every record would be a write batch per participant. A crash loses
 * a held commit's writes and offsets together, so the offsets reported after it are those of
 * the last written commit, never ahead of the data; Kafka Streams replays the changelog from
 * there, as after a crash of its RocksDB stores, which write without a WAL. A commit that
 * removes offsets, or one that is a restore's checkpoint, is always written.
 *
 * <h2>Restore without the WAL</h2>
 * The window and session stores (and the versioned store, through {@link #restoredWithoutWal})
 * write restored records as one write batch per segment holding the records <em>and</em> the
 * offsets and position, with
 * {@link WriteOptions#disableWal(boolean) disableWal}, as Kafka's RocksDB stores write without
 * a WAL (the changelog is the source of truth); the other participants take the offsets
 * without the WAL too. Such writes become durable when their memtable is flushed (a full
 * memtable, {@link #flush()}, a clean close), in the order they were written, so a participant
 * never holds offsets durably without the records before them: a crash loses the batch's
 * offsets with its records, the store reports older offsets (the smallest over the
 * participants, as always), and Kafka restores the rest again. The one thing that could put
 * offsets ahead of the data is a later write <em>with</em> the WAL to a store whose unlogged
 * writes are not flushed (the WAL would bring it back after a crash while the unlogged records
 * before it are lost), so: a store that took unlogged writes ({@link #unlogged}) is flushed
 * before its next write with the WAL. A {@linkplain #commit(Map) commit} is the checkpoint of
 * a restore: when the store holds buffered writes, or (a store that does not buffer, the
 * versioned store) wrote records with the WAL since the last commit (processing has started,
 * so the restore is over), or when {@link #UNLOGGED_RECORDS_PER_CHECKPOINT} records or more were restored since
 * the last flush, it flushes every store with unlogged writes and then writes the offsets with
 * the WAL as usual; otherwise (a standby between two restore batches, a restore's early
 * commits) it writes the offsets without the WAL into the stores whose unlogged writes are not
 * flushed, so that a standby does not flush its memtables at every commit. {@link #flush()}
 * flushes them too. Stores created later start with a forced write of the last committed
 * offsets as before: they hold nothing older.
 *
 * <h2>Restore in sorted chunks</h2>
 * The window and session stores do not write each restore batch as it comes: they gather the
 * batches' records by segment into a {@link RestoredChunk} of up to half a segment's memtable
 * ({@link RestoredChunk#maxBytes}, never more than {@link #MAX_BUFFERED_BYTES}, and sooner when
 * the shared memtable budget is reached: the chunk is reserved in it as the write buffer is),
 * and write it as above, one unlogged batch per segment, each segment's records in key order,
 * the last write of each key only, with the last restored offset of each partition and the
 * position, as the key-value store does. Strata's memtable inserts keys that come in order from
 * a finger, so a chunk costs far fewer cache misses than the same records in changelog order.
 * The chunk is written before anything else touches the store: every read and write of the
 * stores' own methods ({@link #checkOpenAndRestored()}), a commit, {@link #flush()} and the
 * close. {@link #committedOffset(TopicPartition)} answers the chunk's offsets at once; a crash
 * loses the chunk's records with its offsets (they were never written), as it loses an unlogged
 * batch before its flush, so the offsets are never ahead of the data. A segment created while a
 * chunk is gathered starts with the last <em>written</em> offsets, as before.
 */
abstract class AbstractSegmentedStore implements StateStore {
    static final Logger LOG = LoggerFactory.getLogger(AbstractSegmentedStore.class);

    /** Buffered writes past this many bytes are written to the segments before the next commit. */
    public static final long MAX_BUFFERED_BYTES = StrataKeyValueStore.MAX_UNCOMMITTED_BYTES;

    /** The position file of the layout before offsets were kept in the store: removed at init. */
    private static final String LEGACY_POSITION_FILE = "position";

    final String name;
    final StoreConfig config;
    final long retentionPeriod;
    final long segmentInterval;
    private final Set<SegmentIterator<?>> openIterators = ConcurrentHashMap.newKeySet();
    /** The writes since the last commit, when {@link #buffersWrites()}. */
    private final SegmentWriteBuffer buffer = new SegmentWriteBuffer();
    private long maxBufferedBytes = MAX_BUFFERED_BYTES;
    /**
     * When the buffer is written early: past {@link #maxBufferedBytes}, or over the shared
     * memtable budget, where its bytes are reserved (made by init, released by close).
     */
    private WriteBufferLimit bufferLimit;
    /** Options of a write made without the WAL (see the class comment, "Restore without the WAL"). */
    private static final WriteOptions UNLOGGED = WriteOptions.defaults().disableWal(true);
    /**
     * The Strata stores (segments) holding writes made without the WAL that no flush has made
     * durable yet: the next write with the WAL to one of them flushes it first.
     */
    private final Set<LsmStore> unlogged = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
    /** Records restored without the WAL since the unlogged stores were last flushed. */
    private long unloggedRecords;
    /**
     * Restored records not yet written, by segment, with the last restored offset of each
     * changelog partition among them (see "Restore in sorted chunks").
     */
    private final RestoredChunk<TimeSegments.Segment> restoring = new RestoredChunk<>();
    /**
     * Restored records past which a commit flushes the unlogged stores (Kafka's threshold for
     * writing a checkpoint during restore, {@code OFFSET_DELTA_THRESHOLD_FOR_CHECKPOINT}).
     */
    static final long UNLOGGED_RECORDS_PER_CHECKPOINT = 10_000;
    /** Ingest options of a restored table: moved in, its index checked (this store wrote it). */
    private static final IngestOptions INGEST_RESTORED = IngestOptions.defaults().deleteFiles(true)
            .verification(IngestOptions.Verification.INDEX);
    /**
     * The records of one segment in a restored chunk from which the chunk goes to that segment
     * as an ingested table rather than through its memtable (see "Restore through table
     * ingest"); {@link Integer#MAX_VALUE}: never. System property
     * {@code strata.kafka.restoreIngestMinRecords} (benchmarks).
     */
    static final int RESTORE_INGEST_MIN_RECORDS = Integer.getInteger("strata.kafka.restoreIngestMinRecords", 50_000);
    /**
     * The bytes of a restored chunk when tables are ingested: {@link #MAX_BUFFERED_BYTES} (32 MiB;
     * by measurement, 4 MiB chunks ran at half the records/s of 32 MiB ones); system property
     * {@code strata.kafka.restoreIngestChunkBytes} (benchmarks).
     */
    static final long RESTORE_INGEST_CHUNK_BYTES = Long.getLong("strata.kafka.restoreIngestChunkBytes", MAX_BUFFERED_BYTES);
    private int restoreIngestMinRecords = RESTORE_INGEST_MIN_RECORDS;
    private final long restoreIngestChunkBytes = RESTORE_INGEST_CHUNK_BYTES;
    /** Table files written for ingest since init (their names). */
    private long ingestedTables;

    TimeSegments segments;
    long observedStreamTime = -1;
    Position position = Position.emptyPosition();
    /** The position as every participant holds it after the last commit or restore batch (a copy). */
    private Position committedPosition = Position.emptyPosition();
    /**
     * The committed offsets every participant holds, by offset key ({@link StoreLayout#offsetKey}),
     * as of the last commit or restore batch (after init: the smallest the participants held).
     */
    private final TreeMap<Bytes, Long> committed = new TreeMap<>();
    /** Each partition's offset key, encoded once. */
    private final Map<TopicPartition, byte[]> offsetKeys = new HashMap<>();
    /** The commits held in memory since the last written one (see "Coalesced commits"). */
    private final CommitCoalescing coalescing = new CommitCoalescing();
    /** The metadata store: offsets, position and open/closed marker, present with no segment. */
    private LsmStore meta;
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

    /**
     * Whether writes are held in memory until the next commit (see the class comment, "Write
     * buffer"); false by default: a store whose reads go to the segments' Strata stores
     * directly must not buffer.
     */
    boolean buffersWrites() {
        return false;
    }

    /**
     * Whether records were written with the WAL, unbuffered, since the last commit (a store
     * that does not buffer writes: processing has started, so the next commit is a restore's
     * checkpoint as a commit carrying buffered writes is).
     */
    private boolean loggedRecordsSinceCommit;

    /**
     * Before a write of records with the WAL to {@code store}, unbuffered: flushes it if it holds
     * unlogged writes, and makes the next commit a checkpoint.
     */
    void beforeLoggedRecords(LsmStore store) {
        loggedRecordsSinceCommit = true;
        beforeLoggedWrite(store);
    }

    /** Before a write with the WAL to {@code store}: flushes it if it holds unlogged writes. */
    private void beforeLoggedWrite(LsmStore store) {
        if (unlogged.remove(store)) {
            store.flush();
        }
    }

    /** Flushes every current store holding unlogged writes: what they hold is then durable. */
    private void flushUnlogged(String action) {
        if (unlogged.isEmpty()) {
            return;
        }
        try {
            java.util.Collection<LsmStore> current = lsmStores();
            for (LsmStore s : List.copyOf(unlogged)) {
                if (current.contains(s)) {
                    s.flush();
                }
                unlogged.remove(s);
            }
        } catch (StoreException e) {
            throw failure(action, e);
        }
        unloggedRecords = 0;
    }

    /**
     * The stores holding unlogged writes not yet flushed, or restored records not yet written
     * (tests).
     */
    synchronized int unloggedStores() {
        Set<LsmStore> stores = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
        stores.addAll(unlogged);
        for (TimeSegments.Segment s : restoring.targets()) {
            if (s.open) {
                stores.add(s.store);
            }
        }
        return stores.size();
    }

    /** Whether restored records are held, not yet written (tests). */
    synchronized boolean holdsRestoredChunk() {
        return !restoring.isEmpty();
    }

    /** Sets the byte limit past which buffered writes are written before the next commit (tests). */
    synchronized void maxBufferedBytes(long bytes) {
        if (bytes <= 0) {
            throw new IllegalArgumentException("maxBufferedBytes must be positive, was " + bytes);
        }
        maxBufferedBytes = bytes;
    }

    /** The approximate bytes of the buffered writes (tests and metrics). */
    synchronized long bufferedBytes() {
        return buffer.approximateBytes();
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
        buffer.clear();
        unlogged.clear();
        unloggedRecords = 0;
        restoring.clear();
        loggedRecordsSinceCommit = false;
        committed.clear();
        coalescing.reset(0);
        position = Position.emptyPosition();
        committedPosition = Position.emptyPosition();
        boolean eos = StreamsConfig.EXACTLY_ONCE_V2.equals(
                stateStoreContext.appConfigs().get(StreamsConfig.PROCESSING_GUARANTEE_CONFIG));
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
            coalescing.reset(StrataStoreConfigs.commitCoalesceNanos(stateStoreContext.appConfigs()));
            openConfig = recorder.instrument(StrataStoreConfigs.forStore(name, config, stateStoreContext.appConfigs()));
            segments = new TimeSegments(name, segmentsDirectory(dir), openConfig, retentionPeriod, segmentInterval,
                    this::segmentCreated);
            segments.openExisting();
            try {
                openOthers(dir);
                meta = null;
                if (eos || Files.isDirectory(metaDirectory())) {
                    openMeta();
                    byte[] status = meta.get(StoreLayout.STATUS_KEY);
                    if (eos && status != null && status[0] == StoreLayout.OPEN) {
                        throw new TaskCorruptedException(Set.of(taskId), new ProcessorStateException("store " + name
                                + " in " + dir + " was not closed cleanly; under exactly-once it may hold uncommitted"
                                + " data"));
                    }
                    if (eos) {
                        meta.put(StoreLayout.STATUS_KEY, new byte[] {StoreLayout.OPEN});
                    }
                }
                readCommitted();
                Files.deleteIfExists(dir.resolve(LEGACY_POSITION_FILE));
                deleteRestoreLeftovers();
            } catch (RuntimeException | IOException e) {
                closeQuietly();
                if (e instanceof StoreException) {
                    throw new ProcessorStateException("cannot open Strata store " + name + " in " + dir, e);
                }
                if (e instanceof IOException) {
                    throw new ProcessorStateException("store " + name + ": cannot remove " + LEGACY_POSITION_FILE, e);
                }
                throw (RuntimeException) e;
            }
        } catch (RuntimeException e) {
            recorder.close();
            throw e;
        }
        bufferLimit = WriteBufferLimit.of(openConfig);
        if (buffersWrites()) {
            recorder.writeBufferBytes(bufferLimit::bytes);
        }
        open = true;
        recorder.record(true);
        stateStoreContext.register(root, (RecordBatchingStateRestoreCallback) this::restoreBatch, () -> { });
    }

    /**
     * The metadata store's directory, {@code <task>/strata-meta/<name>}: outside the store's
     * directory, which holds only segments, and apart from any other store's.
     */
    Path metaDirectory() {
        return context.stateDir().toPath().resolve("strata-meta").resolve(name);
    }

    /**
     * Opens the metadata store. It is opened at init when it exists or under exactly-once (for
     * the open marker), else at the first commit or restore batch: a fresh store that never
     * commits opens no Strata store before its first write, as Kafka's segmented stores.
     */
    private void openMeta() {
        Path metaDir = metaDirectory();
        try {
            Files.createDirectories(metaDir);
            meta = LsmStore.open(metaDir, openConfig);
        } catch (IOException | StoreException e) {
            throw new ProcessorStateException("cannot open the metadata store " + metaDir + " of Strata store " + name,
                    e);
        }
    }

    /** Closes what init opened, after a failure of init. */
    private void closeQuietly() {
        try {
            segments.close();
        } catch (RuntimeException ignored) {
            // the original failure is the one to report
        }
        try {
            closeOthers();
        } catch (RuntimeException ignored) {
            // as above
        }
        if (meta != null) {
            try {
                meta.close();
            } catch (RuntimeException ignored) {
                // as above
            }
            meta = null;
        }
    }

    /**
     * The Strata stores whose offsets count: the stores holding data (the segments and the
     * others), or, when there are none, the metadata store (if it exists). Store's thread only.
     */
    private List<LsmStore> participants() {
        List<LsmStore> all = new java.util.ArrayList<>(lsmStores());
        if (all.isEmpty() && meta != null) {
            all.add(meta);
        }
        return all;
    }

    /**
     * The Strata stores a commit writes its offsets into: those holding data, and the metadata
     * store too when none does or when the commit removes offsets (so that no removed offset
     * stays in it). Store's thread only.
     */
    private List<LsmStore> offsetWriters(boolean removes) {
        List<LsmStore> all = new java.util.ArrayList<>(lsmStores());
        if (all.isEmpty() || removes) {
            if (meta == null) {
                openMeta();
            }
            all.add(meta);
        }
        return all;
    }

    /**
     * Reads the committed offsets and position as the participants hold them: per offset key
     * the smallest offset, kept only when every participant has one; per position component
     * likewise the smallest, kept only when every participant has it.
     */
    private void readCommitted() {
        Map<Bytes, Long> smallest = null;
        Position pos = null;
        for (LsmStore s : participants()) {
            Map<Bytes, Long> offsets = new HashMap<>();
            try (Cursor c = s.scan(StoreLayout.OFFSET_PREFIX, StoreLayout.OFFSET_END)) {
                while (c.next()) {
                    offsets.put(Bytes.wrap(c.key()), decodeOffset(c.key(), c.value(), s));
                }
            }
            if (smallest == null) {
                smallest = offsets;
            } else {
                Map<Bytes, Long> both = new HashMap<>();
                for (Map.Entry<Bytes, Long> e : smallest.entrySet()) {
                    Long other = offsets.get(e.getKey());
                    if (other != null) {
                        both.put(e.getKey(), Math.min(e.getValue(), other));
                    }
                }
                smallest = both;
            }
            byte[] stored = s.get(StoreLayout.POSITION_KEY);
            Position p = stored == null ? Position.emptyPosition() : PositionSerde.deserialize(ByteBuffer.wrap(stored));
            pos = pos == null ? p : smallestOf(pos, p);
        }
        if (smallest != null) {
            committed.putAll(smallest);
            position = pos;
            committedPosition = pos.copy();
        }
    }

    private long decodeOffset(byte[] key, byte[] value, LsmStore in) {
        if (value.length != Long.BYTES) {
            throw new ProcessorStateException("store " + name + ": committed offset of "
                    + new String(key, StoreLayout.OFFSET_PREFIX.length, key.length - StoreLayout.OFFSET_PREFIX.length,
                    java.nio.charset.StandardCharsets.UTF_8) + " in " + in.directory() + " has " + value.length
                    + " bytes, expected " + Long.BYTES);
        }
        return ByteBuffer.wrap(value).getLong();
    }

    /** Per component (topic, partition) present in both, the smaller offset. */
    static Position smallestOf(Position a, Position b) {
        Position out = Position.emptyPosition();
        for (String topic : a.getTopics()) {
            Map<Integer, Long> other = b.getPartitionPositions(topic);
            for (Map.Entry<Integer, Long> e : a.getPartitionPositions(topic).entrySet()) {
                Long o = other.get(e.getKey());
                if (o != null) {
                    out.withComponent(topic, e.getKey(), Math.min(e.getValue(), o));
                }
            }
        }
        return out;
    }

    /**
     * A new segment starts with the last committed offsets and position: it holds no record
     * they cover. Forced, once per segment, so that the segment is never found without them.
     */
    private void segmentCreated(TimeSegments.Segment segment) {
        if (committed.isEmpty()) {
            return;  // no offsets to report yet: the segment's absence of offsets changes nothing
        }
        WriteBatch batch = new WriteBatch();
        for (Map.Entry<Bytes, Long> e : committed.entrySet()) {
            batch.put(e.getKey().get(), StoreLayout.encodeOffset(e.getValue()));
        }
        batch.put(StoreLayout.POSITION_KEY, PositionSerde.serialize(committedPosition).array());
        try {
            segment.store.write(batch, WriteOptions.defaults().sync(true));
        } catch (StoreException | IllegalArgumentException e) {
            throw failure("creating a segment", e);
        }
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

    /** The store's directory, {@code <task>/strata/<name>}. */
    Path storeDirectory() {
        return directory(context, name);
    }

    private void checkOpen() {
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
        buffer.purgeDropped();
        if (buffersWrites()) {
            // Expired segments' writes went with them: release their bytes (the next write decides on the rest).
            bufferLimit.resized(buffer.approximateBytes(), Long.MAX_VALUE);
        }
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

    /**
     * The time index key of the record {@code storedKey}, or null when the store keeps no time
     * index (see {@link SegmentLayout}): a time-ordered store writes, deletes and restores each
     * record under both keys, with the same value, in the same write batch.
     */
    byte[] timeIndexKey(byte[] storedKey) {
        return null;
    }

    /** Writes {@code value} (null deletes) under {@code storedKey} in {@code segment} (and its time index key). */
    void write(TimeSegments.Segment segment, byte[] storedKey, byte[] value) {
        byte[] indexKey = timeIndexKey(storedKey);
        updatePosition();
        if (buffersWrites()) {
            buffer.put(segment, storedKey, value);
            if (indexKey != null) {
                buffer.put(segment, indexKey, value);
            }
            // Past the store's cap, or over the shared budget: the writing thread writes its own buffer.
            if (bufferLimit.resized(buffer.approximateBytes(), maxBufferedBytes)) {
                writeBufferWithoutOffsets("writing buffered records");
                // Under exactly-once no commit may come before a rebalance: the metrics' snapshot follows the early writes.
                recorder.record(false);
            }
            return;
        }
        try {
            beforeLoggedRecords(segment.store);
            if (indexKey != null) {
                WriteBatch batch = new WriteBatch();
                putOrDelete(batch, storedKey, value);
                putOrDelete(batch, indexKey, value);
                segment.store.write(batch);
            } else if (value == null) {
                segment.store.delete(storedKey);
            } else {
                segment.store.put(storedKey, value);
            }
            segment.dirty = true;
        } catch (StoreException | IllegalArgumentException e) {
            throw failure("put", e);
        }
    }

    private static void putOrDelete(WriteBatch batch, byte[] key, byte[] value) {
        if (value == null) {
            batch.delete(key);
        } else {
            batch.put(key, value);
        }
    }

    void delete(TimeSegments.Segment segment, byte[] storedKey) {
        write(segment, storedKey, null);
    }

    byte[] get(TimeSegments.Segment segment, byte[] storedKey) {
        if (segment == null) {
            return null;
        }
        byte[] buffered = buffer.get(segment, storedKey);
        if (buffered != null) {
            return buffered == UncommittedWrites.TOMBSTONE ? null : buffered;
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
        return register(new SegmentIterator<>(name, searched, start, end, bufferSource, decode,
                forward, openIterators::remove));
    }

    /** Copies a segment's buffered writes for an iterator, under the store's monitor. */
    final SegmentIterator.BufferSource bufferSource = this::copyBuffered;

    private synchronized List<Map.Entry<Bytes, byte[]>> copyBuffered(TimeSegments.Segment segment, byte[] start,
                                                                      byte[] end) {
        return buffer.copyRange(segment, start, end);
    }

    /**
     * Writes the buffered writes, one batch per segment, and empties the buffer: with the held
     * commit's offsets into every participant when a commit is held (the buffer holds every write
     * it covers, see "Coalesced commits"), else without offsets.
     */
    private void writeBufferWithoutOffsets(String action) {
        if (coalescing.holds()) {
            writeOffsets(new HashMap<>(coalescing.held()), action, Map.of(), false);
            return;
        }
        if (buffer.isEmpty()) {
            return;
        }
        buffer.purgeDropped();
        for (TimeSegments.Segment s : buffer.segments()) {
            WriteBatch batch = new WriteBatch();
            buffer.addTo(s, batch);
            try {
                beforeLoggedWrite(s.store);
                s.store.write(batch);
            } catch (StoreException | IllegalArgumentException e) {
                throw failure(action, e);
            }
            s.dirty = true;
        }
        buffer.clear();
        bufferLimit.emptied();
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
     * Applies a batch of changelog records through {@link #fromChangelogKey}: takes them into
     * the restored chunk (see "Restore in sorted chunks"). A store that restores otherwise (the
     * versioned store) overrides it.
     */
    synchronized void restoreBatch(Collection<ConsumerRecord<byte[], byte[]>> records) {
        checkOpen();
        writeBufferWithoutOffsets("writing buffered records");
        gatherRestored(records);
    }

    /**
     * Takes a batch of changelog records into the restored chunk (see "Restore in sorted
     * chunks"): each record under its segment (records of expired segments are skipped, as
     * Kafka's segmented stores do), the chunk written once it holds
     * {@link RestoredChunk#maxBytes} of a segment's memtable or the shared memtable budget is
     * reached, and before anything reads, writes, commits, flushes or closes.
     */
    private void gatherRestored(Collection<ConsumerRecord<byte[], byte[]>> records) {
        ConsumerRecord<byte[], byte[]> last = null;
        for (ConsumerRecord<byte[], byte[]> record : records) {
            last = record;
            ChangelogRecordDeserializationHelper.applyChecksAndUpdatePosition(record, consistencyEnabled, position);
            Restored r = fromChangelogKey(record.key());
            observedStreamTime = Math.max(observedStreamTime, r.time);
            TimeSegments.Segment segment = segments.getOrCreateIfLive(segments.segmentId(r.time), observedStreamTime);
            if (segment == null) {
                continue;
            }
            restoring.add(segment, r.storedKey, record.value(), records.size());
            byte[] indexKey = timeIndexKey(r.storedKey);
            if (indexKey != null) {
                restoring.add(segment, indexKey, record.value(), records.size());
            }
        }
        if (last == null) {
            return;
        }
        restoring.taken(records.size(), last);
        if (bufferLimit.resized(restoring.approximateBytes(), restoreChunkBytes())) {
            writeRestoredChunk();
        }
    }

    /**
     * The bytes of a restored chunk: half a segment's memtable ({@link RestoredChunk#maxBytes}),
     * or, when its segments' records are ingested as tables, {@link #restoreIngestChunkBytes};
     * never more than the cap on buffered writes.
     */
    private long restoreChunkBytes() {
        long memtable = RestoredChunk.maxBytes(openConfig.memtableBytes(), maxBufferedBytes);
        return restoreIngestMinRecords == Integer.MAX_VALUE ? memtable
                : Math.max(memtable, Math.min(restoreIngestChunkBytes, maxBufferedBytes));
    }

    /**
     * Writes the restored chunk, if one is held: into each live segment it holds records of,
     * one write batch without the WAL of those records in key order with the chunk's last
     * offsets and the position; into every other participant the offsets and position,
     * without the WAL too (see "Restore without the WAL").
     */
    private void writeRestoredChunk() {
        if (restoring.isEmpty()) {
            return;
        }
        Map<LsmStore, WriteBatch> data = new java.util.IdentityHashMap<>();
        Set<LsmStore> ingested = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
        Map<TopicPartition, Long> offsets = new HashMap<>(restoring.lastOffsets());
        try {
            for (TimeSegments.Segment segment : restoring.targets()) {
                if (!segment.open) {
                    continue;  // dropped by a later record of the chunk
                }
                if (restoring.size(segment) >= restoreIngestMinRecords) {
                    ingestRestored(segment, offsets);
                    ingested.add(segment.store);
                } else {
                    // Room for the offsets and the position writeOffsets adds to it.
                    data.put(segment.store, restoring.batch(segment, offsets.size() + 1));
                }
                segment.dirty = true;
            }
        } finally {
            long records = restoring.records();
            restoring.clear();
            unloggedRecords += records;
        }
        writeOffsets(offsets, "restore", data, true, ingested);
    }

    /**
     * Writes {@code segment}'s records of the restored chunk, with the chunk's {@code offsets}
     * and the position, as one table file and ingests it into the segment's store (see
     * "Restore through table ingest"): durable at once, records and offsets together.
     */
    private void ingestRestored(TimeSegments.Segment segment, Map<TopicPartition, Long> offsets) {
        for (Map.Entry<TopicPartition, Long> e : offsets.entrySet()) {
            restoring.add(segment, offsetKey(e.getKey()), StoreLayout.encodeOffset(e.getValue()), 0);
        }
        restoring.add(segment, StoreLayout.POSITION_KEY, PositionSerde.serialize(position).array(), 0);
        Path dir = restoreIngestDirectory();
        Path file = dir.resolve("segment-" + segment.id + "-" + (++ingestedTables) + ".sst");
        try {
            Files.createDirectories(dir);
            try (TableWriter table = TableWriter.create(file, openConfig)) {
                restoring.writeTo(segment, table);
                table.finish();
            }
            segment.store.ingest(List.of(file), INGEST_RESTORED);
        } catch (IOException | StoreException | IllegalArgumentException | IllegalStateException e) {
            try {
                Files.deleteIfExists(file);
            } catch (IOException ignored) {
                // already failing; init deletes what is left
            }
            throw new ProcessorStateException("Strata store " + name + ": restore (ingest of " + file + ") failed", e);
        }
        // The ingest flushed the segment's memtables first: its earlier unlogged writes are durable.
        unlogged.remove(segment.store);
    }

    /**
     * The directory of the table files a restore writes before ingesting them,
     * {@code <task>/strata-restore/<name>}: outside the store's directory, which holds only
     * segments, on the same file system (the ingest moves a file in by a hard link).
     */
    Path restoreIngestDirectory() {
        return context.stateDir().toPath().resolve("strata-restore").resolve(name);
    }

    /** Deletes table files a restore left behind (a crash between writing and ingesting one). */
    private void deleteRestoreLeftovers() throws IOException {
        Path dir = restoreIngestDirectory();
        if (Files.isDirectory(dir)) {
            try (java.util.stream.Stream<Path> files = Files.list(dir)) {
                for (Path f : (Iterable<Path>) files::iterator) {
                    Files.deleteIfExists(f);
                }
            }
        }
    }

    /** Table files ingested by restores since init (tests). */
    synchronized long ingestedTables() {
        return ingestedTables;
    }

    /** Sets the records of one segment from which a restored chunk is ingested (tests, benchmarks). */
    synchronized void restoreIngestMinRecords(int records) {
        restoreIngestMinRecords = records;
    }

    /**
     * Checks that the store is open and writes the restored chunk, if one is held: every read
     * and write of the store's own methods starts here, so that none misses restored records.
     */
    void checkOpenAndRestored() {
        checkOpen();
        writeRestoredChunk();
    }

    /**
     * Writes {@code data}, a restore batch's records by Strata store (each store's in one write
     * batch), with the offset of the last of {@code records} as its partition's committed offset
     * and the position in the same batch, without the WAL (see "Restore without the WAL"); every
     * other participant gets the offsets in an unlogged batch of their own. For a store that
     * restores through its own reads (the versioned store) rather than {@link #fromChangelogKey}.
     * The stores of segments dropped since must not be in {@code data}.
     */
    void restoredWithoutWal(Collection<ConsumerRecord<byte[], byte[]>> records, Map<LsmStore, WriteBatch> data) {
        unloggedRecords += records.size();
        ConsumerRecord<byte[], byte[]> last = last(records);
        if (last != null) {
            writeOffsets(Map.of(new TopicPartition(last.topic(), last.partition()), last.offset()), "restore",
                    data, true);
        }
    }

    private static ConsumerRecord<byte[], byte[]> last(Collection<ConsumerRecord<byte[], byte[]>> records) {
        ConsumerRecord<byte[], byte[]> last = null;
        for (ConsumerRecord<byte[], byte[]> r : records) {
            last = r;
        }
        return last;
    }

    /**
     * Writes the changelog offsets and the position into every participant, one small batch
     * each, not forced (see the class comment). An empty map removes every committed offset;
     * a null offset removes that partition's.
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
            for (Map.Entry<TopicPartition, Long> e : changelogOffsets.entrySet()) {
                committed.put(Bytes.wrap(offsetKey(e.getKey())), e.getValue());
            }
            return;
        }
        changelogOffsets = coalescing.withHeld(changelogOffsets);
        if (!buffer.isEmpty() || loggedRecordsSinceCommit || unloggedRecords >= UNLOGGED_RECORDS_PER_CHECKPOINT) {
            flushUnlogged("commit");
        }
        loggedRecordsSinceCommit = false;
        writeOffsets(changelogOffsets, "commit", Map.of(), false);
        recorder.record(false);
    }

    /**
     * Whether a commit of {@code changelogOffsets} at {@code now} is held in memory rather than
     * written (see "Coalesced commits"): the store buffers its writes and holds some (or a held
     * commit), the last written commit is less than the coalescing interval old, the commit
     * removes no offset, and no restore's unlogged writes wait for their checkpoint.
     */
    private boolean mayHold(Map<TopicPartition, Long> changelogOffsets, long now) {
        return coalescing.timely(changelogOffsets, now) && buffersWrites() && unlogged.isEmpty()
                && !loggedRecordsSinceCommit && (!buffer.isEmpty() || coalescing.holds());
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
     * Writes the offsets and position into every participant, after the buffered writes and
     * {@code data} (restored records by store, written first in that store's batch); {@code
     * restoring}: without the WAL (see "Restore without the WAL"), except into the metadata
     * store, which holds no records.
     */
    private void writeOffsets(Map<TopicPartition, Long> changelogOffsets, String action,
                              Map<LsmStore, WriteBatch> data, boolean restoring) {
        writeOffsets(changelogOffsets, action, data, restoring, Set.of());
    }

    /**
     * As {@link #writeOffsets(Map, String, Map, boolean)}, except into the stores of
     * {@code ingested}, which took the offsets and position in an ingested table (unless they
     * hold buffered writes, which take them as usual).
     */
    private void writeOffsets(Map<TopicPartition, Long> changelogOffsets, String action,
                              Map<LsmStore, WriteBatch> data, boolean restoring, Set<LsmStore> ingested) {
        byte[] serializedPosition = PositionSerde.serialize(position).array();
        WriteBatch batch = new WriteBatch();
        addOffsets(changelogOffsets, batch);
        batch.put(StoreLayout.POSITION_KEY, serializedPosition);
        // Each segment's buffered writes go first in the batch that carries its offsets.
        buffer.purgeDropped();
        Map<LsmStore, TimeSegments.Segment> bufferedIn = new java.util.IdentityHashMap<>();
        for (TimeSegments.Segment s : buffer.segments()) {
            bufferedIn.put(s.store, s);
        }
        try {
            boolean removes = changelogOffsets.isEmpty();
            for (Long offset : changelogOffsets.values()) {
                removes |= offset == null;
            }
            List<LsmStore> writers = offsetWriters(removes);
            unlogged.removeIf(u -> !writers.contains(u));  // dropped segments
            for (LsmStore s : writers) {
                TimeSegments.Segment withData = bufferedIn.get(s);
                if (withData == null && ingested.contains(s)) {
                    continue;
                }
                WriteBatch restoredData = data.get(s);
                // Unlogged: a restore write, or offsets alone into a store whose unlogged writes are not flushed.
                boolean unloggedWrite = restoring && s != meta || withData == null && unlogged.contains(s);
                if (!unloggedWrite) {
                    beforeLoggedWrite(s);
                }
                if (changelogOffsets.isEmpty() || withData != null || restoredData != null) {
                    WriteBatch own = restoredData != null ? restoredData : new WriteBatch();
                    if (withData != null) {
                        buffer.addTo(withData, own);
                    }
                    if (changelogOffsets.isEmpty()) {
                        try (Cursor c = s.scan(StoreLayout.OFFSET_PREFIX, StoreLayout.OFFSET_END)) {
                            while (c.next()) {
                                own.delete(c.key());
                            }
                        }
                    } else {
                        addOffsets(changelogOffsets, own);
                    }
                    own.put(StoreLayout.POSITION_KEY, serializedPosition);
                    s.write(own, unloggedWrite ? UNLOGGED : WriteOptions.defaults());
                    if (withData != null) {
                        withData.dirty = true;
                    }
                } else {
                    s.write(batch, unloggedWrite ? UNLOGGED : WriteOptions.defaults());
                }
                if (unloggedWrite) {
                    unlogged.add(s);
                }
            }
        } catch (StoreException | IllegalArgumentException e) {
            throw failure(action, e);
        }
        buffer.clear();
        bufferLimit.emptied();
        if (changelogOffsets.isEmpty()) {
            committed.clear();
        }
        for (Map.Entry<TopicPartition, Long> e : changelogOffsets.entrySet()) {
            Bytes key = Bytes.wrap(offsetKey(e.getKey()));
            if (e.getValue() == null) {
                committed.remove(key);
            } else {
                committed.put(key, e.getValue());
            }
        }
        committedPosition = position.copy();
        coalescing.written(System.nanoTime());
    }

    private void addOffsets(Map<TopicPartition, Long> changelogOffsets, WriteBatch batch) {
        StoreLayout.addOffsets(batch, changelogOffsets, this::offsetKey);
    }

    private byte[] offsetKey(TopicPartition partition) {
        return offsetKeys.computeIfAbsent(partition, StoreLayout::offsetKey);
    }

    /**
     * The committed offset of {@code partition}: as of the last commit or restore batch, or,
     * after opening, the smallest offset every participant holds (null when one holds none).
     */
    @Override
    public synchronized Long committedOffset(TopicPartition partition) {
        checkOpen();
        Long restored = restoring.lastOffsets().get(partition);
        return restored != null ? restored : committed.get(Bytes.wrap(offsetKey(partition)));
    }

    /**
     * Writes the buffered writes (without offsets), then forces every write so far to the
     * device (a WAL-synced write in each participant written since the last force). Kafka
     * Streams does not call it (it calls {@link #commit(Map)}); kept for callers of the
     * deprecated {@code StateStore.flush()}.
     */
    @Override
    @Deprecated
    public synchronized void flush() {
        if (!open) {
            return;
        }
        writeRestoredChunk();
        writeBufferWithoutOffsets("flush");
        flushUnlogged("flush");
        segments.sync();
        syncOthers();
        if (meta == null) {
            recorder.record(false);
            return;
        }
        try {
            meta.put(SegmentLayout.SYNC_KEY, new byte[0], WriteOptions.defaults().sync(true));
        } catch (StoreException e) {
            throw failure("flush", e);
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
     * Makes the open iterators answer no more records, closes the segments and the other
     * stores, then, if they closed cleanly, records "closed" in the metadata store and closes
     * it. The offsets stay those of the last commit. Idempotent.
     */
    @Override
    public synchronized void close() {
        if (!open) {
            return;
        }
        RuntimeException failure = null;
        open = false;
        for (SegmentIterator<?> it : List.copyOf(openIterators)) {
            it.storeClosed();
        }
        openIterators.clear();
        try {
            // As the key-value store: what is restored or buffered is written (without offsets) before closing.
            writeRestoredChunk();
            writeBufferWithoutOffsets("close");
        } catch (RuntimeException e) {
            failure = e;
        } finally {
            restoring.clear();
            buffer.clear();
            bufferLimit.close();
        }
        unlogged.clear();  // a clean close flushes memtables holding unlogged writes
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
        try {
            if (failure == null && meta != null) {
                meta.put(StoreLayout.STATUS_KEY, new byte[] {StoreLayout.CLOSED});
            }
        } catch (StoreException e) {
            failure = failure("close", e);
        } finally {
            try {
                if (meta != null) {
                    meta.close();
                }
            } catch (RuntimeException e) {
                if (failure == null) {
                    failure = failure("close", e);
                } else {
                    failure.addSuppressed(e);
                }
            }
            meta = null;
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
