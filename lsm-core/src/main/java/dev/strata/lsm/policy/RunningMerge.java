package dev.strata.lsm.policy;

import java.util.List;
import java.util.Objects;

/**
 * A merge the engine is executing while a policy decides: what it reads, where its output
 * will land and how much it reads. Immutable.
 *
 * @param inputs the components being merged (the flushed memtable of a merging flush is not listed)
 * @param placement where the output will land
 * @param mode how the output is produced
 * @param inputBytes bytes of all inputs
 * @param reason the reason the policy gave
 */
public record RunningMerge(List<ComponentId> inputs, Placement placement, MergeMode mode, long inputBytes,
                           String reason) {
    /**
     * Creates a {@code RunningMerge} from its components.
     *
     * @param inputs the components being merged (the flushed memtable of a merging flush is not listed)
     * @param placement where the output will land
     * @param mode how the output is produced
     * @param inputBytes bytes of all inputs
     * @param reason the reason the policy gave
     */
    public RunningMerge {
        inputs = List.copyOf(inputs);
        Objects.requireNonNull(placement, "placement");
        Objects.requireNonNull(mode, "mode");
        reason = reason == null ? "" : reason;
    }

    /**
     * The level that receives the output.
     *
     * @return the output's level
     */
    public int targetLevel() {
        return placement.level();
    }
}
