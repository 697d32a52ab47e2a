package dev.strata.lsm.engine;

import dev.strata.lsm.CorruptionException;
import dev.strata.lsm.io.StorageIO;
import dev.strata.lsm.version.FlushGroupRecord;
import dev.strata.lsm.memtable.Memtable;
import dev.strata.lsm.version.Component;
import dev.strata.lsm.wal.WalRecovery;
import dev.strata.lsm.wal.WalSegments;

import java.io.IOException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Opening a store's data (LevelDB's {@code DBImpl::Recover}, RocksDB's per-column-family log
 * numbers): replays the one WAL from the oldest log number of any column family on, each
 * operation into its family's memtable unless the family's tables hold it already (its
 * sequence number at or below the family's last sequence number) — so a family flushed past
 * a segment loses nothing another family still needs from it; operations of dropped families
 * are skipped. Then starts the memtables with a new segment, flushes what each family
 * replayed as its policy plans a flush (moving every family's log number to the new segment)
 * and deletes orphan files. Normally nothing at or below a family's last sequence number is
 * replayed; after a repair, which sets the log number to 0, every surviving segment is read.
 */
final class Recovery {
    private static final System.Logger LOG = System.getLogger(Recovery.class.getName());

    private final StorageIO io;
    private final Path dir;
    private final WalLog log;
    private final Families families;
    private final int nextFamilyId;

    Recovery(StorageIO io, Path dir, WalLog log, Families families, int nextFamilyId) {
        this.io = io;
        this.dir = dir;
        this.log = log;
        this.families = families;
        this.nextFamilyId = nextFamilyId;
    }

    void run() throws IOException {
        finishFlushGroup();
        List<Tree> trees = families.list();
        Map<Integer, Memtable> recovered = new HashMap<>();
        Map<Integer, Long> durable = new HashMap<>();
        long logNumber = Long.MAX_VALUE;
        long maxSeq = 0;
        for (Tree t : trees) {
            logNumber = Math.min(logNumber, t.versions.logNumber());
            recovered.put(t.id, t.memtables.newMemtable(t.versions.logNumber()));
            durable.put(t.id, t.versions.lastSequence());
            // New sequence numbers must be above every family's tables, or a replay would skip them.
            maxSeq = Math.max(maxSeq, t.versions.lastSequence());
        }
        BatchCodec.ReplayTarget target = new BatchCodec.ReplayTarget() {
            @Override
            public Memtable memtable(int family) {
                Memtable m = recovered.get(family);
                if (m == null && (family <= 0 || family >= nextFamilyId)) {
                    throw new IllegalArgumentException("operation of column family " + family
                            + ", which the store never had (the family catalog's next id is " + nextFamilyId + ")");
                }
                return m; // null: a dropped family, whose writes are skipped
            }

            @Override
            public long durable(int family) {
                return durable.get(family);
            }
        };
        List<Path> segments = new java.util.ArrayList<>();
        for (Path segment : WalSegments.list(io, dir)) {
            if (WalSegments.parseNumber(segment).orElse(-1) >= logNumber) {
                segments.add(segment);
            }
        }
        Replay replay = new Replay(target, maxSeq);
        if (!replay.readOnce(segments)) {
            // A void record read too late for what was replayed: start again from fresh memtables
            // knowing every void record.
            for (Tree t : trees) {
                recovered.put(t.id, t.memtables.newMemtable(t.versions.logNumber()));
            }
            replay = new Replay(target, maxSeq, replay.voids);
            for (Path segment : segments) {
                Replay r = replay;
                WalRecovery.recover(io, segment, rec -> r.apply(segment, rec));
            }
        }
        maxSeq = replay.last;
        long newSegment = trees.get(0).versions.newFileNumber();
        log.start(newSegment, maxSeq);
        for (Tree t : trees) {
            t.memtables.start(newSegment);
        }
        // Make each family's replayed writes a component (as its policy plans a flush) and move
        // its log number past the old segments; they go once every family has.
        for (Tree t : trees) {
            Memtable m = recovered.get(t.id);
            List<Component> flushed = m.isEmpty() ? List.of()
                    : t.flushJob.write(m, new FlushCut(new long[0], Long.MAX_VALUE));
            if (flushed.isEmpty()) {
                t.flushJob.installNothing(newSegment, maxSeq);
            } else {
                try {
                    t.flushJob.install(flushed, newSegment, maxSeq);
                } catch (RuntimeException | IOException e) {
                    for (Component c : flushed) {
                        t.obsolete.deleteUninstalled(c.meta().fileNumber());
                    }
                    throw e;
                }
                t.counters.flushes.incrementAndGet();
            }
        }
        for (Tree t : trees) {
            t.obsolete.deleteOrphans();
        }
    }

    /**
     * A group that a crash interrupted before its commit left its intent record
     * ({@link FlushGroupRecord#intent}) and the tables it wrote, which no manifest names: they
     * are deleted (with every other table no manifest of those families names), the
     * directories synced, and only then the intent, so that no later repair finds the tables
     * without the intent that marks them.
     */
    private void dropUncommittedGroup(FlushGroupRecord intent) throws IOException {
        for (FlushGroupRecord.Intent i : intent.intents()) {
            Tree t = families.get(i.familyId());
            if (t == null) {
                continue; // a dropped family: its directory goes
            }
            java.util.Set<Long> live = t.versions.liveTableFiles();
            boolean deleted = false;
            for (Path p : io.list(t.dir)) {
                long n = dev.strata.lsm.version.TableFiles.parseNumber(p.getFileName().toString());
                if (n >= 0 && !live.contains(n)) {
                    t.tables.delete(n);
                    deleted = true;
                }
            }
            if (deleted) {
                io.syncDirectory(t.dir);
            }
        }
        FlushGroupRecord.delete(io, dir);
        io.syncDirectory(dir);
        LOG.log(System.Logger.Level.INFO, "deleted the tables of a flush, ingest or atomic flush a crash interrupted"
                + " before it completed (its FLUSHGROUP intent was on disk), in " + dir);
    }

    /**
     * Replays WAL records into the recovered memtables, skipping in every family the groups that
     * a void record ({@link BatchCodec#encodeVoid}) names: groups whose WAL append failed, whose
     * record an earlier segment may still hold, whole or in part.
     */
    private final class Replay {
        private final BatchCodec.ReplayTarget target;
        /** The void records read so far: first to last sequence number of each voided group. */
        final java.util.TreeMap<Long, Long> voids;
        /** The highest sequence number the records applied so far hold or void. */
        long last;
        /** The highest first sequence number of a record replayed into the memtables so far. */
        private long replayedFirst = Long.MIN_VALUE;

        Replay(BatchCodec.ReplayTarget target, long from) {
            this(target, from, new java.util.TreeMap<>());
        }

        Replay(BatchCodec.ReplayTarget target, long from, java.util.TreeMap<Long, Long> voids) {
            this.target = target;
            this.last = from;
            this.voids = voids;
        }

        /**
         * Reads each of {@code segments} once, in order, applying a segment's records once the
         * next segment is read: a group's void record starts a later segment than its record,
         * normally the next one ({@link WalLog}). Returns false, having replayed only part of
         * the segments, if a void record turned up for a group at or below one already
         * replayed (a void record whose first writing failed, written again further on): the
         * caller starts again from fresh memtables with {@link #voids}, which then holds every
         * void record of the segments.
         */
        boolean readOnce(List<Path> segments) {
            boolean inTime = true;
            Path heldSegment = null;
            List<dev.strata.lsm.wal.WalRecord> held = List.of();
            for (Path segment : segments) {
                List<dev.strata.lsm.wal.WalRecord> records = new java.util.ArrayList<>();
                List<long[]> found = new java.util.ArrayList<>();
                WalRecovery.recover(io, segment, rec -> {
                    long[] v = BatchCodec.voided(rec.payload(), segment, rec.offset());
                    if (v != null) {
                        voids.put(v[0], v[0] + v[1] - 1);
                        found.add(v);
                    }
                    records.add(rec);
                });
                for (long[] v : found) {
                    inTime &= v[0] > replayedFirst;
                }
                if (inTime) {
                    for (dev.strata.lsm.wal.WalRecord rec : held) {
                        apply(heldSegment, rec);
                    }
                }
                heldSegment = segment;
                held = records;
            }
            if (inTime) {
                for (dev.strata.lsm.wal.WalRecord rec : held) {
                    apply(heldSegment, rec);
                }
            }
            return inTime;
        }

        /** Applies record {@code rec} of {@code segment}: replays it unless it is a void record or voided. */
        void apply(Path segment, dev.strata.lsm.wal.WalRecord rec) {
            long[] v = BatchCodec.voided(rec.payload(), segment, rec.offset());
            if (v != null) {
                last = Math.max(last, v[0] + v[1] - 1);
                return;
            }
            long first = BatchCodec.firstSequence(rec.payload());
            java.util.Map.Entry<Long, Long> covering = voids.floorEntry(first);
            if (covering != null && first <= covering.getValue()) {
                last = Math.max(last, covering.getValue());
                return;
            }
            last = Math.max(last, BatchCodec.replay(rec.payload(), target, segment, rec.offset()));
            replayedFirst = Math.max(replayedFirst, first);
        }
    }

    /**
     * Finishes the atomic flush a crash interrupted after its commit ({@link FlushGroups}): the
     * {@link FlushGroupRecord} lists each family's table of the group; a family whose manifest
     * does not hold it yet (its last sequence number is below the entry's) installs it now, as
     * its policy plans a flush. Runs before the WAL is replayed, so the replay skips what the
     * table holds, and before orphans are deleted, which the table would otherwise be; the
     * table is a pending output until its edit is in, so no sweep takes it meanwhile.
     */
    private void finishFlushGroup() throws IOException {
        FlushGroupRecord group = FlushGroupRecord.read(io, dir);
        if (group == null) {
            return;
        }
        if (!group.committed()) {
            dropUncommittedGroup(group);
            return;
        }
        for (FlushGroupRecord.Entry e : group.entries()) {
            Tree t = families.get(e.familyId());
            if (t == null || t.versions.lastSequence() >= e.lastSequence()) {
                continue; // a dropped family, or one whose edit is in
            }
            Path table = t.tables.path(e.table().fileNumber());
            if (!io.exists(table)) {
                throw new CorruptionException(dir.resolve(FlushGroupRecord.FILE), 0, "the committed flush group in "
                        + dir.resolve(FlushGroupRecord.FILE) + " names table " + table + " of column family \"" + t.name
                        + "\", which its manifest does not hold and which is missing");
            }
            t.versions.noteRecovered(e.table());
            // Named by no version until its edit: a pending output, or the sweep that a merge the
            // flush plan runs first starts would close and delete it (FlushGroupRecoverySweepTest).
            // After a failure it stays for the next open, which the record still names it to.
            t.obsolete.protect(e.table().fileNumber());
            Component c = t.tables.open(e.table());
            t.flushJob.install(c, e.logNumber(), e.lastSequence(), false);
            t.obsolete.settled(e.table().fileNumber());
            t.counters.flushes.incrementAndGet();
            LOG.log(System.Logger.Level.INFO, "finished the atomic flush a crash interrupted: installed table {0} of"
                    + " column family \"{1}\"", table, t.name);
        }
        FlushGroupRecord.delete(io, dir);
    }
}
