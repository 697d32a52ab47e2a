package dev.strata.lsm.version;

import dev.strata.lsm.policy.ComponentId;
import dev.strata.lsm.policy.ComponentView;
import dev.strata.lsm.policy.MergePolicy;
import dev.strata.lsm.policy.MergePolicyFactory;
import dev.strata.lsm.policy.MergeTask;
import dev.strata.lsm.policy.Placement;
import dev.strata.lsm.policy.PolicyParameter;
import dev.strata.lsm.policy.PolicyParameters;
import dev.strata.lsm.policy.TreeView;

import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A test policy ({@code test-view-probe}) that keeps the last {@link TreeView} the engine
 * showed it, and merges the two newest runs of level 0 into a new newest run when a test
 * asks for it (older runs stay below, so tombstones survive the merge). Tests run one at a time, so the static hand-off is enough.
 */
public final class ViewProbePolicy implements MergePolicy {
    static final String NAME = "test-view-probe";
    static final AtomicReference<TreeView> LAST = new AtomicReference<>();
    static final AtomicBoolean MERGE_NEWEST = new AtomicBoolean();

    @Override
    public List<MergeTask> pickMerges(TreeView tree) {
        LAST.set(tree);
        if (tree.level(0).runs().size() >= 3 && MERGE_NEWEST.compareAndSet(true, false)) {
            List<ComponentId> ids = tree.level(0).runs().subList(0, 2).stream().flatMap(r -> r.components().stream())
                    .map(ComponentView::id).toList();
            return List.of(MergeTask.of(ids, Placement.newRun(0), "probe: the two newest runs"));
        }
        return List.of();
    }

    /** Registered in META-INF/services for tests. */
    public static final class Factory implements MergePolicyFactory {
        @Override
        public String name() {
            return NAME;
        }

        @Override
        public String description() {
            return "records the tree views it is shown (tests only)";
        }

        @Override
        public List<PolicyParameter> parameters() {
            return List.of();
        }

        @Override
        public MergePolicy create(PolicyParameters params) {
            return new ViewProbePolicy();
        }
    }
}
