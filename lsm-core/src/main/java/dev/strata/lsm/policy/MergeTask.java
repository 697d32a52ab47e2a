package dev.strata.lsm.policy;

import java.util.List;
import java.util.Objects;

/**
 * One merge a policy asks for: which components to merge, where the output goes, how it is
 * cut into files, how it is written, how urgent it is, and why. Every field is honoured by
 * the engine or the task is rejected as a policy error (counted in
 * {@code StoreStats.policyErrors()} and logged); nothing is silently ignored. The engine
 * validates every task (the inputs exist and are idle, no component is in two tasks, the
 * placement keeps the stability invariant, the mode can be executed) before it runs.
 * Immutable.
 *
 * @param inputs the components to merge (at least one)
 * @param placement where the output lands
 * @param output how the output is cut into files ({@link OutputSpec#singleFile()} for {@link MergeMode#MOVE})
 * @param mode rewrite, metadata-only move, or block reuse
 * @param priority tasks waiting for a merge thread start in descending priority, then in the
 *     order they were picked
 * @param reason why the policy chose this merge, for logs and golden tests
 * @param selective for {@link MergeMode#REUSE_BLOCKS} only: the thresholds by which each child
 *     table is merged in place or rewritten (cut by {@code output}); null: every child is
 *     merged in place (and {@code output} must be {@link OutputSpec#singleFile()})
 * @param kind what kind of merge this is in the policy's own terms (e.g. Spooky's
 *     {@code partitioned}), a short label: the engine adds the bytes the merge writes to
 *     {@code StoreStats.bytesWrittenByKind()} under it; "" (the default) counts them under
 *     {@value #UNLABELLED}. Not part of {@link #toString()}.
 */
