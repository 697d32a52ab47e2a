package dev.strata.lsm.engine;

import dev.strata.lsm.ValueExpiry;
import dev.strata.lsm.io.IoPurpose;
import dev.strata.lsm.io.OpenMode;
import dev.strata.lsm.io.PageFile;
import dev.strata.lsm.io.StorageIO;
import dev.strata.lsm.merge.VersionRetention;
import dev.strata.lsm.merge.OutputCutter;
import dev.strata.lsm.policy.MergeTask;
import dev.strata.lsm.policy.OutputSpec;
import dev.strata.lsm.sstable.EntryType;
import dev.strata.lsm.sstable.FinishedTable;
import dev.strata.lsm.sstable.InternalIterator;
import dev.strata.lsm.sstable.RangeTombstones;
import dev.strata.lsm.sstable.SSTableWriter;
import dev.strata.lsm.sstable.TableOptions;
import dev.strata.lsm.version.Component;
import dev.strata.lsm.version.ComponentMeta;
import dev.strata.lsm.version.Run;
import dev.strata.lsm.version.TableFiles;
import dev.strata.lsm.version.Version;
import dev.strata.lsm.version.VersionSet;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Writes the tables of a flush or a merge: entries in, durable table files out, cut where
 * the task's {@link OutputSpec} says (evaluated by {@link OutputCutter} against the version
 * the task started from), keeping what a {@link VersionRetention} keeps. In a bottommost
 * output, a put that is the only version of its key at or below the oldest live snapshot and
 * under no kept range tombstone is written with sequence number 0, as RocksDB's compaction
 * does (docs/engine.md, "Sequence numbers in bottommost outputs"). A failure deletes every
 * file this call wrote.
 */
final class TableOutput {
    private final StorageIO io;
    private final Path dir;
    private final TableFiles tables;
    private final VersionSet versions;
    private final ObsoleteFiles obsolete;
    /** The options of a table written to a level (its codec depends on the level and on being bottommost). */
    @FunctionalInterface
    interface LevelOptions {
        TableOptions at(int level, boolean bottommost);
    }

    private final LevelOptions tableOptions;
    private final ValueExpiry expiry;
    /** The store's merge operator, or null: with one, operands are combined as they are written. */
    private final dev.strata.lsm.mergeop.MergeOperator operator;
    /** The store's clock: value expiry, and the creation and tombstone times of the tables written. */
    private final java.time.InstantSource clock;

    TableOutput(StorageIO io, Path dir, TableFiles tables, VersionSet versions, ObsoleteFiles obsolete,
                LevelOptions tableOptions, ValueExpiry expiry, dev.strata.lsm.mergeop.MergeOperator operator,
                java.time.InstantSource clock) {
        this.clock = clock;
        this.expiry = expiry;
        this.operator = operator;
        this.io = io;
        this.dir = dir;
        this.tables = tables;
        this.versions = versions;
        this.obsolete = obsolete;
        this.tableOptions = tableOptions;
    }

    /** Now on the store's clock, in milliseconds since the epoch: the time a table written now is stamped with. */
    long nowMillis() {
        return clock.millis();
    }

    /**
     * The cutter that evaluates {@code task}'s output spec against {@code v}: the files of
     * the level it aligns with and of the level below its target (each sorted by smallest
     * key).
     *
     * @throws IllegalArgumentException if the spec cannot be evaluated there (the level below
     *     the target holds overlapping files while an overlap rule is set)
     */
    static OutputCutter cutterFor(Version v, MergeTask task) {
        OutputSpec spec = task.output();
        List<OutputCutter.FileBounds> align = spec.alignToLevel() == OutputSpec.NO_LEVEL ? List.of()
                : levelFiles(v, spec.alignToLevel());
        List<OutputCutter.FileBounds> below = !spec.usesLevelBelow() ? List.of()
                : levelFiles(v, task.placement().level() + 1);
        return new OutputCutter(spec, align, below);
    }

