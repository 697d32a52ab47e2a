package dev.strata.lsm.engine;

import dev.strata.lsm.cache.BlockCache;
import dev.strata.lsm.io.IoPurpose;
import dev.strata.lsm.io.OpenMode;
import dev.strata.lsm.io.PageFile;
import dev.strata.lsm.io.StorageIO;
import dev.strata.lsm.merge.MergingIterator;
import dev.strata.lsm.merge.VersionRetention;
import dev.strata.lsm.policy.ComponentId;
import dev.strata.lsm.policy.MergeMode;
import dev.strata.lsm.policy.MergeTask;
import dev.strata.lsm.sstable.InternalIterator;
import dev.strata.lsm.sstable.SSTableReader;
import dev.strata.lsm.version.Component;
import dev.strata.lsm.version.ComponentTimes;
import dev.strata.lsm.version.Run;
import dev.strata.lsm.version.TableFiles;
import dev.strata.lsm.version.VersionSet;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Executes one merge task (LevelDB's {@code DoCompactionWork}, Pebble's compaction): a
 * {@link MergeMode#MOVE} by a version edit alone; a {@link MergeMode#REWRITE} by merging the
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

    MergeJob(StorageIO io, TableFiles tables, VersionSet versions, TableOutput output, ObsoleteFiles obsolete,
             PolicyBridge policy, ReentrantLock mutex) {
        this.io = io;
        this.tables = tables;
        this.versions = versions;
        this.output = output;
        this.obsolete = obsolete;
        this.policy = policy;
        this.mutex = mutex;
    }

    /** Runs {@code task} on {@code inputs}; returns the bytes written (0 for a move). */
    long run(MergeTask task, List<Component> inputs, boolean bottommost, long[] snaps) throws IOException {
        versions.ensureIntactTail(); // no new tables while a crash would leave a torn manifest
        return task.mode() == MergeMode.MOVE ? move(task) : merge(task, inputs, bottommost, snaps, null, 0, 0);
    }

    /**
     * Executes a {@link MergeMode#MOVE}: the inputs' files go to the task's placement by a
     * version edit alone; nothing is read or written but the manifest record.
     */
    private long move(MergeTask task) throws IOException {
        Set<ComponentId> removed = new HashSet<>(task.inputs());
        versions.logAndApply(base -> {
            List<Component> moved = task.inputs().stream().map(base::find).toList();
            List<List<Run>> levels = Layouts.apply(base, removed, moved, task.placement(), versions::newRunId);
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
               Component flushed, long nextSegment, long maxSeq) throws IOException {
        List<Component> outputs = List.of();
        List<PageFile> handles = new ArrayList<>();
        boolean installed = false;
        try {
            List<InternalIterator> its = new ArrayList<>();
            for (Component c : inputs) {
                PageFile f = io.open(tables.path(c.meta().fileNumber()), OpenMode.READ, IoPurpose.MERGE);
                handles.add(f);
                its.add(SSTableReader.open(f, c.id().footerOffset(), c.meta().fileNumber(), BlockCache.disabled())
                        .iterator());
            }
            MergingIterator merged = new MergingIterator(its);
            merged.seekToFirst();
            outputs = ComponentTimes.inherit(output.write(merged, IoPurpose.MERGE,
                    TableOutput.cutterFor(versions.current(), task), new VersionRetention(snaps, bottommost)), inputs);
            List<Component> out = outputs;
            Set<ComponentId> removed = new HashSet<>(task.inputs());
            versions.logAndApply(base -> {
                List<List<Run>> levels = Layouts.apply(base, removed, out, task.placement(), versions::newRunId);
                Layouts.checkChange(base, inputs, out, levels);
                return new VersionSet.Change(levels, out, List.copyOf(task.inputs()),
                        base.flushCounter() + (flushed == null ? 0 : 1), policy.state(),
                        flushed == null ? 0 : nextSegment, flushed == null ? 0 : maxSeq);
            });
            installed = true;
            long bytes = 0;
            for (Component c : out) {
                bytes += c.meta().sizeBytes();
            }
            return bytes;
        } finally {
            for (PageFile f : handles) {
                try {
                    f.close();
                } catch (IOException ignored) {
                    // Read handle.
                }
            }
            if (!installed) {
                for (Component c : outputs) {
                    obsolete.deleteUninstalled(c.meta().fileNumber());
                }
            } else {
                mutex.lock();
                try {
                    for (Component c : outputs) {
                        obsolete.settled(c.meta().fileNumber());
                    }
                } finally {
                    mutex.unlock();
                }
            }
        }
    }
}
