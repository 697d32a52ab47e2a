package dev.strata.lsm.engine;

import dev.strata.lsm.policy.ComponentId;
import dev.strata.lsm.policy.MergeMode;
import dev.strata.lsm.policy.MergeTask;
import dev.strata.lsm.policy.Placement;
import dev.strata.lsm.version.Component;
import dev.strata.lsm.version.ComponentMeta;
import dev.strata.lsm.version.Version;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The one check of a policy's merge task against a version, for merges the policy picks
 * and for those a flush plan asks for: a mode the engine executes, an output spec it can
 * evaluate there, inputs that exist and no other merge holds, a usable placement anchor,
 * and a result that keeps the stability invariant ({@link Layouts#checkChange}, with one
 * stand-in spanning the inputs' keys and sequence numbers as the output). A task that fails
 * is a policy error: the caller counts and logs it and runs nothing of it.
 */
final class TaskValidation {
    private TaskValidation() {
    }

    /**
     * Why {@code task} cannot run on {@code v}, or null.
     *
     * @param flushed a flushed table (in no version) the task merges too, or null
     * @param busy inputs of running merges
     * @param claimed inputs of tasks accepted in the same decision
     */
    static String problem(Version v, MergeTask task, Component flushed, Set<ComponentId> busy,
                          Set<ComponentId> claimed) {
        if (task.mode() == MergeMode.REUSE_BLOCKS) {
            return "mode REUSE_BLOCKS (block compaction) is not executed by this engine yet; ask for REWRITE";
        }
        if (flushed != null && task.mode() != MergeMode.REWRITE) {
            return "a flush can only be merged by REWRITE, not " + task.mode();
        }
        try {
            TableOutput.cutterFor(v, task);
        } catch (IllegalArgumentException e) {
            return "its output spec cannot be evaluated at L" + task.placement().level() + ": " + e.getMessage();
        }
        for (ComponentId id : task.inputs()) {
            if (v.find(id) == null) {
                return "input " + id + " does not exist";
            }
            if (busy.contains(id) || claimed.contains(id)) {
                return "input " + id + " is already being merged";
            }
        }
        Placement p = task.placement();
        if (p.kind() == Placement.Kind.INTO_RUN_OF) {
            Component anchor = v.find(p.anchor());
            if (anchor == null) {
                return "placement anchor " + p.anchor() + " does not exist";
            }
            if (!task.inputs().contains(p.anchor()) && (busy.contains(p.anchor()) || claimed.contains(p.anchor()))) {
                return "placement anchor " + p.anchor() + " is being merged by another task";
            }
        }
        List<Component> stand = new ArrayList<>(task.inputs().stream().map(v::find).toList());
        if (flushed != null) {
            stand.add(flushed);
        }
        if (stand.isEmpty()) {
            return "the task has no inputs";
        }
        try {
            List<Component> outputs = task.mode() == MergeMode.MOVE ? stand : List.of(standIn(stand));
            Layouts.checkChange(v, stand, outputs, Layouts.apply(v, new HashSet<>(task.inputs()), outputs, p, () -> -1));
        } catch (Layouts.PolicyError e) {
            return e.getMessage();
        }
        return null;
    }

    /** A stand-in component spanning the key and seqno ranges of several, for validation only. */
    private static Component standIn(List<Component> parts) {
        ComponentMeta first = parts.get(0).meta();
        byte[] min = parts.stream().map(c -> c.meta().minKey()).min(Arrays::compareUnsigned).orElseThrow();
        byte[] max = parts.stream().map(c -> c.meta().maxKey()).max(Arrays::compareUnsigned).orElseThrow();
        long minSeq = parts.stream().mapToLong(c -> c.meta().minSeqno()).min().orElseThrow();
        long maxSeq = parts.stream().mapToLong(c -> c.meta().maxSeqno()).max().orElseThrow();
        return new Component(new ComponentMeta(first.id(), 0, 0, 0, 0, min, max, minSeq, maxSeq, 0), null);
    }
}