    private static List<OutputCutter.FileBounds> levelFiles(Version v, int level) {
        if (level >= v.levels().size()) {
            return List.of();
        }
        List<OutputCutter.FileBounds> files = new ArrayList<>();
        for (Run r : v.levels().get(level)) {
            for (Component c : r.components()) {
                files.add(new OutputCutter.FileBounds(c.meta().minKey(), c.meta().maxKey(), c.meta().sizeBytes()));
            }
        }
        files.sort((a, b) -> Arrays.compareUnsigned(a.minKey(), b.minKey()));
        return files;
    }

    /**
     * Writes the entries of {@code it} into new table files cut as {@code cutter} says,
     * keeping only what {@code retention} keeps (everything when null); a value the store's
     * {@link ValueExpiry} calls expired is written, or dropped, as a tombstone. Each file is forced
     * before it is opened and returned; each stays a pending output of {@link ObsoleteFiles}
     * until the caller installs or deletes it.
     */
    List<Component> write(InternalIterator it, IoPurpose purpose, OutputCutter cutter, VersionRetention retention,
                          int level, boolean bottommost) throws IOException {
        return write(it, RangeTombstones.EMPTY, purpose, cutter, retention, level, bottommost);
    }

    /**
     * {@link #write(InternalIterator, IoPurpose, OutputCutter, VersionRetention, int, boolean)}
     * of an input whose range tombstones are {@code tombstones}: entries they delete for every
     * snapshot are dropped ({@link RangeTombstoneFilter}); the tombstones the retention still
     * needs ({@link RangeTombstones#retained}: the newest per snapshot stripe, none of the
     * lowest stripe in a bottommost output) are written into the outputs, each output getting
     * those clipped to its part of the key space. Output {@code i} ends just after its last key
     * ({@code lastKey + 0x00}), where output {@code i + 1}'s part begins, so outputs' key bounds
     * stay disjoint; the first part starts at the bottom of the key space and the last ends at
     * its top. Tombstones and no entry left give one table holding the tombstones only.
     */
    List<Component> write(InternalIterator it, RangeTombstones tombstones, IoPurpose purpose, OutputCutter cutter,
                          VersionRetention retention, int level, boolean bottommost) throws IOException {
        TableOptions options = tableOptions.at(level, bottommost);
        RangeTombstones kept = tombstones;
        if (!tombstones.isEmpty() && retention != null) {
            it = RangeTombstoneFilter.atInput(it, tombstones, retention);
            kept = tombstones.retained(retention::stripe, retention.bottommost());
        }
        byte[] partStart = null;
        if (operator != null && retention != null) {
            // The operands of a key are combined first; retention then sees their results.
            it = MergeCollapsingIterator.atInput(it, retention, operator);
        }
        List<Component> out = new ArrayList<>();
        long fileNumber = -1;
        PageFile file = null;
        SSTableWriter writer = null;
        byte[] lastKeyWritten = null;
        // The snapshot stripe of the last entry written (-1 without retention).
        int lastStripeWritten = -1;
        // Zeroing needs the snapshots' stripes and a bottommost output (a flush is never one).
        boolean zeroSequence = retention != null && retention.bottommost();
        long now = clock.millis();
        try {
            while (it.valid()) {
                byte[] key = it.key();
                long seq = it.seqno();
                EntryType type = it.type();
                // The value is handed on where the input holds it, not copied out.
                byte[] value = type == EntryType.DELETE ? null : it.valueArray();
                int valueOffset = value == null ? 0 : it.valueOffset();
                int valueLength = value == null ? 0 : it.valueLength();
                if (value != null && type == EntryType.PUT && expiry != null
                        && expiry.expired(key, Arrays.copyOfRange(value, valueOffset, valueOffset + valueLength), now)) {
                    type = EntryType.DELETE;
                    value = null;
                    valueLength = 0;
                }
                if (retention != null && !retention.keep(key, seq, type)) {
                    it.next();
                    continue;
                }
                boolean newKey = writer == null || !Arrays.equals(key, lastKeyWritten);
                int stripe = retention == null ? -1 : retention.stripe(seq);
                boolean firstInLowestStripe = newKey || lastStripeWritten != 0;
                if (zeroSequence && firstInLowestStripe && stripe == 0 && type == EntryType.PUT
                        && (kept.isEmpty() || kept.coveringSeqno(key, Long.MAX_VALUE) == 0)) {
                    // Sequence numbers in bottommost outputs (docs/engine.md): the only version
                    // of its key that any reader at or above the oldest snapshot can see, with
                    // nothing older below and no kept range tombstone over it.
                    seq = 0;
                }
                lastStripeWritten = stripe;
                if (writer != null && newKey && cutter.cutBefore(key, writer.estimatedBytes())) {
                    byte[] partEnd = RangeTombstones.successor(lastKeyWritten);
                    writer.rangeTombstones(kept.clip(partStart, partEnd));
                    partStart = partEnd;
                    out.add(finish(fileNumber, writer));
                    file = null;
                    writer = null;
                }
                if (writer == null) {
                    cutter.fileStarted(key);
                    fileNumber = obsolete.newOutputFile();
                    file = io.open(tables.path(fileNumber), OpenMode.CREATE_NEW, purpose);
                    writer = new SSTableWriter(file, options);
                }
                writer.add(key, seq, type, value, valueOffset, valueLength);
                lastKeyWritten = key;
                it.next();
            }
            if (writer == null && !kept.isEmpty()) {
                fileNumber = obsolete.newOutputFile();
                file = io.open(tables.path(fileNumber), OpenMode.CREATE_NEW, purpose);
                writer = new SSTableWriter(file, options);
            }
            if (writer != null) {
                writer.rangeTombstones(kept.clip(partStart, null));
                out.add(finish(fileNumber, writer));
                file = null;
            }
            if (!out.isEmpty()) {
                // One directory sync makes every file this call created durable by name: each
                // was forced as it was finished, and none is installed before this returns.
                // (A sync per file cost a merge of many small outputs, vlsm's vSSTs, one more
                // fsync per file.)
                io.syncDirectory(dir);
            }
            return out;
        } catch (IOException | RuntimeException e) {
            if (file != null) {
                try {
                    file.close();
                } catch (IOException ignored) {
                    // Already failing.
                }
                obsolete.deleteUninstalled(fileNumber);
            }
            for (Component c : out) {
                obsolete.deleteUninstalled(c.meta().fileNumber());
            }
            throw e;
        }
    }