public record MergeTask(List<ComponentId> inputs, Placement placement, OutputSpec output, MergeMode mode,
                        int priority, String reason, SelectiveThresholds selective, String kind) {
    /** The kind {@code StoreStats.bytesWrittenByKind()} counts a merge without a {@link #kind} under. */
    public static final String UNLABELLED = "merge";
    /** The kind {@code StoreStats.bytesWrittenByKind()} counts flushed tables under; no merge may take it. */
    public static final String FLUSH = "flush";
    private static final java.util.regex.Pattern KIND = java.util.regex.Pattern.compile("[a-z0-9][a-z0-9-]{0,31}");

    /**
     * A task without selective thresholds.
     *
     * @param inputs the components to merge (at least one)
     * @param placement where the output lands
     * @param output how the output is cut into files
     * @param mode rewrite, metadata-only move, or block reuse
     * @param priority higher-priority tasks start first
     * @param reason why, for logs and golden tests
     */
    public MergeTask(List<ComponentId> inputs, Placement placement, OutputSpec output, MergeMode mode, int priority,
                     String reason) {
        this(inputs, placement, output, mode, priority, reason, null, "");
    }

    /**
     * A task without a kind.
     *
     * @param inputs the components to merge (at least one)
     * @param placement where the output lands
     * @param output how the output is cut into files
     * @param mode rewrite, metadata-only move, or block reuse
     * @param priority higher-priority tasks start first
     * @param reason why, for logs and golden tests
     * @param selective for {@link MergeMode#REUSE_BLOCKS}: the per-child thresholds, or null
     */
    public MergeTask(List<ComponentId> inputs, Placement placement, OutputSpec output, MergeMode mode, int priority,
                     String reason, SelectiveThresholds selective) {
        this(inputs, placement, output, mode, priority, reason, selective, "");
    }

    /**
     * Creates a {@code MergeTask} from its components.
     *
     * @param inputs the components to merge (at least one)
     * @param placement where the output lands
     * @param output how the output is cut into files ({@link OutputSpec#singleFile()} for {@link MergeMode#MOVE})
     * @param mode rewrite, metadata-only move, or block reuse
     * @param priority tasks waiting for a merge thread start in descending priority, then in the
     *     order they were picked
     * @param reason why the policy chose this merge, for logs and golden tests
     * @param selective for {@link MergeMode#REUSE_BLOCKS} only: the thresholds by which each child
     *     table is merged in place or rewritten (cut by {@code output}); null: every child is
     *     merged in place (and {@code output} must be {@link OutputSpec#singleFile()})
     * @param kind what kind of merge this is in the policy's own terms (e.g. Spooky's
     *     {@code partitioned}), a short label: the engine adds the bytes the merge writes to
     *     {@code StoreStats.bytesWrittenByKind()} under it; "" (the default) counts them under
     *     {@value #UNLABELLED}. Not part of {@link #toString()}.
     */
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
        if (mode == MergeMode.MOVE && output.cuts()) {
            throw new IllegalArgumentException("a MOVE keeps its files as they are; its output spec must be "
                    + "OutputSpec.singleFile(), got " + output);
        }
        if (selective != null && mode != MergeMode.REUSE_BLOCKS) {
            throw new IllegalArgumentException("selective thresholds apply to REUSE_BLOCKS tasks only, not " + mode);
        }
        reason = reason == null ? "" : reason;
        kind = kind == null ? "" : kind;
        if (!kind.isEmpty() && (!KIND.matcher(kind).matches() || kind.equals(FLUSH))) {
            throw new IllegalArgumentException("a merge kind is up to 32 lower-case letters, digits and '-', "
                    + "starting with a letter or digit, and not '" + FLUSH + "'; got '" + kind + "'");
        }
    }

    /**
     * The label {@code StoreStats.bytesWrittenByKind()} counts this merge's bytes under: its
     * {@link #kind}, or {@value #UNLABELLED} when it has none.
     *
     * @return the label of the merge's written bytes
     */
    public String kindLabel() {
        return kind.isEmpty() ? UNLABELLED : kind;
    }

    /**
     * A rewrite of {@code inputs} into one file at {@code placement}.
     *
     * @param inputs the components to merge (at least one)
     * @param placement where the output lands
     * @param reason why, for logs and golden tests
     * @return a new {@link MergeMode#REWRITE} task of priority 0, output {@link
     *     OutputSpec#singleFile()}
     */
    public static MergeTask of(List<ComponentId> inputs, Placement placement, String reason) {
        return new MergeTask(inputs, placement, OutputSpec.singleFile(), MergeMode.REWRITE, 0, reason);
    }

    /**
     * A rewrite of {@code inputs} into files cut by {@code output} at {@code placement}.
     *
     * @param inputs the components to merge (at least one)
     * @param placement where the output lands
     * @param output how the output is cut into files
     * @param reason why, for logs and golden tests
     * @return a new {@link MergeMode#REWRITE} task of priority 0
     */
    public static MergeTask rewrite(List<ComponentId> inputs, Placement placement, OutputSpec output,
                                    String reason) {
        return new MergeTask(inputs, placement, output, MergeMode.REWRITE, 0, reason);
    }

    /**
     * A metadata-only move of {@code inputs} to {@code placement}.
     *
     * @param inputs the components to move (at least one)
     * @param placement where they land
     * @param reason why, for logs and golden tests
     * @return a new {@link MergeMode#MOVE} task of priority 0
     */
    public static MergeTask move(List<ComponentId> inputs, Placement placement, String reason) {
        return new MergeTask(inputs, placement, OutputSpec.singleFile(), MergeMode.MOVE, 0, reason);
    }

    /**
     * A copy with the given priority.
     *
     * @param newPriority the priority: higher-priority tasks start first
     * @return a new task, otherwise equal to this one
     */
    public MergeTask withPriority(int newPriority) {
        return new MergeTask(inputs, placement, output, mode, newPriority, reason, selective, kind);
    }

    /**
     * A copy with the given output spec.
     *
     * @param newOutput how the output is cut into files
     * @return a new task, otherwise equal to this one
     */
    public MergeTask withOutput(OutputSpec newOutput) {
        return new MergeTask(inputs, placement, newOutput, mode, priority, reason, selective, kind);
    }

    /**
     * A block compaction of {@code inputs} into the run at {@code placement}, whose children
     * are merged in place or rewritten into files cut by {@code output} as {@code selective}
     * decides for each (BlockDB's selective compaction).
     *
     * @param inputs the components to merge (at least one)
     * @param placement the run receiving the output ({@link Placement.Kind#INTO_RUN_OF})
     * @param output how rewritten children are cut into files
     * @param selective the thresholds deciding, per child, between merging in place and rewriting;
     *     null: merge every child in place
     *
     * @param reason why, for logs and golden tests
     * @return a new {@link MergeMode#REUSE_BLOCKS} task of priority 0
     */
    public static MergeTask reuseBlocks(List<ComponentId> inputs, Placement placement, OutputSpec output,
                                        SelectiveThresholds selective, String reason) {
        return new MergeTask(inputs, placement, output, MergeMode.REUSE_BLOCKS, 0, reason, selective);
    }

    /**
     * A copy labelled {@code newKind} (see {@link #kind}).
     *
     * @param newKind the label: lower-case letters, digits and '-', at most 32 characters, not
     *     {@value #FLUSH}; "" for {@value #UNLABELLED}
     *
     * @return a new task, otherwise equal to this one
     */
    public MergeTask withKind(String newKind) {
        return new MergeTask(inputs, placement, output, mode, priority, reason, selective, newKind);
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder(mode == MergeMode.MOVE ? "move " : mode == MergeMode.REUSE_BLOCKS
                ? "reuse-merge " : "merge ");
        sb.append(inputs).append(" -> ").append(placement);
        if (output.cuts()) {
            sb.append(" [").append(output).append(']');
        }
        if (selective != null) {
            sb.append(' ').append(selective);
        }
        if (priority != 0) {
            sb.append(" prio ").append(priority);
        }
        return reason.isEmpty() ? sb.toString() : sb.append(" (").append(reason).append(')').toString();
    }
}
