package dev.strata.lsm.kafka;

import dev.strata.lsm.LsmStore;
import dev.strata.lsm.StoreConfig;
import dev.strata.lsm.StoreException;
import dev.strata.lsm.WriteOptions;
import org.apache.kafka.streams.errors.ProcessorStateException;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.NavigableMap;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * The time segments of a window or session store: one Strata {@link LsmStore} per segment of
 * {@code segmentInterval} milliseconds, in {@code <dir>/<segment start in ms>}. A segment whose
 * every record is older than the retention period is dropped whole: its store is closed and
 * its directory deleted, whatever it holds (Strata has no range delete; this costs no
 * compaction and no tombstones).
 *
 * <p>The rule for which segments live is Kafka's (its {@code AbstractSegments}): segment
 * {@code id = floor(time / segmentInterval)}; with stream time {@code t}, the segments older
 * than {@code id(t - retentionPeriod)} are expired. Not thread safe: the owning store locks.
 */
final class TimeSegments {
    /** One segment: its id and its open Strata store. */
    static final class Segment {
        final long id;
        final LsmStore store;
        volatile boolean open = true;
        boolean dirty;

        Segment(long id, LsmStore store) {
            this.id = id;
            this.store = store;
        }
    }

    private final String storeName;
    private final Path dir;
    private final StoreConfig config;
    private final long retentionPeriod;
    private final long segmentInterval;
    private final TreeMap<Long, Segment> segments = new TreeMap<>();
    /** Told of each segment this object creates (not of those {@link #openExisting} finds). */
    private final java.util.function.Consumer<Segment> created;

    TimeSegments(String storeName, Path dir, StoreConfig config, long retentionPeriod, long segmentInterval) {
        this(storeName, dir, config, retentionPeriod, segmentInterval, s -> { });
    }

    /**
     * @param created called with each segment created by {@link #getOrCreateIfLive} before any
     *     record is written to it; if it throws, the segment is closed and the exception passed on
     */
    TimeSegments(String storeName, Path dir, StoreConfig config, long retentionPeriod, long segmentInterval,
                 java.util.function.Consumer<Segment> created) {
        if (segmentInterval < 1) {
            throw new IllegalArgumentException("segmentInterval must be positive, was " + segmentInterval);
        }
        if (retentionPeriod < 0) {
            throw new IllegalArgumentException("retentionPeriod cannot be negative, was " + retentionPeriod);
        }
        this.storeName = storeName;
        this.dir = dir;
        this.config = config;
        this.retentionPeriod = retentionPeriod;
        this.segmentInterval = segmentInterval;
        this.created = java.util.Objects.requireNonNull(created, "created");
    }

    long segmentId(long time) {
        return Math.floorDiv(time, segmentInterval);
    }

    Path directory() {
        return dir;
    }

    /** Opens the segments found in the directory (creating it if needed). */
    void openExisting() {
        try {
            Files.createDirectories(dir);
            List<Long> ids = new ArrayList<>();
            try (Stream<Path> entries = Files.list(dir)) {
                for (Path p : (Iterable<Path>) entries::iterator) {
                    if (Files.isDirectory(p)) {
                        ids.add(segmentIdOf(p));
                    }
                }
            }
            ids.sort(null);
            for (long id : ids) {
                open(id);
            }
        } catch (IOException e) {
            close();
            throw new ProcessorStateException("store " + storeName + ": cannot list its segments in " + dir, e);
        } catch (RuntimeException e) {
            close();
            throw e;
        }
    }

    private long segmentIdOf(Path p) {
        String name = p.getFileName().toString();
        long start;
        try {
            start = Long.parseLong(name);
        } catch (NumberFormatException e) {
            throw new ProcessorStateException("store " + storeName + ": " + p
                    + " is not a segment directory (its name must be the segment's start time in ms)", e);
        }
        if (Math.floorMod(start, segmentInterval) != 0) {
            throw new ProcessorStateException("store " + storeName + ": segment " + p + " does not start at a multiple"
                    + " of the segment interval " + segmentInterval + " ms (was the store made with another interval?)");
        }
        return start / segmentInterval;
    }

