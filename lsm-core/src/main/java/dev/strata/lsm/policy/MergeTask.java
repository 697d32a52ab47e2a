package dev.strata.lsm.policy;

import java.util.List;
import java.util.Objects;

/**
 * One merge a policy asks for: which components to merge, where the output goes, how it is
 * cut into files and written, and why. The engine validates every task (the inputs exist
 * and are idle, no component is in two tasks, the placement keeps the stability
 * invariant) and rejects a bad one as a policy error. Immutable.
 *
 * @param inputs the components to merge (at least one)
 * @param placement where the output lands
 * @param output how the output is cut into files
 * @param mode rewrite or block reuse
 * @param priority higher runs first when tasks wait for a thread
 * @param reason why the policy chose this merge, for logs and golden tests
 */
public record MergeTask(List<ComponentId> inputs, Placement placement, OutputSpec output, MergeMode mode,
                        int priority, String reason) {
    public MergeTask {
        inputs = List.copyOf(inputs);
        if (inputs.isEmpty()) {
            throw new IllegalArgumentException("a merge task needs at least one input");
        }
        if (inputs.stream().distinct().count() != inputs.size()) {
            throw new IllegalArgumentException("a merge task lists an input twice: " + inputs);
        }
        Objects.requireNonNull(placement, "placement");
        Objects.requireNonNull(output, "output");
        Objects.requireNonNull(mode, "mode");
        reason = reason == null ? "" : reason;
    }

    /** A rewrite of {@code inputs} into one file at {@code placement}. */
    public static MergeTask of(List<ComponentId> inputs, Placement placement, String reason) {
        return new MergeTask(inputs, placement, OutputSpec.singleFile(), MergeMode.REWRITE, 0, reason);
    }

    @Override
    public String toString() {
        return "merge " + inputs + " -> " + placement + (reason.isEmpty() ? "" : " (" + reason + ")");
    }
}
