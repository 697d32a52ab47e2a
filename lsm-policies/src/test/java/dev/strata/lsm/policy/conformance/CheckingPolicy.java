package dev.strata.lsm.policy.conformance;

import dev.strata.lsm.policy.ComponentId;
import dev.strata.lsm.policy.ComponentView;
import dev.strata.lsm.policy.FlushPlan;
import dev.strata.lsm.policies.ForwardingMergePolicy;
import dev.strata.lsm.policy.MergePolicy;
import dev.strata.lsm.policy.MergeTask;
import dev.strata.lsm.policy.Placement;
import dev.strata.lsm.policy.TreeView;
import dev.strata.lsm.policy.WriteAdmission;

import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A policy wrapper for the simulator that checks, at every call, the view it is given and
 * the decision it returns, and throws {@link AssertionError} naming the step on the first
 * violation:
 * <ul>
 *   <li>every view is structurally sound and stable ({@link TreeInvariants});</li>
 *   <li>a policy that promises a component bound never sees more components;</li>
 *   <li>the inputs of the tasks of one answer exist, are idle, and no component is in two
 *       tasks (it would be in two running merges); anchors exist at their level;</li>
 *   <li>when the policy wants no merge, it does not stop writers (nothing could ever
 *       release them).</li>
 * </ul>
 */
final class CheckingPolicy extends ForwardingMergePolicy {
    private final String name;
    private final int bound;
    private long calls;
    private int maxSeen;

    CheckingPolicy(String name, MergePolicy delegate, int bound) {
        super(delegate);
        this.name = name;
        this.bound = bound;
    }

    /** The most components any view showed. */
    int maxComponentsSeen() {
        return maxSeen;
    }

    /** Calls into the policy checked so far. */
    long calls() {
        return calls;
    }

    @Override
    public Placement placeFlush(TreeView tree) {
        check(tree, "placeFlush");
        return delegate().placeFlush(tree);
    }

    @Override
    public FlushPlan planFlush(TreeView tree, ComponentView flushed) {
        check(tree, "planFlush");
        FlushPlan plan = delegate().planFlush(tree, flushed);
        Map<ComponentId, ComponentView> byId = index(tree);
        Set<ComponentId> used = new HashSet<>();
        for (MergeTask t : plan.mergesFirst()) {
            checkTask(tree, byId, used, t, "planFlush");
        }
        for (ComponentId id : plan.mergeWith()) {
            ComponentView c = byId.get(id);
            require(c != null, tree, "planFlush merges the flush with " + id + ", which is not in the tree");
            require(!c.busy(), tree, "planFlush merges the flush with busy " + id);
            require(used.add(id), tree, "planFlush uses " + id + " twice");
        }
        return plan;
    }

    @Override
    public List<MergeTask> pickMerges(TreeView tree) {
        check(tree, "pickMerges");
        List<MergeTask> tasks = delegate().pickMerges(tree);
        Map<ComponentId, ComponentView> byId = index(tree);
        Set<ComponentId> used = new HashSet<>();
        for (MergeTask t : tasks) {
            checkTask(tree, byId, used, t, "pickMerges");
        }
        if (tasks.isEmpty() && tree.runningMerges().isEmpty()) {
            WriteAdmission a = delegate().admission(tree);
            require(a != WriteAdmission.STOP, tree, "the policy wants no merge and none runs, yet it stops "
                    + "writers: they would wait forever");
        }
        return tasks;
    }

    @Override
    public WriteAdmission admission(TreeView tree) {
        check(tree, "admission");
        return delegate().admission(tree);
    }

    @Override
    public double slowdownDepth(TreeView tree) {
        check(tree, "slowdownDepth");
        double depth = delegate().slowdownDepth(tree);
        require(depth >= 0 && depth <= 1, tree, "slowdownDepth answered " + depth + ", not from 0 to 1");
        return depth;
    }

    private void check(TreeView tree, String step) {
        calls++;
        maxSeen = Math.max(maxSeen, tree.componentCount());
        String problem = TreeInvariants.checkStructure(tree);
        require(problem == null, tree, step + ": " + problem);
        if (bound > 0) {
            require(tree.componentCount() <= bound, tree, step + ": " + tree.componentCount()
                    + " components exceed the policy's bound k=" + bound);
        }
    }

    private void checkTask(TreeView tree, Map<ComponentId, ComponentView> byId, Set<ComponentId> used,
                           MergeTask t, String step) {
        for (ComponentId id : t.inputs()) {
            ComponentView c = byId.get(id);
            require(c != null, tree, step + ": task " + t + " names " + id + ", which is not in the tree");
            require(!c.busy(), tree, step + ": task " + t + " uses busy " + id);
            require(used.add(id), tree, step + ": " + id + " is in two merges at once (" + t + ")");
        }
        Placement p = t.placement();
        if (p.kind() == Placement.Kind.INTO_RUN_OF) {
            boolean found = p.level() < tree.levels().size() && tree.level(p.level()).runs().stream()
                    .anyMatch(r -> r.components().stream().anyMatch(c -> c.id().equals(p.anchor())));
            require(found, tree, step + ": task " + t + " anchors on " + p.anchor() + ", not in L" + p.level());
        }
    }

    private static Map<ComponentId, ComponentView> index(TreeView tree) {
        Map<ComponentId, ComponentView> byId = new HashMap<>();
        for (ComponentView c : tree.components()) {
            byId.put(c.id(), c);
        }
        return byId;
    }

    private void require(boolean ok, TreeView tree, String message) {
        if (!ok) {
            throw new AssertionError(name + " after " + tree.flushCounter() + " flushes: " + message + "\n  tree: "
                    + tree);
        }
    }
}