    private Segment open(long id) {
        Path segmentDir = dir.resolve(Long.toString(id * segmentInterval));
        try {
            Files.createDirectories(segmentDir);
            Segment s = new Segment(id, LsmStore.open(segmentDir, config));
            segments.put(id, s);
            return s;
        } catch (IOException | StoreException e) {
            throw new ProcessorStateException("cannot open segment " + segmentDir + " of Strata store " + storeName, e);
        }
    }

    /**
     * The segment of {@code id}, opened or created, when it is live at {@code streamTime};
     * null when it has expired. Drops the segments expired at {@code streamTime}.
     */
    Segment getOrCreateIfLive(long id, long streamTime) {
        Segment s = null;
        if (id >= minLiveSegment(streamTime)) {
            s = segments.get(id);
            if (s == null) {
                s = open(id);
                try {
                    created.accept(s);
                } catch (RuntimeException e) {
                    segments.remove(id);
                    s.open = false;
                    try {
                        s.store.close();
                    } catch (RuntimeException suppressed) {
                        e.addSuppressed(suppressed);
                    }
                    throw e;
                }
            }
        }
        dropExpired(streamTime);
        return s;
    }

    private long minLiveSegment(long streamTime) {
        long minLiveTime = streamTime - retentionPeriod;
        if (streamTime < 0 && minLiveTime > streamTime) {
            minLiveTime = Long.MIN_VALUE;  // underflow
        }
        return segmentId(minLiveTime);
    }

    /** The open segment holding {@code time}, or null. */
    Segment forTime(long time) {
        return segments.get(segmentId(time));
    }

    /** The segments holding times from {@code from} to {@code to}, oldest first when {@code forward}. */
    List<Segment> segments(long from, long to, boolean forward) {
        long fromId = segmentId(from);
        long toId = segmentId(to);
        if (fromId > toId) {
            return List.of();
        }
        NavigableMap<Long, Segment> range = segments.subMap(fromId, true, toId, true);
        return new ArrayList<>(forward ? range.values() : range.descendingMap().values());
    }

    Collection<Segment> all() {
        return segments.values();
    }

    /** Closes and deletes every segment expired at {@code streamTime}. */
    void dropExpired(long streamTime) {
        NavigableMap<Long, Segment> expired = segments.headMap(minLiveSegment(streamTime), false);
        while (!expired.isEmpty()) {
            Segment s = expired.pollFirstEntry().getValue();
            s.open = false;
            Path segmentDir = s.store.directory();
            try {
                s.store.close();
                deleteRecursively(segmentDir);
            } catch (StoreException | UncheckedIOException e) {
                throw new ProcessorStateException("store " + storeName + ": cannot drop expired segment " + segmentDir, e);
            }
        }
    }

    /** Makes every write so far durable: a WAL-synced marker in each segment written since the last sync. */
    void sync() {
        for (Segment s : segments.values()) {
            if (s.dirty) {
                try {
                    s.store.put(SegmentLayout.SYNC_KEY, new byte[0], WriteOptions.defaults().sync(true));
                } catch (StoreException e) {
                    throw new ProcessorStateException("store " + storeName + ": flushing segment "
                            + s.store.directory() + " failed", e);
                }
                s.dirty = false;
            }
        }
    }

    /** Closes every segment; the first failure is thrown after all are closed. */
    void close() {
        RuntimeException failure = null;
        for (Segment s : segments.values()) {
            s.open = false;
            try {
                s.store.close();
            } catch (RuntimeException e) {
                if (failure == null) {
                    failure = new ProcessorStateException("store " + storeName + ": closing segment "
                            + s.store.directory() + " failed", e);
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        segments.clear();
        if (failure != null) {
            throw failure;
        }
    }

    static void deleteRecursively(Path path) {
        if (!Files.exists(path)) {
            return;
        }
        try (Stream<Path> walk = Files.walk(path)) {
            for (Path p : (Iterable<Path>) walk.sorted(Comparator.reverseOrder())::iterator) {
                Files.delete(p);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
