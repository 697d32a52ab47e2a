package dev.strata.lsm.version;

import dev.strata.lsm.policy.ComponentId;
import dev.strata.lsm.policy.ComponentView;
import dev.strata.lsm.policy.MergePolicy;
import dev.strata.lsm.policy.MergeTask;
import dev.strata.lsm.policy.Placement;
import dev.strata.lsm.policy.TreeView;

import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A test policy that keeps the last {@link TreeView} the engine showed it, and merges the two
 * newest runs of level 0 into a new newest run when its test asks for it (older runs stay
 * below, so tombstones survive the merge). Each test gives its store its own instance; the
 * engine's threads write what the test reads, hence the atomics.
 */
final class ViewProbePolicy implements MergePolicy {
    /** The last view shown, or null. */
    final AtomicReference<TreeView> last = new AtomicReference<>();
    /** Set by the test: merge the two newest runs at the next decision with three or more. */
    final AtomicBoolean mergeNewest = new AtomicBoolean();

    @Override
    public List<MergeTask> pickMerges(TreeView tree) {
        last.set(tree);
        if (tree.level(0).runs().size() >= 3 && mergeNewest.compareAndSet(true, false)) {
            List<ComponentId> ids = tree.level(0).runs().subList(0, 2).stream().flatMap(r -> r.components().stream())
                    .map(ComponentView::id).toList();
            return List.of(MergeTask.of(ids, Placement.newRun(0), "probe: the two newest runs"));
        }
        return List.of();
    }
}
