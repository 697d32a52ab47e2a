package dev.strata.lsm.blockmerge;

import dev.strata.lsm.io.PageFile;
import dev.strata.lsm.sstable.BlockMergeResult;
import dev.strata.lsm.sstable.BlockMergeWriter;
import dev.strata.lsm.sstable.InternalIterator;
import dev.strata.lsm.sstable.InternalKeys;
import dev.strata.lsm.sstable.SSTableReader;
import dev.strata.lsm.sstable.TableOptions;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.function.Supplier;

/**
 * One block compaction (BlockDB, FAMILIES.md 2.2 and 2.4): the entries of the parent input
 * merged in place into each overlapped child table, one sub-task per child, run by a pool.
 * The key space is cut at the children's smallest keys: child {@code i} receives the input
 * keys in {@code [min(child i), min(child i+1))}, the first child also every key below it
 * and the last child every key above it, so every input entry goes to exactly one child and
 * keys between two children are appended to the left one (as new leaves after its last).
 * The sub-tasks share nothing, so the bytes written do not depend on the pool's size or
 * order. Each child's file is forced before its result is returned; the caller makes the new
 * footers live (manifest) only after all sub-tasks succeed.
 */
public final class BlockCompaction {
    private BlockCompaction() {
    }

    /**
     * One overlapped child table.
     *
     * @param file the child's file, opened for reading and writing
     * @param table the child's live version, read from {@code file}
     * @param options options of the new version (page size as the table's; the bloom reserve of the child's level)
     */
    public record Child(PageFile file, SSTableReader table, TableOptions options) {
    }

    /**
     * Merges the input into every child.
     *
     * @param children the overlapped child tables in key order, key ranges disjoint
     * @param input opens a new iterator over the whole parent input (called once per child)
     * @param retention a new retention rule per child (rules such as
     *     {@code VersionRetention} keep state)
     * @param pool runs the sub-tasks; a direct executor runs them one after another
     * @return the results in the order of {@code children}
     * @throws IllegalArgumentException if the children are not in key order or overlap
     * @throws IOException the first sub-task's failure (the others still run to their end)
     */
    public static List<BlockMergeResult> run(List<Child> children, Supplier<InternalIterator> input,
                                             Supplier<BlockMergeWriter.Retention> retention, ExecutorService pool)
            throws IOException {
        return run(children, slices(children.stream().map(Child::table).toList()), input, retention, pool);
    }

    /**
     * The part of the key space each child receives: {@code [min(child i), min(child i+1))},
     * unbounded below for the first and above for the last.
     *
     * @param children tables in key order, key ranges disjoint
     * @throws IllegalArgumentException if they are not in key order or overlap
     */
    public static List<Slice> slices(List<SSTableReader> children) {
        for (int i = 1; i < children.size(); i++) {
            byte[] prevMax = children.get(i - 1).footer().maxKey();
            byte[] min = children.get(i).footer().minKey();
            if (InternalKeys.compareUserKeys(prevMax, min) >= 0) {
                throw new IllegalArgumentException("children of a block compaction must be in key order without overlap: "
                        + children.get(i - 1).path() + " ends at " + InternalKeys.describe(prevMax) + ", "
                        + children.get(i).path() + " starts at " + InternalKeys.describe(min));
            }
        }
        List<Slice> out = new ArrayList<>();
        for (int i = 0; i < children.size(); i++) {
            out.add(new Slice(i == 0 ? null : children.get(i).footer().minKey(),
                    i == children.size() - 1 ? null : children.get(i + 1).footer().minKey()));
        }
        return out;
    }

    /**
     * A part of the key space: user keys in {@code [from, to)}; null bounds are open.
     *
     * @param from smallest user key, or null
     * @param to user key past the last, or null
     */
    public record Slice(byte[] from, byte[] to) {
        /** The entries of {@code in} in this slice (positioned by the caller's {@code seekToFirst}). */
        public InternalIterator of(InternalIterator in) {
            return new KeySliceIterator(in, from, to);
        }
    }

    /**
     * Merges into each child the input entries of its slice (slices as {@link #slices} gives
     * them for every child of the merge; a subset of children keeps its neighbours' slices).
     */
    public static List<BlockMergeResult> run(List<Child> children, List<Slice> slices, Supplier<InternalIterator> input,
                                             Supplier<BlockMergeWriter.Retention> retention, ExecutorService pool)
            throws IOException {
        if (slices.size() != children.size()) {
            throw new IllegalArgumentException(children.size() + " children but " + slices.size() + " slices");
        }
        List<Supplier<InternalIterator>> inputs = new ArrayList<>();
        for (Slice slice : slices) {
            inputs.add(() -> slice.of(input.get()));
        }
        return runEach(children, inputs, retention, pool);
    }

    /**
     * Merges into each child the entries its own input gives ({@code inputs.get(i)} opens a
     * new iterator over child {@code i}'s slice of the parents, positioned by the caller's
     * {@code seekToFirst}), as {@link #run(List, List, Supplier, Supplier, ExecutorService)}
     * does for a caller that already split the parents' entries.
     */
    public static List<BlockMergeResult> runEach(List<Child> children, List<Supplier<InternalIterator>> inputs,
                                                 Supplier<BlockMergeWriter.Retention> retention, ExecutorService pool)
            throws IOException {
        if (inputs.size() != children.size()) {
            throw new IllegalArgumentException(children.size() + " children but " + inputs.size() + " inputs");
        }
        List<Future<BlockMergeResult>> futures = new ArrayList<>();
        for (int i = 0; i < children.size(); i++) {
            Child child = children.get(i);
            Supplier<InternalIterator> input = inputs.get(i);
            Callable<BlockMergeResult> task = () -> {
                try (InternalIterator in = input.get()) {
                    in.seekToFirst();
                    BlockMergeResult r = BlockMergeWriter.merge(child.file(), child.table(), child.options(), in,
                            retention.get());
                    child.file().force(true);
                    return r;
                }
            };
            futures.add(pool.submit(task));
        }
        List<BlockMergeResult> results = new ArrayList<>();
        Throwable failure = null;
        for (Future<BlockMergeResult> f : futures) {
            try {
                results.add(f.get());
            } catch (ExecutionException e) {
                failure = failure == null ? e.getCause() : failure;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted while waiting for a block compaction sub-task", e);
            }
        }
        if (failure instanceof IOException io) {
            throw io;
        }
        if (failure instanceof UncheckedIOException io) {
            throw io.getCause();
        }
        if (failure instanceof RuntimeException re) {
            throw re;
        }
        if (failure instanceof Error err) {
            throw err;
        }
        if (failure != null) {
            throw new IOException("block compaction sub-task failed", failure);
        }
        return results;
    }
}
