package dev.strata.lsm.engine;

import dev.strata.lsm.blockmerge.BlockCompaction;
import dev.strata.lsm.blockmerge.SelectiveCompaction;
import dev.strata.lsm.io.IoPurpose;
import dev.strata.lsm.io.OpenMode;
import dev.strata.lsm.io.PageFile;
import dev.strata.lsm.io.StorageIO;
import dev.strata.lsm.merge.MergingIterator;
import dev.strata.lsm.merge.VersionRetention;
import dev.strata.lsm.policy.ComponentId;
import dev.strata.lsm.policy.MergeMode;
import dev.strata.lsm.policy.MergeTask;
import dev.strata.lsm.sstable.BlockMergePlan;
import dev.strata.lsm.sstable.BlockMergeResult;
import dev.strata.lsm.sstable.EntryListIterator;
import dev.strata.lsm.sstable.InternalEntry;
import dev.strata.lsm.sstable.InternalIterator;
import dev.strata.lsm.sstable.InternalKeys;
import dev.strata.lsm.sstable.RangeTombstones;
import dev.strata.lsm.sstable.SSTableReader;
import dev.strata.lsm.sstable.TableOptions;
import dev.strata.lsm.version.Component;
import dev.strata.lsm.version.ComponentMeta;
import dev.strata.lsm.version.ComponentTimes;
import dev.strata.lsm.version.Run;
import dev.strata.lsm.version.TableFiles;
import dev.strata.lsm.version.Version;
import dev.strata.lsm.version.VersionSet;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.FutureTask;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;

/**
 * Executes one merge task (LevelDB's {@code DoCompactionWork}, Pebble's compaction): a
 * {@link MergeMode#MOVE} by a version edit alone; a {@link MergeMode#REUSE_BLOCKS} by merging
 * in place into the target run's tables; a {@link MergeMode#REWRITE} by merging the
 * inputs' entries into new tables cut as the task's output spec says, keeping the versions
 * live snapshots need, and installing them in place of the inputs in one version edit.
 * Outputs are deleted if anything fails before they are installed. Holds no state of its
 * own between tasks.
 */
final class MergeJob {
    private final StorageIO io;
    private final TableFiles tables;
    private final VersionSet versions;
    private final TableOutput output;
    private final ObsoleteFiles obsolete;
    private final PolicyBridge policy;
    private final ReentrantLock mutex;
    private final TableOptions tableOptions;
    private final ExecutorService blockPool;
    private final EngineCounters counters;
    /** The most key-range pieces one rewrite is split into ({@link #subcompactionBounds}); 1: never split. */
    private final int subcompactions;

    /** Bloom reserve of a table merged in place above the last level (BlockDB: 40%). */
    static final double MIDDLE_LEVEL_BLOOM_RESERVE = 0.4;
    /** Bloom reserve of a table merged in place at the last level (BlockDB: 10%). */
    static final double LAST_LEVEL_BLOOM_RESERVE = 0.1;
    /**
     * A block compaction whose parents' files hold at most this many bytes keeps their
     * entries in memory, split by child, and reads the parents once (else once for each
     * child's plan and again for its merge): 64 MiB, or a sixteenth of the heap when that is
     * less (kept entries take about 1.5 times their file bytes, and two merges may keep at once).
     */
    static final long KEPT_PARENT_BYTES = Math.min(64L << 20, Runtime.getRuntime().maxMemory() / 16);

    MergeJob(StorageIO io, TableFiles tables, VersionSet versions, TableOutput output, ObsoleteFiles obsolete,
             PolicyBridge policy, ReentrantLock mutex, TableOptions tableOptions, ExecutorService blockPool,
             EngineCounters counters, int subcompactions) {
        this.io = io;
        this.tables = tables;
        this.versions = versions;
        this.output = output;
        this.obsolete = obsolete;
        this.policy = policy;
        this.mutex = mutex;
        this.tableOptions = tableOptions;
        this.blockPool = blockPool;
        this.counters = counters;
        this.subcompactions = subcompactions;
    }

