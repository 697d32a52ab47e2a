package dev.strata.lsm.repair;

import dev.strata.lsm.RepairReport;
import dev.strata.lsm.CorruptionException;
import dev.strata.lsm.StoreConfig;
import dev.strata.lsm.StoreException;
import dev.strata.lsm.cache.BlockCache;
import dev.strata.lsm.io.IoPurpose;
import dev.strata.lsm.io.OpenMode;
import dev.strata.lsm.io.PageFile;
import dev.strata.lsm.io.StorageIO;
import dev.strata.lsm.merge.MergingIterator;
import dev.strata.lsm.sstable.FinishedTable;
import dev.strata.lsm.sstable.InternalIterator;
import dev.strata.lsm.sstable.RangeTombstones;
import dev.strata.lsm.sstable.SSTableReader;
import dev.strata.lsm.sstable.SSTableWriter;
import dev.strata.lsm.sstable.TableOptions;
import dev.strata.lsm.sstable.TableIterator;
import dev.strata.lsm.version.ComponentMeta;
import dev.strata.lsm.version.Manifest;
import dev.strata.lsm.version.TableFiles;
import dev.strata.lsm.version.VersionEdit;
import dev.strata.lsm.wal.WalSegments;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Rebuilds a store's manifest from the table files in its directory, after the manifest
 * was damaged (the idea of LevelDB's {@code RepairDB}). Nothing is deleted: every file the
 * repair does not use is moved into the {@code lost/} subdirectory with the reason in the
 * report.
 *
 * <p>What it does, with the store closed (it takes the directory's lock):
 * <ol>
 *   <li>Reads whatever the current manifest still holds intact (its edits up to the first
 *       damage). A table with a number below the last intact edit's next file number that
 *       this edit does not reference was replaced before that edit (a merge input whose
 *       deletion was cut short, or the output of a failed job): it is set aside, since
 *       restoring it could bring back data a later tombstone removed.</li>
 *   <li>Opens every other table file at its last footer and reads every entry, which checks
 *       every page's checksum; a table that fails is set aside.</li>
 *   <li>Places the good tables as runs of level 0, newest (by largest sequence number)
 *       first. If two overlapping tables have interleaved sequence numbers (both a merge's
 *       inputs and its output survived), no order is correct: the tables are then merged into
 *       one new run that keeps every version, and the originals are set aside.</li>
 *   <li>Writes a new manifest holding that layout, with the last sequence number of the
 *       tables and a log number of 0, and switches CURRENT to it. The next open replays every
 *       WAL segment left, skipping the records the tables already hold.</li>
 * </ol>
 * The merge policy starts from a fresh state; its first decisions reshape the tree.
 *
 * <p>A limit it shares with LevelDB's repair: a table that a merge replaced, whose deletion
 * was cut short, and that no intact manifest edit marks as replaced, comes back. Versions
 * it holds that are newer than anything else stay hidden, but a key the merge removed for
 * good (a delete whose tombstone was dropped at the bottom of the tree) reappears.
 */
public final class StoreRepair {
    /** The subdirectory files set aside by a repair are moved to. */
    public static final String LOST = "lost";
    private static final long MERGED_TABLE_BYTES = 64L << 20;

    private final Path dir;
    private final StorageIO io;
    private final TableOptions tableOptions;
    /** The creation time of the tables it keeps (their old times are not on disk). */
    private final java.time.InstantSource clock;
    private final List<RepairReport.SetAside> setAside = new ArrayList<>();
    private long maxFileNumber;
    /**
     * Tables whose every sequence number is above this were written by an atomic flush that
     * never committed (its intent record names this tree); {@link Long#MAX_VALUE}: none.
     */
    private final long uncommittedAbove;

    private StoreRepair(Path dir, StoreConfig config, long uncommittedAbove) {
        this.uncommittedAbove = uncommittedAbove;
        this.dir = dir;
        this.io = config.createStorageIO();
        this.tableOptions = TableOptions.of(config);
        this.clock = config.clock();
    }

    /** A table that opened and read back completely. */
    private record GoodTable(long fileNumber, ComponentMeta meta) {
    }

    /**
     * Repairs the store in {@code dir}. The caller holds the directory's lock (see
     * {@code LsmStore.repair}, which takes it as an open does).
     *
     * @throws StoreException if the directory cannot be read or the new manifest written
     */
    public static RepairReport repair(Path dir, StoreConfig config) {
        return repair(dir, config, Long.MAX_VALUE);
    }

    /**
     * {@link #repair(Path, StoreConfig)} of a tree that an atomic flush interrupted before its
     * commit had written a table for: the store's {@code FLUSHGROUP} file is that group's intent
     * ({@code FlushGroupRecord.intent}), naming this tree with its last sequence number
     * {@code uncommittedAbove} when the group began. Every table whose smallest sequence number
     * is above it was written by that group (a group's tables hold only writes after that
     * number; nothing later is flushed before the group is done) and is set aside, as an open
     * would delete it: kept, it would show this family's part of a group the others lack.
     */
    public static RepairReport repair(Path dir, StoreConfig config, long uncommittedAbove) {
        try {
            return new StoreRepair(dir, config, uncommittedAbove).run();
        } catch (IOException e) {
            throw new StoreException("repair of " + dir + " failed: " + e, e);
        }
    }

    private RepairReport run() throws IOException {
        if (!io.exists(dir)) {
            throw new StoreException("repair: " + dir + " does not exist");
        }
        Path manifestPath = currentManifest();
        Manifest.Log log = manifestPath == null ? null : Manifest.salvage(io, manifestPath);
        boolean manifestKnown = log != null && !log.edits().isEmpty();
        Set<Long> referenced = new HashSet<>();
        long knownNext = 0;
        List<List<VersionEdit.RunLayout>> knownLayout = List.of();
        if (manifestKnown) {
            try {
                knownLayout = log.layout(manifestPath);
            } catch (CorruptionException e) {
                // Edits that do not fit together tell nothing reliable about what was replaced.
                manifestKnown = false;
            }
        }
        if (manifestKnown) {
            VersionEdit last = log.last();
            knownNext = last.nextFileNumber();
            for (List<VersionEdit.RunLayout> level : knownLayout) {
                for (VersionEdit.RunLayout run : level) {
                    run.components().forEach(id -> referenced.add(id.fileNumber()));
                }
            }
        }
        List<Path> files = io.list(dir);
        for (Path p : files) {
            String name = p.getFileName().toString();
            maxFileNumber = Math.max(maxFileNumber, Math.max(Math.max(TableFiles.parseNumber(name),
                    Manifest.parseNumber(name)), WalSegments.parseNumber(p).orElse(-1)));
        }
        List<GoodTable> good = new ArrayList<>();
        long entries = 0;
        for (Path p : files) {
            long n = TableFiles.parseNumber(p.getFileName().toString());
            if (n < 0) {
                continue;
            }
            if (manifestKnown && n < knownNext && !referenced.contains(n)) {
                setAside(p, "replaced before the last intact manifest edit (which does not reference it)");
                continue;
            }
            try {
                GoodTable t = verify(p, n);
                if (t.meta().minSeqno() > uncommittedAbove) {
                    setAside(p, "written by an atomic flush that never committed (its FLUSHGROUP intent names"
                            + " this tree's writes above sequence number " + uncommittedAbove + ")");
                    continue;
                }
                good.add(t);
                entries += t.meta().entryCount();
            } catch (IOException | RuntimeException e) {
                setAside(p, "unreadable: " + e.getMessage());
            }
        }
        good.sort(Comparator.comparingLong((GoodTable t) -> t.meta().maxSeqno())
                .thenComparingLong(GoodTable::fileNumber).reversed());
        boolean merged = false;
        if (!ordered(good)) {
            good = mergeAll(good);
            merged = true;
        }
        long lastSequence = good.stream().mapToLong(t -> t.meta().maxSeqno()).max().orElse(0);
        long creation = 1;
        List<ComponentMeta> metas = new ArrayList<>();
        List<List<VersionEdit.RunLayout>> layout = new ArrayList<>();
        List<VersionEdit.RunLayout> level0 = new ArrayList<>();
        long runId = 1;
        // Creation order follows age: the oldest table was created first.
        for (int i = good.size() - 1; i >= 0; i--) {
            ComponentMeta m = good.get(i).meta();
            metas.add(0, m.withCreationOrder(creation++));
        }
        if (merged) {
            level0.add(new VersionEdit.RunLayout(runId++, metas.stream().map(ComponentMeta::id).toList()));
        } else {
            for (ComponentMeta m : metas) {
                level0.add(new VersionEdit.RunLayout(runId++, List.of(m.id())));
            }
        }
        if (!level0.isEmpty()) {
            layout.add(level0);
        }
        long flushCounter = manifestKnown ? log.last().flushCounter() : 0;
        // The merge policy the store ran stays recorded (its layout is rebuilt, its choice of policy is not lost).
        dev.strata.lsm.version.PolicyRecord policy = log != null ? log.recordedPolicy() : null;
        long number = ++maxFileNumber;
        VersionEdit snapshot = VersionEdit.snapshot(number + 1, lastSequence, 0, flushCounter, runId, creation,
                new byte[0], metas, layout, policy);
        Manifest.create(io, dir, number, snapshot).close();
        if (manifestPath != null && io.exists(manifestPath)) {
            setAside(manifestPath, "the manifest this repair replaced"
                    + (log.damage() != null ? " (" + log.damage() + ")" : ""));
        }
        List<Path> wal = WalSegments.list(io, dir);
        return new RepairReport(dir, dir.resolve(Manifest.fileName(number)), manifestKnown ? log.edits().size() : 0,
                metas.size(), entries, lastSequence, merged, wal.size(), setAside);
    }

    /** The manifest CURRENT names, or else the newest manifest file; null if there is none. */
    private Path currentManifest() throws IOException {
        try {
            Path p = Manifest.readCurrent(io, dir);
            if (p != null && io.exists(p)) {
                return p;
            }
        } catch (StoreException e) {
            // A damaged CURRENT: fall back to the newest manifest.
        }
        Path newest = null;
        long newestNumber = -1;
        for (Path p : io.list(dir)) {
            long n = Manifest.parseNumber(p.getFileName().toString());
            if (n > newestNumber) {
                newestNumber = n;
                newest = p;
            }
        }
        return newest;
    }

    /** Opens table {@code n} at its last footer and reads every entry and value. */
    private GoodTable verify(Path p, long n) throws IOException {
        try (PageFile f = io.open(p, OpenMode.READ, IoPurpose.READ)) {
            SSTableReader reader = openAtLastFooter(f, n);
            long count = 0;
            try (TableIterator it = reader.iterator()) {
                for (it.seekToFirst(); it.valid(); it.next()) {
                    it.value();
                    count++;
                }
            }
            if (count != reader.footer().entryCount()) {
                throw new IOException("holds " + count + " entries, its footer says " + reader.footer().entryCount());
            }
            FinishedTable t = new FinishedTable(reader.footerOffset(), reader.footer());
            return new GoodTable(n, ComponentMeta.of(n, t, 0, clock.millis()));
        }
    }

    /**
     * The table version whose footer is the file's last page, trying every legal page size
     * (also for tables written outside a store, which bulk ingest reads).
     */
    public static SSTableReader openAtLastFooter(PageFile f, long n) throws IOException {
        return SSTableReader.openAtLastFooter(f, n);
    }

    /**
     * Whether newest-first order (by largest sequence number) satisfies the stability
     * invariant: of two overlapping tables, the one placed newer holds only newer
     * sequence numbers.
     */
    private static boolean ordered(List<GoodTable> newestFirst) {
        for (int i = 0; i < newestFirst.size(); i++) {
            ComponentMeta newer = newestFirst.get(i).meta();
            for (int j = i + 1; j < newestFirst.size(); j++) {
                ComponentMeta older = newestFirst.get(j).meta();
                boolean overlap = Arrays.compareUnsigned(newer.minKey(), older.maxKey()) <= 0
                        && Arrays.compareUnsigned(older.minKey(), newer.maxKey()) <= 0;
                if (overlap && newer.minSeqno() <= older.maxSeqno()) {
                    return false;
                }
            }
        }
        return true;
    }

    /**
     * Merges every table into new ones that keep every version (an entry present in two
     * tables, same key and sequence number, is written once) and sets the originals aside.
     */
    private List<GoodTable> mergeAll(List<GoodTable> tables) throws IOException {
        List<PageFile> handles = new ArrayList<>();
        List<GoodTable> out = new ArrayList<>();
        try {
            List<InternalIterator> its = new ArrayList<>();
            List<RangeTombstones> tombstones = new ArrayList<>();
            for (GoodTable t : tables) {
                PageFile f = io.open(dir.resolve(TableFiles.fileName(t.fileNumber())), OpenMode.READ, IoPurpose.MERGE);
                handles.add(f);
                SSTableReader r = SSTableReader.open(f, t.meta().id().footerOffset(), t.fileNumber(),
                        BlockCache.disabled());
                its.add(r.iterator());
                tombstones.add(r.rangeTombstones());
            }
            // Every range tombstone is kept too, each output getting those of its part of the
            // key space (as TableOutput cuts them), so output bounds stay disjoint.
            RangeTombstones allTombstones = RangeTombstones.union(tombstones);
            byte[] partStart = null;
            MergingIterator it = new MergingIterator(its);
            it.seekToFirst();
            byte[] lastKey = null;
            long lastSeq = -1;
            SSTableWriter writer = null;
            PageFile file = null;
            long number = -1;
            while (it.valid()) {
                byte[] key = it.key();
                long seq = it.seqno();
                boolean duplicate = lastKey != null && seq == lastSeq && Arrays.equals(key, lastKey);
                if (!duplicate) {
                    boolean newKey = lastKey == null || !Arrays.equals(key, lastKey);
                    if (writer != null && newKey && writer.estimatedBytes() >= MERGED_TABLE_BYTES) {
                        byte[] partEnd = RangeTombstones.successor(lastKey);
                        writer.rangeTombstones(allTombstones.clip(partStart, partEnd));
                        partStart = partEnd;
                        out.add(finish(number, writer));
                        writer = null;
                    }
                    if (writer == null) {
                        number = ++maxFileNumber;
                        file = io.open(dir.resolve(TableFiles.fileName(number)), OpenMode.CREATE_NEW, IoPurpose.MERGE);
                        writer = new SSTableWriter(file, tableOptions);
                    }
                    writer.add(key, seq, it.type(), it.value());
                    lastKey = key;
                    lastSeq = seq;
                }
                it.next();
            }
            if (writer == null && !allTombstones.isEmpty()) {
                number = ++maxFileNumber;
                file = io.open(dir.resolve(TableFiles.fileName(number)), OpenMode.CREATE_NEW, IoPurpose.MERGE);
                writer = new SSTableWriter(file, tableOptions);
            }
            if (writer != null) {
                writer.rangeTombstones(allTombstones.clip(partStart, null));
                out.add(finish(number, writer));
            }
        } finally {
            for (PageFile f : handles) {
                f.close();
            }
        }
        io.syncDirectory(dir);
        for (GoodTable t : tables) {
            setAside(dir.resolve(TableFiles.fileName(t.fileNumber())),
                    "merged into new tables: its sequence numbers interleave with an overlapping table's");
        }
        return out;
    }

    private GoodTable finish(long number, SSTableWriter writer) throws IOException {
        return new GoodTable(number, ComponentMeta.of(number, writer.finishDurably(), 0, clock.millis()));
    }

    private void setAside(Path p, String reason) throws IOException {
        Path lost = dir.resolve(LOST);
        io.createDirectories(lost);
        Path target = lost.resolve(p.getFileName());
        io.rename(p, target);
        io.syncDirectory(lost);
        io.syncDirectory(dir);
        setAside.add(new RepairReport.SetAside(p.getFileName().toString(), reason));
    }
}
