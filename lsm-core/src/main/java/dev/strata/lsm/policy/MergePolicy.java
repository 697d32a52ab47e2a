package dev.strata.lsm.policy;

import java.util.List;

/**
 * Decision logic over tree metadata, and nothing else: a policy reads a {@link TreeView}
 * and answers where a flush lands, which merges to run, and whether writes may go on. It
 * performs no IO and holds no reference to the engine, so the same object runs in the
 * store and in the simulator. The engine calls it after every flush, after every merge and
 * on a periodic tick (so time-based triggers fire on an idle store), from one thread at a
 * time and never while holding the write path's lock. An exception thrown by a policy, or
 * a decision the engine rejects, is a policy error: logged, counted in
 * {@code StoreStats.policyErrors()}, and the decision is not executed.
 */
public interface MergePolicy {

    /**
     * Where the next flushed memtable lands. The default puts it in a new newest run of
     * level 0, which is always stable.
     *
     * @param tree the tree before the flush lands
     * @return where the flushed table lands
     */
    default Placement placeFlush(TreeView tree) {
        return Placement.newRun(0);
    }

    /**
     * What to do with a flushed memtable, given the tree before it lands and the flushed
     * table itself (its size, keys and sequence numbers). The default makes it a new
     * component at {@link #placeFlush}. Eager stack-based policies merge it with the newest
     * components here.
     *
     * @param tree the tree before the flush lands
     * @param flushed the flushed table (one component even when it was written as several tables)
     * @return the plan the engine carries out, or rejects as a policy error
     */
    default FlushPlan planFlush(TreeView tree, ComponentView flushed) {
        return FlushPlan.newComponent(placeFlush(tree), "");
    }

    /**
     * The most bytes of one table a flush writes (FlushPlan's output spec cuts only a flush
     * that merges). A memtable holding more is written as several tables adjacent in key
     * order; {@link #planFlush} sees them as one flushed component (the first table's id,
     * their summed sizes and counts, their whole key range), and they land together, as one
     * run at the plan's placement or, when the plan merges the flush, all among the merge's
     * inputs. Asked before each flush is written; the default, {@link Long#MAX_VALUE}, writes
     * one table per flush. A store's atomic flush of several families writes one table per
     * family whatever this says. A value below 1 is a policy error (one table is written).
     *
     * @return the most bytes of one flushed table, at least 1
     */
    default long flushTableBytes() {
        return Long.MAX_VALUE;
    }

    /**
     * Merges to start now. Components marked busy are already being merged (see
     * {@link TreeView#runningMerges()}) and must not be used. Returning tasks whose inputs
     * overlap, that break the stability invariant, or whose mode the engine cannot execute
     * is a policy error.
     *
     * @param tree the tree now, with the running merges' inputs marked busy
     * @return the merges to start, possibly empty
     */
    List<MergeTask> pickMerges(TreeView tree);

    /**
     * The merges that carry out a manual compaction of the keys in [{@code from}, {@code to})
     * ({@code null} bounds are open), asked by {@code LsmStore.compactRange} once the memtable
     * is flushed and no merge runs; the store runs them and returns when they are done. The
     * engine validates them like {@link #pickMerges} tasks. The default is
     * {@link ManualCompaction#intoDeepestLevel}: one rewrite of every component overlapping the
     * range (and, transitively, every component overlapping those, so that the output overlaps
     * nothing left behind) into the deepest run they occupy. A policy whose layout that would
     * upset may shape the plan; an empty list does nothing.
     *
     * @param tree the tree after the flush, with no merge running
     * @param from the first key of the range, inclusive, or null for no lower bound
     * @param to the end of the range, exclusive, or null for no upper bound
     * @return the merges to run, possibly empty
     */
    default List<MergeTask> planCompaction(TreeView tree, byte[] from, byte[] to) {
        return ManualCompaction.intoDeepestLevel(tree, from, to);
    }

    /**
     * Where tables bulk-ingested by {@code LsmStore.ingest} land, given the tree and the
     * tables (which overlap each other nowhere and hold data newer than every component).
     * The default is {@link IngestPlacement#deepestFree}: the deepest level such that nothing
     * in it or above it overlaps them. A placement the engine cannot use (one that would
     * put them below a component they overlap) is a policy error, and the tables then become
     * a new newest run of level 0.
     *
     * @param tree the tree before the tables land
     * @param tables the ingested tables, as components
     * @return where the tables land
     */
    default Placement placeIngest(TreeView tree, List<ComponentView> tables) {
        return IngestPlacement.deepestFree(tree, tables);
    }

    /**
     * Whether writers may continue. Asked before each flush would be started and after
     * every merge.
     *
     * @param tree the tree now
     * @return whether writers proceed, are slowed or stop
     */
    default WriteAdmission admission(TreeView tree) {
        return WriteAdmission.GO;
    }

    /**
     * How deep into its slowdown band the tree is, asked with {@link #admission} and used only
     * while that answers {@link WriteAdmission#SLOW_DOWN}: 0 where the band starts (writers get
     * the store's delayed write rate) up to 1 at the stop (they get the slowest rate, 1/64 of
     * it; see {@code StoreConfig.delayedWriteRate()}). A policy with a slowdown threshold and a
     * stop threshold answers how far the tree is from the first towards the second, so writers
     * slow down more as the tree nears the stop and speed up again as it drains. Values below
     * 0 count as 0, above 1 as 1, and NaN as 0. The default, 0, paces every slowdown at the
     * delayed write rate.
     *
     * @param tree the tree now (the view {@link #admission} was asked about)
     * @return from 0 (the band's start) to 1 (at the stop)
     */
    default double slowdownDepth(TreeView tree) {
        return 0.0;
    }

    /**
     * Small state to persist in the manifest with the next version (for example a schedule
     * position); return {@code tree.policyState()} to keep it unchanged. Kept small: it is
     * written with every version edit.
     *
     * @param tree the tree the next version holds, with the state last persisted
     * @return the bytes to persist (empty for none)
     */
    default byte[] persistentState(TreeView tree) {
        return tree.policyState();
    }
}