    /**
     * Runs {@code task} on {@code inputs}; returns the bytes written (0 for a move).
     * {@code anchorRun} is where the run its {@code INTO_RUN_OF} placement named was when it
     * was accepted ({@link Layouts.RunAt#NONE} for none): the output goes into that run even
     * if another merge has consumed the anchor meanwhile, or where the run was if another
     * merge has emptied it ({@link Layouts#resolve}).
     */
    long run(MergeTask task, List<Component> inputs, boolean bottommost, long[] snaps, Layouts.RunAt anchorRun)
            throws IOException {
        versions.ensureIntactTail(); // no new tables while a crash would leave a torn manifest
        return switch (task.mode()) {
            case MOVE -> move(task, anchorRun);
            // Block compaction keeps leaves it calls clean (no parent key inside them) where they
            // are, unread: a parent's range tombstone would have to reach into them, and a child's
            // own tombstones would stay over entries merged in below them. A task with range
            // tombstones among its inputs is therefore run as a rewrite of the same inputs into
            // the same placement, which applies and carries them (RangeTombstoneFilter, TableOutput).
            case REUSE_BLOCKS -> hasRangeTombstones(inputs) ? merge(task, inputs, bottommost, snaps, null, 0, 0, anchorRun)
                    : reuseBlocks(task, inputs, bottommost, snaps, anchorRun);
            case REWRITE -> merge(task, inputs, bottommost, snaps, null, 0, 0, anchorRun);
        };
    }

    /** Whether some of {@code inputs} hold range tombstones. */
    static boolean hasRangeTombstones(List<Component> inputs) {
        for (Component c : inputs) {
            if (!c.reader().rangeTombstones().isEmpty()) {
                return true;
            }
        }
        return false;
    }

