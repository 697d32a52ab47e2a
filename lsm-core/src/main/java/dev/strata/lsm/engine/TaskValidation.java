package dev.strata.lsm.engine;

import dev.strata.lsm.policy.ComponentId;
import dev.strata.lsm.policy.MergeMode;
import dev.strata.lsm.policy.MergeTask;
import dev.strata.lsm.policy.OutputSpec;
import dev.strata.lsm.policy.Placement;
import dev.strata.lsm.version.Component;
import dev.strata.lsm.version.ComponentMeta;
import dev.strata.lsm.version.Run;
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
     * @param flushed the tables of a flush (in no version) the task merges too; empty for none
     * @param busy inputs of running merges
     * @param claimed inputs of tasks accepted in the same decision
     * @param anchored placement anchors (not inputs) of running merges and of tasks accepted in
     *     the same decision: a task may anchor on one but not consume it
     */
    static String problem(Version v, MergeTask task, List<Component> flushed, Set<ComponentId> busy,
                          Set<ComponentId> claimed, Set<ComponentId> anchored) {
        if (!flushed.isEmpty() && task.mode() != MergeMode.REWRITE) {
            return "a flush can only be merged by REWRITE, not " + task.mode();
        }
        if (task.mode() == MergeMode.REUSE_BLOCKS) {
            String problem = reuseBlocksProblem(v, task);
            if (problem != null) {
                return problem;
            }
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
            if (anchored.contains(id)) {
                return "input " + id + " is the placement anchor of another merge, which would find its run gone";
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
        stand.addAll(flushed);
        if (stand.isEmpty()) {
            return "the task has no inputs";
        }
        try {
            List<Component> outputs = task.mode() == MergeMode.MOVE ? stand : standIns(stand, task.output().cutKeys());
            Layouts.checkChange(v, stand, outputs, Layouts.apply(v, new HashSet<>(task.inputs()), outputs, p, () -> -1));
        } catch (Layouts.PolicyError e) {
            return e.getMessage();
        }
        return null;
    }

    /**
     * What a {@link MergeMode#REUSE_BLOCKS} task needs beyond a rewrite's checks: it merges
     * the entries of its other inputs (the parents) in place into the inputs that lie in the
     * placement's target run (the children), whose files it extends; so the placement must
     * be {@code INTO_RUN_OF}, the output spec {@link OutputSpec#singleFile()} unless selective
     * thresholds may rewrite some children (else the children keep their files), there
     * must be parents and children, and every child must be a table
     * whose leaves carry summaries (format 2). That no other component of the target run
     * overlaps the parents is the stability check's part.
     */
    private static String reuseBlocksProblem(Version v, MergeTask task) {
        Placement p = task.placement();
        if (p.kind() != Placement.Kind.INTO_RUN_OF) {
            return "REUSE_BLOCKS merges into tables of an existing run: its placement must be INTO_RUN_OF, not "
                    + p.kind();
        }
        if (task.selective() == null && !task.output().equals(OutputSpec.singleFile())) {
            return "REUSE_BLOCKS without selective thresholds keeps every target table's file: its output spec must "
                    + "be singleFile(), not " + task.output();
        }
        Set<ComponentId> run = targetRun(v, p);
        if (run.isEmpty()) {
            return null; // the anchor check below names the problem
        }
        int children = 0;
        for (ComponentId id : task.inputs()) {
            if (run.contains(id)) {
                children++;
                Component c = v.find(id);
                if (c != null && c.reader() != null && !c.reader().footer().hasLeafSummaries()) {
                    return "input " + id + " is a format-1 table, which cannot be merged in place";
                }
            }
        }
        if (children == 0) {
            return "REUSE_BLOCKS needs inputs in the target run to merge into; none of the inputs is there"
                    + " (a file that overlaps nothing there moves by MOVE)";
        }
        if (children == task.inputs().size()) {
            return "REUSE_BLOCKS needs inputs outside the target run to merge in; every input is in it";
        }
        return null;
    }

    /** The components of the run the {@code INTO_RUN_OF} placement {@code p} names; empty if there is none. */
    static Set<ComponentId> targetRun(Version v, Placement p) {
        if (p.level() < v.levels().size()) {
            for (Run r : v.levels().get(p.level())) {
                Set<ComponentId> ids = new HashSet<>();
                boolean hit = false;
                for (Component c : r.components()) {
                    ids.add(c.id());
                    hit |= c.id().equals(p.anchor());
                }
                if (hit) {
                    return ids;
                }
            }
        }
        return Set.of();
    }

    /**
     * Stand-ins for the output of a merge of {@code parts} whose output is cut before each
     * of {@code cuts} (sorted): one per stretch between cuts, spanning the parts' key ranges
     * clipped to it, so that an output cut around a file the merge does not read is not
     * taken to cover it (vLSM's level-1 merges cut at the level-2 files they skip). Without
     * cut keys, one stand-in spanning everything. For validation only; the outputs written
     * are checked again when installed.
     */
    private static List<Component> standIns(List<Component> parts, List<byte[]> cuts) {
        if (cuts.isEmpty()) {
            return List.of(standIn(parts));
        }
        List<Component> out = new ArrayList<>();
        for (int s = 0; s <= cuts.size(); s++) {
            byte[] lo = s == 0 ? null : cuts.get(s - 1);
            byte[] hi = s == cuts.size() ? null : cuts.get(s);
            byte[] min = null;
            byte[] max = null;
            long minSeq = Long.MAX_VALUE;
            long maxSeq = Long.MIN_VALUE;
            for (Component c : parts) {
                byte[] cmin = c.meta().minKey();
                byte[] cmax = c.meta().maxKey();
                if (hi != null && Arrays.compareUnsigned(cmin, hi) >= 0 || lo != null
                        && Arrays.compareUnsigned(cmax, lo) < 0) {
                    continue;
                }
                byte[] a = lo != null && Arrays.compareUnsigned(cmin, lo) < 0 ? lo : cmin;
                byte[] b = hi != null && Arrays.compareUnsigned(cmax, hi) >= 0 ? justBefore(hi) : cmax;
                if (b == null || Arrays.compareUnsigned(a, b) > 0) {
                    continue;
                }
                min = min == null || Arrays.compareUnsigned(a, min) < 0 ? a : min;
                max = max == null || Arrays.compareUnsigned(b, max) > 0 ? b : max;
                minSeq = Math.min(minSeq, c.meta().minSeqno());
                maxSeq = Math.max(maxSeq, c.meta().maxSeqno());
            }
            if (min != null) {
                out.add(new Component(new ComponentMeta(new ComponentId(Long.MAX_VALUE - s, 0), 0, 0, 0, 0, min, max,
                        minSeq, maxSeq, 0), null));
            }
        }
        return out.isEmpty() ? List.of(standIn(parts)) : out;
    }

    /**
     * A key just below {@code k} in unsigned order: {@code k} without a trailing zero byte,
     * else {@code k} with its last byte decreased and 64 bytes 0xFF appended (below
     * {@code k}; keys between the two are ignored, which only makes validation more lenient,
     * never the install check); null for the empty key.
     */
    private static byte[] justBefore(byte[] k) {
        if (k.length == 0) {
            return null;
        }
        if (k[k.length - 1] == 0) {
            return Arrays.copyOf(k, k.length - 1);
        }
        byte[] b = Arrays.copyOf(k, k.length + 64);
        b[k.length - 1] = (byte) (b[k.length - 1] - 1);
        Arrays.fill(b, k.length, b.length, (byte) 0xFF);
        return b;
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
