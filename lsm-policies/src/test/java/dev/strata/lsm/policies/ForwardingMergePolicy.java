package dev.strata.lsm.policies;

import dev.strata.lsm.policy.ComponentView;
import dev.strata.lsm.policy.FlushPlan;
import dev.strata.lsm.policy.MergePolicy;
import dev.strata.lsm.policy.MergeTask;
import dev.strata.lsm.policy.Placement;
import dev.strata.lsm.policy.TreeView;
import dev.strata.lsm.policy.WriteAdmission;
import java.util.List;

/**
 * Test-only base of a policy that wraps another: every {@link MergePolicy} method goes to
 * the wrapped policy, so a recording or checking wrapper overrides only the calls it
 * watches, and a method added to the SPI reaches the wrapped policy without a change here
 * in each wrapper.
 */
public abstract class ForwardingMergePolicy implements MergePolicy {
    private final MergePolicy delegate;

    protected ForwardingMergePolicy(MergePolicy delegate) {
        this.delegate = delegate;
    }

    /** The wrapped policy. */
    protected final MergePolicy delegate() {
        return delegate;
    }

    @Override
    public Placement placeFlush(TreeView tree) {
        return delegate.placeFlush(tree);
    }

    @Override
    public FlushPlan planFlush(TreeView tree, ComponentView flushed) {
        return delegate.planFlush(tree, flushed);
    }

    @Override
    public long flushTableBytes() {
        return delegate.flushTableBytes();
    }

    @Override
    public List<MergeTask> pickMerges(TreeView tree) {
        return delegate.pickMerges(tree);
    }

    @Override
    public List<MergeTask> planCompaction(TreeView tree, byte[] from, byte[] to) {
        return delegate.planCompaction(tree, from, to);
    }

    @Override
    public Placement placeIngest(TreeView tree, List<ComponentView> tables) {
        return delegate.placeIngest(tree, tables);
    }

    @Override
    public WriteAdmission admission(TreeView tree) {
        return delegate.admission(tree);
    }

    @Override
    public double slowdownDepth(TreeView tree) {
        return delegate.slowdownDepth(tree);
    }

    @Override
    public byte[] persistentState(TreeView tree) {
        return delegate.persistentState(tree);
    }
}