    /**
     * Executes a {@link MergeMode#REUSE_BLOCKS} (block compaction, seed 001): the entries of
     * the parents (inputs outside the target run) are split among the children (the inputs
     * in the target run) by key slice ({@link BlockCompaction#slices}). With selective
     * thresholds, each child whose plan ({@link BlockMergePlan}: from its interior pages and
     * its slice's keys, no leaf read) is too large, mostly dead or mostly dirty is rewritten
     * with its slice into new tables cut by the task's output spec (table compaction); every
     * other child is merged in place by {@link BlockCompaction}, one sub-task per child on
     * the block-merge pool: clean leaves stay where they are, dirty and gap leaves, interior
     * pages, bloom and footer are appended to the child's file, which is forced. Then one
     * version edit replaces parents and children by the children's new versions (the same
     * files at new footer offsets) and the rewritten tables. If anything fails first, the
     * appended pages stay as dead tails of live files, which no version references, and the
     * rewritten tables are deleted.
     */
    private long reuseBlocks(MergeTask task, List<Component> inputs, boolean bottommost, long[] snaps,
                             Layouts.RunAt anchorRun) throws IOException {
        Version v = versions.current();
        // The children are inputs, so no other merge changes the target run's part they cover.
        Set<ComponentId> run = TaskValidation.targetRun(v, Layouts.resolve(v, task.placement(), anchorRun).placement());
        List<Component> children = new ArrayList<>();
        List<Component> parents = new ArrayList<>();
        for (Component c : inputs) {
            (run.contains(c.id()) ? children : parents).add(c);
        }
        children.sort((a, b) -> java.util.Arrays.compareUnsigned(a.meta().minKey(), b.meta().minKey()));
        boolean lastLevel = task.placement().level() >= v.levels().size() - 1;
        List<PageFile> handles = new ArrayList<>();
        List<Component> rewritten = new ArrayList<>();
        boolean installed = false;
        try {
            List<PageFile> parentFiles = new ArrayList<>();
            for (Component c : parents) {
                PageFile f = io.open(tables.path(c.meta().fileNumber()), OpenMode.READ, IoPurpose.MERGE);
                handles.add(f);
                parentFiles.add(f);
            }
            Supplier<InternalIterator> input = () -> {
                try {
                    List<InternalIterator> its = new ArrayList<>();
                    for (int i = 0; i < parents.size(); i++) {
                        Component c = parents.get(i);
                        its.add(SSTableReader.openForScan(parentFiles.get(i), c.id().footerOffset(),
                                c.meta().fileNumber(), parents.size()).iterator());
                    }
                    return new MergingIterator(its);
                } catch (IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            };
            List<SSTableReader> bases = new ArrayList<>();
            List<PageFile> childFiles = new ArrayList<>();
            for (Component c : children) {
                PageFile f = io.open(tables.path(c.meta().fileNumber()), OpenMode.READ_WRITE, IoPurpose.MERGE);
                handles.add(f);
                childFiles.add(f);
                bases.add(SSTableReader.open(f, c.id().footerOffset(), c.meta().fileNumber(), tables.cache()));
            }
            List<BlockCompaction.Slice> slices = BlockCompaction.slices(bases);
            // Each child's slice of the parents' entries, read once for its plan and its merge
            // while the parents are small enough to keep in memory; else each reads its slice.
            long parentBytes = parents.stream().mapToLong(c -> c.meta().sizeBytes()).sum();
            List<List<InternalEntry>> kept = parentBytes <= KEPT_PARENT_BYTES ? keepBySlice(input.get(), slices) : null;
            java.util.function.IntFunction<InternalIterator> sliceInput = i -> kept != null
                    ? new EntryListIterator(kept.get(i)) : slices.get(i).of(input.get());
            List<BlockCompaction.Child> inPlace = new ArrayList<>();
            List<Supplier<InternalIterator>> inPlaceInputs = new ArrayList<>();
            List<Component> inPlaceComponents = new ArrayList<>();
            boolean[] rewrite = new boolean[children.size()];
            for (int i = 0; i < children.size(); i++) {
                if (!bases.get(i).footer().mergeableInPlace()) {
                    // A format-1 table (no leaf summaries) is never merged in place: it is
                    // rewritten, with its neighbours if they are rewritten too. Not a
                    // block-compaction decision, so not counted among them. (A compressed table
                    // is merged in place and keeps its codec.)
                    rewrite[i] = true;
                    continue;
                }
                SelectiveCompaction.Decision d = SelectiveCompaction.Decision.BLOCK;
                if (task.selective() != null) {
                    SSTableReader base = bases.get(i);
                    int child = i;
                    d = SelectiveCompaction.decide(BlockMergePlan.liveBytes(base), BlockMergePlan.fileBytes(base),
                            task.selective(), () -> {
                                try (InternalIterator slice = sliceInput.apply(child)) {
                                    slice.seekToFirst();
                                    return BlockMergePlan.of(base, slice);
                                }
                            });
                }
                counters.childDecisions[d.ordinal()].increment();
                // A child whose file a checkpoint shares (a hard link) is never appended to:
                // it is rewritten into new tables instead, leaving the shared bytes as they are.
                rewrite[i] = d.rewrites() || tables.sharedWithCheckpoint(children.get(i).meta().fileNumber());
                if (!rewrite[i]) {
                    TableOptions options = new TableOptions(bases.get(i).footer().pageSize(),
                            tableOptions.bloomBitsPerKey(),
                            lastLevel ? LAST_LEVEL_BLOOM_RESERVE : MIDDLE_LEVEL_BLOOM_RESERVE)
                            .withLeafEncoding(tableOptions.leafEncoding(), tableOptions.restartInterval())
                            .withPrefixExtractor(tableOptions.prefixExtractor())
                            // The child keeps its own codec; only the (zstd) level is the store's.
                            .withCompression(bases.get(i).footer().compression(), tableOptions.compressionLevel())
                            .withParallelCompression(tableOptions.parallelCompression())
                            .withLz4Acceleration(tableOptions.lz4Acceleration());
                    inPlace.add(new BlockCompaction.Child(childFiles.get(i), bases.get(i), options));
                    int child = i;
                    inPlaceInputs.add(() -> sliceInput.apply(child));
                    inPlaceComponents.add(children.get(i));
                }
            }
            // Neighbouring rewritten children are rewritten together, so their output is cut as
            // one stream (no small remainder file per child).
            for (int i = 0; i < children.size(); i++) {
                if (rewrite[i]) {
                    int j = i;
                    while (j + 1 < children.size() && rewrite[j + 1]) {
                        j++;
                    }
                    InternalIterator groupInput;
                    if (kept != null) {
                        List<InternalEntry> entries = new ArrayList<>();
                        for (int k = i; k <= j; k++) {
                            entries.addAll(kept.get(k));
                        }
                        groupInput = new EntryListIterator(entries);
                    } else {
                        groupInput = input.get();
                    }
                    rewritten.addAll(rewriteChildren(task, children.subList(i, j + 1),
                            new BlockCompaction.Slice(slices.get(i).from(), slices.get(j).to()), groupInput,
                            bottommost, snaps));
                    i = j;
                }
            }
            List<BlockMergeResult> results = BlockCompaction.runEach(inPlace, inPlaceInputs,
                    () -> new VersionRetention(snaps, bottommost)::keep, blockPool);
            List<Component> fresh = new ArrayList<>();
            long bytes = 0;
            for (int i = 0; i < inPlace.size(); i++) {
                BlockMergeResult r = results.get(i);
                fresh.add(tables.open(ComponentMeta.of(inPlaceComponents.get(i).meta().fileNumber(), r.table(),
                        versions.newCreationOrder(), output.nowMillis())));
                bytes += r.bytesWritten();
            }
            counters.inPlaceBytes.add(bytes);
            for (Component c : rewritten) {
                bytes += c.meta().sizeBytes();
            }
            fresh.addAll(rewritten);
            List<Component> out = ComponentTimes.inherit(fresh, inputs);
            // Before the edit: the sweep that follows the old versions' release finds the files.
            obsolete.mergedInPlace(inPlaceComponents.stream().map(c -> c.meta().fileNumber()).toList());
            install(task, inputs, out, anchorRun, null, 0, 0);
            installed = true;
            return bytes;
        } finally {
            closeAll(handles);
            settle(rewritten, installed);
        }
    }

    /**
     * The entries of {@code parents} (closed here) split by key slice: list {@code i} holds
     * slice {@code i}'s entries in order (slices as {@link BlockCompaction#slices} gives them:
     * in key order, together covering every key).
     */
    private static List<List<InternalEntry>> keepBySlice(InternalIterator parents, List<BlockCompaction.Slice> slices)
            throws IOException {
        List<List<InternalEntry>> out = new ArrayList<>();
        for (int i = 0; i < slices.size(); i++) {
            out.add(new ArrayList<>());
        }
        try (parents) {
            int s = 0;
            for (parents.seekToFirst(); parents.valid(); parents.next()) {
                byte[] key = parents.key();
                while (s + 1 < slices.size() && InternalKeys.compareUserKeys(key, slices.get(s + 1).from()) >= 0) {
                    s++;
                }
                out.get(s).add(new InternalEntry(key, parents.seqno(), parents.type(), parents.value()));
            }
        }
        return out;
    }

    /**
     * Replaces the task's inputs by {@code out} at its placement (resolved for a consumed
     * or emptied anchor) in one version edit; with {@code flushed}, the edit also completes that flush.
     */
    private void install(MergeTask task, List<Component> inputs, List<Component> out, Layouts.RunAt anchorRun,
                         Component flushed, long nextSegment, long maxSeq) throws IOException {
        Set<ComponentId> removed = new HashSet<>(task.inputs());
        versions.logAndApply(base -> {
            List<List<Run>> levels = Layouts.apply(base, removed, out, Layouts.resolve(base, task.placement(),
                    anchorRun), versions::newRunId);
            Layouts.checkChange(base, inputs, out, levels);
            return new VersionSet.Change(levels, out, List.copyOf(task.inputs()),
                    base.flushCounter() + (flushed == null ? 0 : 1), policy.state(),
                    flushed == null ? 0 : nextSegment, flushed == null ? 0 : maxSeq);
        });
    }

    /** Closes read handles (and child handles whose pages were forced); a failure to close changes nothing. */
    private static void closeAll(List<PageFile> handles) {
        for (PageFile f : handles) {
            try {
                f.close();
            } catch (IOException ignored) {
                // Nothing to do: the data was read, or forced before the edit.
            }
        }
    }

    /**
     * Table compaction of neighbouring children of a block compaction: their entries merged
     * with the parents' entries of their slice ({@code parents}, closed here), written to new
     * tables cut by the task's output spec. The tables are not installed.
     */
    private List<Component> rewriteChildren(MergeTask task, List<Component> group, BlockCompaction.Slice slice,
                                            InternalIterator parents, boolean bottommost, long[] snaps)
            throws IOException {
        List<PageFile> files = new ArrayList<>();
        List<InternalIterator> its = new ArrayList<>();
        its.add(slice.of(parents));
        try {
            for (Component c : group) {
                PageFile f = io.open(tables.path(c.meta().fileNumber()), OpenMode.READ, IoPurpose.MERGE);
                files.add(f);
                its.add(SSTableReader.openForScan(f, c.id().footerOffset(), c.meta().fileNumber(), group.size())
                        .iterator());
            }
            try (MergingIterator merged = new MergingIterator(its)) {
                merged.seekToFirst();
                return output.write(merged, IoPurpose.MERGE, TableOutput.cutterFor(versions.current(), task),
                        new VersionRetention(snaps, bottommost), task.placement().level(), bottommost);
            }
        } finally {
            for (PageFile f : files) {
                f.close();
            }
        }
    }

    /** Deletes outputs that were not installed; marks installed ones as settled. */
    private void settle(List<Component> outputs, boolean installed) {
        if (!installed) {
            for (Component c : outputs) {
                obsolete.deleteUninstalled(c.meta().fileNumber());
            }
            return;
        }
        mutex.lock();
        try {
            for (Component c : outputs) {
                obsolete.settled(c.meta().fileNumber());
            }
        } finally {
            mutex.unlock();
        }
    }

    /**
     * Executes a {@link MergeMode#MOVE}: the inputs' files go to the task's placement by a
     * version edit alone; nothing is read or written but the manifest record.
     */
    private long move(MergeTask task, Layouts.RunAt anchorRun) throws IOException {
        Set<ComponentId> removed = new HashSet<>(task.inputs());
        versions.logAndApply(base -> {
            List<Component> moved = task.inputs().stream().map(base::find).toList();
            List<List<Run>> levels = Layouts.apply(base, removed, moved, Layouts.resolve(base, task.placement(),
                    anchorRun), versions::newRunId);
            Layouts.checkChange(base, moved, moved, levels);
            return new VersionSet.Change(levels, List.of(), List.of(), base.flushCounter(), policy.state(), 0, 0);
        });
        return 0;
    }

    /**
     * Merges {@code inputs} into new tables and installs them in place of the task's
     * inputs. With {@code flushed} set, this completes a flush: {@code flushed} (not in any
     * version) is among the inputs, and the edit also counts the flush and moves the log
     * number to {@code nextSegment} and the last sequence number to {@code maxSeq}.
     */
    long merge(MergeTask task, List<Component> inputs, boolean bottommost, long[] snaps,
               Component flushed, long nextSegment, long maxSeq, Layouts.RunAt anchorRun) throws IOException {
        if (flushed == null) {
            List<byte[]> bounds = subcompactionBounds(task, inputs);
            if (!bounds.isEmpty()) {
                return mergeInPieces(task, inputs, bottommost, snaps, anchorRun, bounds);
            }
        }
        List<Component> outputs = List.of();
        List<PageFile> handles = new ArrayList<>();
        boolean installed = false;
        try {
            List<InternalIterator> its = new ArrayList<>();
            List<RangeTombstones> tombstones = new ArrayList<>();
            for (Component c : inputs) {
                PageFile f = io.open(tables.path(c.meta().fileNumber()), OpenMode.READ, IoPurpose.MERGE);
                handles.add(f);
                SSTableReader r = SSTableReader.openForScan(f, c.id().footerOffset(), c.meta().fileNumber(),
                        inputs.size());
                its.add(r.iterator());
                tombstones.add(r.rangeTombstones());
            }
            MergingIterator merged = new MergingIterator(its);
            merged.seekToFirst();
            // A pure merge stops when the store closes; one carrying a flushed memtable runs to its end.
            InternalIterator input = flushed == null && mutex instanceof EngineMutex engineMutex
                    ? new StopOnCloseIterator(merged, engineMutex::closed) : merged;
            outputs = ComponentTimes.inherit(output.write(input, RangeTombstones.union(tombstones), IoPurpose.MERGE,
                    TableOutput.cutterFor(versions.current(), task), new VersionRetention(snaps, bottommost),
                    task.placement().level(), bottommost), inputs);
            install(task, inputs, outputs, anchorRun, flushed, nextSegment, maxSeq);
            installed = true;
            return totalBytes(outputs);
        } finally {
            closeAll(handles);
            settle(outputs, installed);
        }
    }

    /**
     * Where a rewrite of {@code inputs} is split into pieces merged in parallel
     * ({@link Subcompactions#boundaries}, at most {@link #subcompactions} pieces, each of at least
     * {@link Subcompactions#minPieceBytes} of the task's file size of input data); empty for a merge that runs whole: with subcompactions
     * off, an output spec without a file size (the policy asked for one file), or range
     * tombstones among the inputs (a tombstone spans pieces).
     */
    List<byte[]> subcompactionBounds(MergeTask task, List<Component> inputs) throws IOException {
        if (subcompactions <= 1 || task.output().maxFileBytes() == Long.MAX_VALUE || hasRangeTombstones(inputs)) {
            return List.of();
        }
        List<Subcompactions.Input> spans = new ArrayList<>();
        for (Component c : inputs) {
            dev.strata.lsm.sstable.TableFences fences;
            try {
                fences = c.reader().fences();
            } catch (IOException | RuntimeException e) {
                fences = dev.strata.lsm.sstable.TableFences.uniform(c.meta().minKey(), c.meta().maxKey());
            }
            spans.add(new Subcompactions.Input(c.meta().minKey(), c.meta().sizeBytes(), c.meta().entryCount(),
                    c.meta().userBytes(), fences));
        }
        return Subcompactions.boundaries(spans, subcompactions, Subcompactions.minPieceBytes(task.output().maxFileBytes()));
    }

    /**
     * A rewrite split into key-range pieces at {@code bounds} (RocksDB's subcompactions): piece
     * {@code i} merges the inputs' entries in [bound {@code i - 1}, bound {@code i}) into its own
     * tables, cut by the task's output spec; the first piece runs on this thread, the others on
     * the block-merge pool (their sub-tasks wait for nothing but the page compressors). Once
     * every piece has ended, the outputs of all, in key order, replace the inputs in one version
     * edit, as a whole merge's do; if any piece fails, every piece's outputs are deleted and
     * nothing is installed, so a crash or failure leaves the old version.
     */
    private long mergeInPieces(MergeTask task, List<Component> inputs, boolean bottommost, long[] snaps,
                               Layouts.RunAt anchorRun, List<byte[]> bounds) throws IOException {
        int n = bounds.size() + 1;
        List<PageFile> handles = new ArrayList<>();
        List<List<Component>> pieceOutputs = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            pieceOutputs.add(List.of());
        }
        List<Component> outputs = List.of();
        boolean installed = false;
        Version base = versions.current();
        try {
            List<PageFile> files = new ArrayList<>();
            for (Component c : inputs) {
                PageFile f = io.open(tables.path(c.meta().fileNumber()), OpenMode.READ, IoPurpose.MERGE);
                handles.add(f);
                files.add(f);
            }
            List<Callable<List<Component>>> pieces = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                byte[] from = i == 0 ? null : bounds.get(i - 1);
                byte[] to = i == n - 1 ? null : bounds.get(i);
                pieces.add(() -> mergePiece(task, inputs, files, from, to, base, bottommost, snaps));
            }
            List<Future<List<Component>>> futures = new ArrayList<>();
            for (int i = 1; i < n; i++) {
                FutureTask<List<Component>> f = new FutureTask<>(pieces.get(i));
                try {
                    blockPool.execute(f);
                } catch (RejectedExecutionException e) {
                    f.run(); // the pool is closing: run the piece here (its input stops on close)
                }
                futures.add(f);
            }
            Throwable failure = null;
            try {
                pieceOutputs.set(0, pieces.get(0).call());
            } catch (Throwable t) {
                failure = t;
            }
            boolean interrupted = false;
            for (int i = 1; i < n; i++) {
                Future<List<Component>> f = futures.get(i - 1);
                while (true) {
                    try {
                        pieceOutputs.set(i, f.get());
                        break;
                    } catch (ExecutionException e) {
                        failure = failure == null ? e.getCause() : failure;
                        break;
                    } catch (InterruptedException e) {
                        // Every piece must end before its outputs can be deleted or installed.
                        interrupted = true;
                    }
                }
            }
            if (interrupted) {
                Thread.currentThread().interrupt();
                failure = failure == null ? new IOException("interrupted while waiting for a subcompaction") : failure;
            }
            if (failure != null) {
                if (failure instanceof IOException io) {
                    throw io;
                }
                if (failure instanceof java.io.UncheckedIOException io) {
                    throw io.getCause();
                }
                if (failure instanceof RuntimeException re) {
                    throw re;
                }
                if (failure instanceof Error err) {
                    throw err;
                }
                throw new IOException("a subcompaction failed", failure);
            }
            List<Component> all = new ArrayList<>();
            for (List<Component> p : pieceOutputs) {
                all.addAll(p);
            }
            outputs = ComponentTimes.inherit(all, inputs);
            install(task, inputs, outputs, anchorRun, null, 0, 0);
            installed = true;
            return totalBytes(outputs);
        } finally {
            closeAll(handles);
            if (installed) {
                settle(outputs, true);
            } else {
                for (List<Component> p : pieceOutputs) {
                    settle(p, false);
                }
            }
        }
    }

    /**
     * One piece of {@link #mergeInPieces}: the entries of the inputs overlapping [{@code from},
     * {@code to}) (null: open) merged into new tables, not installed. Reads through its own
     * readers of the shared file handles (reads are positional).
     */
    private List<Component> mergePiece(MergeTask task, List<Component> inputs, List<PageFile> files, byte[] from,
                                       byte[] to, Version base, boolean bottommost, long[] snaps) throws IOException {
        List<InternalIterator> its = new ArrayList<>();
        int reading = 0;
        for (Component c : inputs) {
            if (overlaps(c, from, to)) {
                reading++;
            }
        }
        for (int i = 0; i < inputs.size(); i++) {
            Component c = inputs.get(i);
            if (overlaps(c, from, to)) {
                its.add(SSTableReader.openForScan(files.get(i), c.id().footerOffset(), c.meta().fileNumber(),
                        Math.max(1, reading) * subcompactions).iterator());
            }
        }
        try (InternalIterator slice = new dev.strata.lsm.blockmerge.KeySliceIterator(new MergingIterator(its), from, to)) {
            slice.seekToFirst();
            InternalIterator input = mutex instanceof EngineMutex engineMutex
                    ? new StopOnCloseIterator(slice, engineMutex::closed) : slice;
            return output.write(input, IoPurpose.MERGE, TableOutput.cutterFor(base, task),
                    new VersionRetention(snaps, bottommost), task.placement().level(), bottommost);
        }
    }

    /** The bytes of {@code tables}' files. */
    private static long totalBytes(List<Component> tables) {
        long bytes = 0;
        for (Component c : tables) {
            bytes += c.meta().sizeBytes();
        }
        return bytes;
    }

    /** Whether {@code c}'s keys may lie in [{@code from}, {@code to}) (null: open). */
    private static boolean overlaps(Component c, byte[] from, byte[] to) {
        return (from == null || InternalKeys.compareUserKeys(c.meta().maxKey(), from) >= 0)
                && (to == null || InternalKeys.compareUserKeys(c.meta().minKey(), to) < 0);
    }
}