    private Component finish(long fileNumber, SSTableWriter writer) throws IOException {
        FinishedTable t = writer.finishDurably();
        return tables.open(ComponentMeta.of(fileNumber, t, versions.newCreationOrder(), clock.millis()));
    }

    /**
     * Adopts a validated external table ({@code TableWriter}'s, whose last footer is
     * {@code footer}) as a new store table whose every entry carries sequence number
     * {@code seq}, without reading or rewriting its entries: the file is hard-linked into the
     * store when {@code link} (copied where the file system refuses a link), else copied, and
     * a format-4 footer naming {@code seq} is appended to the store's file (which, linked, is
     * the external file too: it stays a valid table). Forced; a pending output of
     * {@link ObsoleteFiles} until the caller installs or deletes it.
     */
    Component adopt(Path external, dev.strata.lsm.sstable.Footer footer, long seq, boolean link) throws IOException {
        long fileNumber = obsolete.newOutputFile();
        Path to = tables.path(fileNumber);
        try {
            if (link) {
                ReaderStaging.linkOrCopy(external, to, false);
            } else {
                java.nio.file.Files.copy(external, to);
            }
            FinishedTable t;
            try (PageFile f = io.open(to, OpenMode.READ_WRITE, IoPurpose.FLUSH)) {
                t = SSTableWriter.appendGlobalSeqno(f, footer, seq);
            }
            io.syncDirectory(dir);
            return tables.open(ComponentMeta.of(fileNumber, t, versions.newCreationOrder(), clock.millis()));
        } catch (IOException | RuntimeException e) {
            obsolete.deleteUninstalled(fileNumber);
            throw e;
        }
    }
}
