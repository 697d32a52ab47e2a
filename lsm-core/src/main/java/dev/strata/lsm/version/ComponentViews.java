package dev.strata.lsm.version;

import dev.strata.lsm.policy.ComponentId;
import dev.strata.lsm.policy.ComponentView;
import dev.strata.lsm.policy.LevelView;
import dev.strata.lsm.policy.TreeView;

import java.util.List;
import java.util.function.Predicate;

/** Builds the policy's views ({@link ComponentView}, levels, range estimator) of a {@link Version}. */
public final class ComponentViews {
    private ComponentViews() {
    }

    /**
     * The policy's view of one component: its durable metadata (sizes, keys, seqnos,
     * creation and oldest-tombstone times), the bytes of its file, and its read counters.
     */
    public static ComponentView of(Component c, boolean busy) {
        ComponentMeta m = c.meta();
        return ComponentView.builder(m.id()).sizeBytes(m.sizeBytes()).physicalBytes(c.physicalBytes())
                .entries(m.entryCount(), m.tombstoneCount()).userBytes(m.userBytes())
                .keyRange(m.minKey(), m.maxKey()).seqnos(m.minSeqno(), m.maxSeqno())
                .creation(m.creationOrder(), m.creationTimeMillis()).oldestTombstoneMillis(m.oldestTombstoneMillis())
                .access(c.reads().reads(), c.reads().lastAccessMillis()).busy(busy).build();
    }

    /**
     * The policy's view of a flush written as {@code tables} (adjacent in key order, at least
     * one): one table's view if there is one; else the first table's id, the tables' summed
     * sizes and counts, their whole key range, sequence numbers and times, not busy.
     */
    public static ComponentView ofFlush(List<Component> tables) {
        if (tables.size() == 1) {
            return of(tables.get(0), false);
        }
        ComponentMeta first = tables.get(0).meta();
        long size = 0, physical = 0, entries = 0, tombstones = 0, user = 0;
        long minSeq = Long.MAX_VALUE, maxSeq = Long.MIN_VALUE, created = 0;
        long oldestTombstone = ComponentView.NO_TOMBSTONE;
        for (Component c : tables) {
            ComponentMeta m = c.meta();
            size += m.sizeBytes();
            physical += c.physicalBytes();
            entries += m.entryCount();
            tombstones += m.tombstoneCount();
            user += m.userBytes();
            minSeq = Math.min(minSeq, m.minSeqno());
            maxSeq = Math.max(maxSeq, m.maxSeqno());
            created = Math.max(created, m.creationTimeMillis());
            oldestTombstone = Math.min(oldestTombstone, m.oldestTombstoneMillis()); // 0 (unknown) wins
        }
        return ComponentView.builder(first.id()).sizeBytes(size).physicalBytes(physical).entries(entries, tombstones)
                .userBytes(user).keyRange(first.minKey(), tables.get(tables.size() - 1).meta().maxKey())
                .seqnos(minSeq, maxSeq).creation(first.creationOrder(), created).oldestTombstoneMillis(oldestTombstone)
                .busy(false).build();
    }

    /** The levels of {@code v} as the policy sees them, components in {@code busy} marked busy. */
    public static List<LevelView> levels(Version v, Predicate<ComponentId> busy) {
        return LevelView.levelsOf(v.levels(), Run::components, c -> of(c, busy.test(c.id())));
    }

    /**
     * The range estimator for views of {@code v} (and of {@code extra} components not in it,
     * such as a table being flushed): from each table's interior-page fences.
     */
    public static TreeView.RangeEstimator estimator(Version v, Component... extra) {
        return new FenceRangeEstimator(v, List.of(extra));
    }
}
