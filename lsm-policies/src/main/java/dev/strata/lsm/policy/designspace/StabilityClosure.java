package dev.strata.lsm.policy.designspace;

import dev.strata.lsm.policy.ComponentId;
import dev.strata.lsm.policy.ComponentView;
import dev.strata.lsm.policy.LevelView;
import dev.strata.lsm.policy.Placement;
import dev.strata.lsm.policy.RunView;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Widens a merge's inputs until its output is stable where it lands, judged as the engine
 * judges it ({@code Layouts.checkChange}) for one stand-in spanning every input's keys and
 * sequence numbers: it overlaps nothing else in its own run, and for every overlapping
 * component elsewhere either the sequence ranges are ordered as the positions will be, or
 * every input overlapping that component lay on the side of it the output will. (An earlier
 * rule compared sequence ranges only; a file moved down left siblings with its sequence range
 * one level up, and every merge into their run then pulled the moved file back up: the
 * key-range simulator showed leveled presets moving hundreds of files per flush.)
 *
 * <p>Partial compaction breaks that when it is not widened (found by the policy conformance
 * suite): moving one file of a run down leaves its siblings, written by the same merge and
 * so sharing its sequence range, one level up; a later merge into that run whose key span
 * reaches over the moved file then holds older data than it, and the engine rejects it at
 * every flush. Taking every such conflicting component into the merge (repeatedly, as the
 * span grows) is what makes the merge stable; it is usually a no-op.
 */
final class StabilityClosure {
    private StabilityClosure() {
    }

    /**
     * {@code inputs} followed by every component the merge must also take to land stably at
     * {@code placement}, or null when one of those is taken (busy or claimed this round).
     */
    static List<ComponentView> close(TreeShape t, List<ComponentView> inputs, Placement placement) {
        Map<ComponentId, Integer> runOrdinal = new HashMap<>();
        List<ComponentView> all = new ArrayList<>();
        int[] firstRunOfLevel = new int[t.tree.levels().size() + 1];
        int ordinal = 0;
        for (LevelView level : t.tree.levels()) {
            firstRunOfLevel[level.index()] = ordinal;
            for (RunView run : level.runs()) {
                for (ComponentView c : run.components()) {
                    runOrdinal.put(c.id(), ordinal);
                    all.add(c);
                }
                ordinal++;
            }
        }
        firstRunOfLevel[t.tree.levels().size()] = ordinal;
        // Positions are doubled so a new run can sit between two existing ones.
        int target = targetPosition(t, placement, runOrdinal, firstRunOfLevel, ordinal);
        Set<ComponentId> taken = new HashSet<>();
        for (ComponentView c : inputs) {
            taken.add(c.id());
        }
        List<ComponentView> out = new ArrayList<>(inputs);
        boolean widened = true;
        while (widened) {
            widened = false;
            byte[] min = TreeShape.minKey(out);
            byte[] max = TreeShape.maxKey(out);
            long lo = Long.MAX_VALUE;
            long hi = Long.MIN_VALUE;
            for (ComponentView c : out) {
                lo = Math.min(lo, c.minSeqno());
                hi = Math.max(hi, c.maxSeqno());
            }
            for (ComponentView c : all) {
                if (taken.contains(c.id()) || !c.overlaps(min, max)) {
                    continue;
                }
                int position = 2 * runOrdinal.get(c.id());
                boolean conflict = position == target || !stable(out, c, position, target, runOrdinal, lo, hi);
                if (conflict) {
                    if (!t.free(c)) {
                        return null;
                    }
                    taken.add(c.id());
                    out.add(c);
                    widened = true;
                }
            }
        }
        return out;
    }

    /**
     * The engine's rule for a component {@code c} overlapping the output: fine when the
     * sequence ranges are ordered as the positions will be, or when every input overlapping
     * {@code c} lay on the side of it the output will (a merge keeps each key's order).
     */
    private static boolean stable(List<ComponentView> inputs, ComponentView c, int position, int target,
                                  Map<ComponentId, Integer> runOrdinal, long lo, long hi) {
        boolean outputNewer = target < position;
        if (outputNewer ? lo > c.maxSeqno() : hi < c.minSeqno()) {
            return true;
        }
        for (ComponentView i : inputs) {
            if (i.overlaps(c.minKey(), c.maxKey()) && (2 * runOrdinal.get(i.id()) < position) != outputNewer) {
                return false;
            }
        }
        return true;
    }

    private static int targetPosition(TreeShape t, Placement p, Map<ComponentId, Integer> runOrdinal,
                                      int[] firstRunOfLevel, int runs) {
        int level = Math.min(p.level(), t.tree.levels().size());
        return switch (p.kind()) {
            case INTO_RUN_OF -> 2 * runOrdinal.get(p.anchor());
            case NEW_RUN_NEWEST -> 2 * firstRunOfLevel[level] - 1;
            case NEW_RUN_OLDEST -> 2 * (level + 1 < firstRunOfLevel.length ? firstRunOfLevel[level + 1] : runs) - 1;
        };
    }
}
