package dev.strata.lsm.kafka;

import dev.strata.lsm.WriteBatch;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;

import java.util.Collections;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.Set;

/**
 * Restored changelog records gathered before they are written, what the key-value store and
 * the window and session stores share (docs/kafka-streams.md, "Restore", "In sorted chunks"):
 * the Strata writes by target (the one Strata store of a key-value store; each segment of a
 * window or session store), each target's kept as {@link SortedWrites} so that it goes to its
 * store as one write batch in key order, the last write of each key only; the last restored
 * offset of each changelog partition among them; and the bytes they hold. The owning store
 * writes a chunk, its records with these offsets and its position, as one unlogged batch per
 * target once it holds {@link #maxBytes} (or the shared memtable budget is reached), and
 * before anything reads, writes, commits or closes.
 *
 * <p>Targets are compared by identity. Not thread safe: the owning store locks.
 *
 * @param <T> what a write goes to
 */
final class RestoredChunk<T> {
    private final Map<T, SortedWrites> writes = new IdentityHashMap<>();
    private final Map<TopicPartition, Long> lastOffsets = new HashMap<>();
    private long approximateBytes;
    private long records;

    /**
     * The bytes of restored records gathered into one chunk: half the memtable, so that a chunk
     * goes into a memtable holding at most about as many entries as the chunk (its inserts then
     * walk the skip list nearly in order) and overfills it by at most half, and no more than the
     * store's cap on buffered writes.
     *
     * @param memtableBytes the memtable size of the store (a segment's, for a segmented store)
     * @param maxBufferedBytes the store's cap on writes held in memory
     */
    static long maxBytes(long memtableBytes, long maxBufferedBytes) {
        return Math.max(1, Math.min(memtableBytes / 2, maxBufferedBytes));
    }

    /**
     * Adds a write of {@code key} (a Strata key) to {@code target}; a null {@code value} deletes.
     *
     * @param expected the writes {@code target} is expected to take (a first write sizes its arrays)
     */
    void add(T target, byte[] key, byte[] value, int expected) {
        SortedWrites w = writes.get(target);
        if (w == null) {
            w = new SortedWrites(expected);
            writes.put(target, w);
        }
        long before = w.approximateBytes();
        w.add(key, value);
        approximateBytes += w.approximateBytes() - before;
    }

    /**
     * Records that {@code count} changelog records were taken, {@code last} the last of them:
     * its offset becomes its partition's.
     */
    void taken(int count, ConsumerRecord<?, ?> last) {
        records += count;
        lastOffsets.put(new TopicPartition(last.topic(), last.partition()), last.offset());
    }

    /** Whether no record is held. */
    boolean isEmpty() {
        return records == 0 && writes.isEmpty();
    }

    /** Changelog records taken since the chunk was last cleared. */
    long records() {
        return records;
    }

    /** Key and value bytes held, plus {@link SortedWrites#ENTRY_OVERHEAD} a write. */
    long approximateBytes() {
        return approximateBytes;
    }

    /** The last restored offset of each changelog partition among the records held (a view). */
    Map<TopicPartition, Long> lastOffsets() {
        return Collections.unmodifiableMap(lastOffsets);
    }

    /** The targets holding writes (a view, by identity). */
    Set<T> targets() {
        return Collections.unmodifiableSet(writes.keySet());
    }

    /**
     * A write batch of {@code target}'s writes in ascending key order, the last of each key
     * only, with room for {@code extraOps} more (the offsets and position written with them).
     */
    WriteBatch batch(T target, int extraOps) {
        SortedWrites w = writes.get(target);
        return w == null ? new WriteBatch(extraOps) : w.toBatch(extraOps);
    }

    /** The writes {@code target} holds (a key written twice counts twice), 0 for none. */
    int size(T target) {
        SortedWrites w = writes.get(target);
        return w == null ? 0 : w.size();
    }

    /**
     * Adds {@code target}'s writes to {@code table} in ascending key order, the last of each
     * key only (see {@link SortedWrites#writeTo}).
     *
     * @return the entries added
     */
    int writeTo(T target, dev.strata.lsm.TableWriter table) {
        SortedWrites w = writes.get(target);
        return w == null ? 0 : w.writeTo(table);
    }

    /** Forgets every write and offset (written, or dropped at close). */
    void clear() {
        writes.clear();
        lastOffsets.clear();
        approximateBytes = 0;
        records = 0;
    }
}
