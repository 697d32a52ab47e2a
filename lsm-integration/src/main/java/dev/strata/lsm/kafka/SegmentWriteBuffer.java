package dev.strata.lsm.kafka;

import dev.strata.lsm.WriteBatch;
import org.apache.kafka.common.utils.Bytes;

import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The writes a window or session store took since its last commit, per segment, newest value
 * per Strata key, in key order: reads merge them with the segments' records (the buffer
 * wins), and a commit writes each segment's part as one write batch, followed in that batch
 * by the changelog offsets. See {@link AbstractSegmentedStore}, "Write buffer".
 *
 * <p>Keys are the segments' Strata keys ({@link SegmentLayout}); {@link Bytes} orders them as
 * Strata does (unsigned lexicographic). A delete is kept as {@link UncommittedWrites#TOMBSTONE}.
 * The writes of a segment that is dropped (expired) go with it ({@link #purgeDropped()}).
 *
 * <p>Not thread safe: the owning store guards it with its monitor.
 */
final class SegmentWriteBuffer {
    private static final long ENTRY_OVERHEAD = 48;

    /** One segment's writes. */
    private static final class Writes {
        final TreeMap<Bytes, byte[]> map = new TreeMap<>();
        long bytes;
    }

    private final Map<TimeSegments.Segment, Writes> bySegment = new IdentityHashMap<>();
    private long bytes;

    /** Records {@code value} (null: a delete) under {@code storedKey} in {@code segment}. */
    void put(TimeSegments.Segment segment, byte[] storedKey, byte[] value) {
        Writes w = bySegment.computeIfAbsent(segment, s -> new Writes());
        byte[] stored = value == null ? UncommittedWrites.TOMBSTONE : value;
        byte[] previous = w.map.put(Bytes.wrap(storedKey), stored);
        long delta = stored.length + (previous == null ? storedKey.length + ENTRY_OVERHEAD : -previous.length);
        w.bytes += delta;
        bytes += delta;
    }

    /**
     * The buffered value of {@code storedKey} in {@code segment}: null when it was not written
     * since the last commit, {@link UncommittedWrites#TOMBSTONE} when it was deleted.
     */
    byte[] get(TimeSegments.Segment segment, byte[] storedKey) {
        Writes w = bySegment.get(segment);
        return w == null ? null : w.map.get(Bytes.wrap(storedKey));
    }

    boolean isEmpty() {
        return bySegment.isEmpty();
    }

    /** Key and value bytes held, plus a per-entry overhead. */
    long approximateBytes() {
        return bytes;
    }

    /** Buffered writes, over every segment. */
    int size() {
        int n = 0;
        for (Writes w : bySegment.values()) {
            n += w.map.size();
        }
        return n;
    }

    /** Forgets the writes of segments that were dropped (expired): they are not to be written. */
    void purgeDropped() {
        for (Iterator<Map.Entry<TimeSegments.Segment, Writes>> it = bySegment.entrySet().iterator(); it.hasNext(); ) {
            Map.Entry<TimeSegments.Segment, Writes> e = it.next();
            if (!e.getKey().open) {
                bytes -= e.getValue().bytes;
                it.remove();
            }
        }
    }

    /**
     * A copy of {@code segment}'s writes with keys in [start, end), ascending, deletes
     * included: iterators read the copy, so a later write or commit does not change it.
     */
    List<Map.Entry<Bytes, byte[]>> copyRange(TimeSegments.Segment segment, byte[] start, byte[] end) {
        Writes w = bySegment.get(segment);
        if (w == null) {
            return List.of();
        }
        Bytes from = Bytes.wrap(start);
        Bytes to = Bytes.wrap(end);
        if (from.compareTo(to) >= 0) {
            return List.of();
        }
        Map<Bytes, byte[]> view = w.map.subMap(from, true, to, false);
        if (view.isEmpty()) {
            return List.of();
        }
        List<Map.Entry<Bytes, byte[]>> copy = new ArrayList<>(view.size());
        for (Map.Entry<Bytes, byte[]> e : view.entrySet()) {
            copy.add(Map.entry(e.getKey(), e.getValue()));  // TreeMap entries change in place
        }
        return copy;
    }

    /** The (open) segments holding buffered writes. */
    List<TimeSegments.Segment> segments() {
        List<TimeSegments.Segment> out = new ArrayList<>();
        for (TimeSegments.Segment s : bySegment.keySet()) {
            if (s.open) {
                out.add(s);
            }
        }
        return Collections.unmodifiableList(out);
    }

    /** Adds {@code segment}'s writes to {@code batch}, puts and deletes in key order; true if it had any. */
    boolean addTo(TimeSegments.Segment segment, WriteBatch batch) {
        Writes w = bySegment.get(segment);
        if (w == null) {
            return false;
        }
        for (Map.Entry<Bytes, byte[]> e : w.map.entrySet()) {
            if (e.getValue() == UncommittedWrites.TOMBSTONE) {
                batch.delete(e.getKey().get());
            } else {
                batch.put(e.getKey().get(), e.getValue());
            }
        }
        return true;
    }

    void clear() {
        bySegment.clear();
        bytes = 0;
    }
}
