package dev.strata.lsm.policies;

import dev.strata.lsm.policy.MergePolicies;
import dev.strata.lsm.policy.MergePolicy;
import dev.strata.lsm.policy.MergeTask;
import dev.strata.lsm.policy.TreeView;
import dev.strata.lsm.LsmStore;
import dev.strata.lsm.StoreConfig;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.BiFunction;

/**
 * Test-only: a policy that is another one and records every decision the engine asks of it —
 * the view, what a {@code before} function read from the policy as the decision began, and
 * the tasks it returned. Engine trace tests give a store their own instance
 * ({@code StoreConfig.Builder.mergePolicy(MergePolicy)}) and read {@link #decisions()} after.
 *
 * @param <S> what is read from the policy before each decision
 */
public final class RecordingPolicy<S> extends ForwardingMergePolicy {

    /** One decision. */
    public record Decision<S>(TreeView view, S before, List<MergeTask> tasks) {
    }

    private final Queue<Decision<S>> decisions = new ConcurrentLinkedQueue<>();
    private final BiFunction<MergePolicy, TreeView, S> before;

    /** Records {@code policy}'s decisions, each with what {@code before} reads from it as the decision begins. */
    public RecordingPolicy(MergePolicy policy, BiFunction<MergePolicy, TreeView, S> before) {
        super(policy);
        this.before = before;
    }

    /** Records the decisions of a new registered policy {@code name} with {@code params}. */
    public static RecordingPolicy<Void> of(String name, Map<String, String> params) {
        return new RecordingPolicy<>(MergePolicies.create(name, params), (p, v) -> null);
    }

    /** The decisions so far, in order. */
    public Queue<Decision<S>> decisions() {
        return decisions;
    }

    @Override
    public List<MergeTask> pickMerges(TreeView tree) {
        S read = before.apply(delegate(), tree);
        List<MergeTask> tasks = delegate().pickMerges(tree);
        decisions.add(new Decision<>(tree, read, List.copyOf(tasks)));
        return tasks;
    }

    /**
     * What an engine trace test runs: {@code entries} puts of random 16-byte keys and 112-byte
     * values (seeded) into a store at {@code dir}, then waits for its merges; returns the
     * policy errors the store counted.
     */
    public static long fillRandom(Path dir, StoreConfig config, long seed, long entries) {
        SplittableRandom random = new SplittableRandom(seed);
        byte[] value = new byte[112];
        try (LsmStore store = LsmStore.open(dir, config)) {
            for (long i = 0; i < entries; i++) {
                byte[] key = ByteBuffer.allocate(16).putLong(random.nextLong()).putLong(i).array();
                random.nextBytes(value);
                store.put(key, value);
            }
            store.awaitMerges();
            return store.stats().policyErrors();
        }
    }
}
