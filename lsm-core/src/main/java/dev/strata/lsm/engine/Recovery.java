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
            recovered.put(t.id, new Memtable(t.versions.logNumber()));
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
        // First the void records (BatchCodec#encodeVoid): groups whose WAL append failed, which
        // an earlier segment may still hold; no family replays them.
        java.util.TreeMap<Long, Long> voids = new java.util.TreeMap<>();
        for (Path segment : segments) {
            WalRecovery.recover(io, segment, rec -> {
                long[] v = BatchCodec.voided(rec.payload(), segment, rec.offset());
                if (v != null) {
                    voids.put(v[0], v[0] + v[1] - 1);
                }
            });
        }
        for (Path segment : segments) {
            long[] last = {maxSeq};
            WalRecovery.recover(io, segment, rec -> {
                long[] v = BatchCodec.voided(rec.payload(), segment, rec.offset());
                if (v != null) {
                    last[0] = Math.max(last[0], v[0] + v[1] - 1);
                    return;
                }
                java.util.Map.Entry<Long, Long> covering = voids.floorEntry(BatchCodec.firstSequence(rec.payload()));
                if (covering != null && BatchCodec.firstSequence(rec.payload()) <= covering.getValue()) {
                    last[0] = Math.max(last[0], covering.getValue());
                    return;
                }
                last[0] = Math.max(last[0], BatchCodec.replay(rec.payload(), target, segment, rec.offset()));
            });
            maxSeq = last[0];
        }
        long newSegment = trees.get(0).versions.newFileNumber();
        log.start(newSegment, maxSeq);
        for (Tree t : trees) {
            t.memtables.start(newSegment);
        }
        // Make each family's replayed writes a component (as its policy plans a flush) and move
        // its log number past the old segments; they go once every family has.
        for (Tree t : trees) {
            Memtable m = recovered.get(t.id);
            Component flushed = m.isEmpty() ? null : t.flushJob.write(m, new FlushCut(new long[0], Long.MAX_VALUE));
            if (flushed == null) {
                t.flushJob.installNothing(newSegment, maxSeq);
            } else {
                try {
                    t.flushJob.install(flushed, newSegment, maxSeq);
                } catch (RuntimeException | IOException e) {
                    t.obsolete.deleteUninstalled(flushed.meta().fileNumber());
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
     * Finishes the atomic flush a crash interrupted after its commit ({@link FlushGroups}): the
     * {@link FlushGroupRecord} lists each family's table of the group; a family whose manifest
     * does not hold it yet (its last sequence number is below the entry's) installs it now, as
     * its policy plans a flush. Runs before the WAL is replayed, so the replay skips what the
     * table holds, and before orphans are deleted, which the table would otherwise be.
     */
    private void finishFlushGroup() throws IOException {
        FlushGroupRecord group = FlushGroupRecord.read(io, dir);
        if (group == null) {
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
            Component c = t.tables.open(e.table());
            t.flushJob.install(c, e.logNumber(), e.lastSequence());
            t.counters.flushes.incrementAndGet();
            LOG.log(System.Logger.Level.INFO, "finished the atomic flush a crash interrupted: installed table {0} of"
                    + " column family \"{1}\"", table, t.name);
        }
        FlushGroupRecord.delete(io, dir);
    }
}
