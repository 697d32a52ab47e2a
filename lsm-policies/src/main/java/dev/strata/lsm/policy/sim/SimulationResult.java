package dev.strata.lsm.policy.sim;

import java.util.List;
import java.util.Map;

/**
 * The outcome of a simulation.
 *
 * @param policy policy name
 * @param params the policy's resolved parameters
 * @param flushes flushes simulated
 * @param semantics byte accounting used
 * @param flushLengths the flush length spec
 * @param writeAmplification bytes written creating components / bytes flushed
 * @param avgComponentCount component count after each flush (and its merges), averaged over all flushes
 * @param maxComponentCount largest component count at any instant
 * @param checkpoints the same figures after selected flush counts
 * @param series write amplification and component count after every flush, for plots (may be thinned)
 */
public record SimulationResult(String policy, Map<String, Object> params, long flushes, Semantics semantics,
                               String flushLengths, double writeAmplification, double avgComponentCount,
                               int maxComponentCount, List<Checkpoint> checkpoints, List<Point> series) {

    /** Figures after {@code flushes} flushes; averages are over flushes 1..flushes. */
    public record Checkpoint(long flushes, double writeAmplification, double avgComponentCount) {
    }

    /** One point of the per-flush series: figures after {@code flushes} flushes. */
    public record Point(long flushes, double writeAmplification, int componentCount, double avgComponentCount) {
    }
}
