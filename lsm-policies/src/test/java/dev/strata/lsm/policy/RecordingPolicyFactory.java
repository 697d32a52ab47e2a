package dev.strata.lsm.policy;

import dev.strata.lsm.LsmStore;
import dev.strata.lsm.StoreConfig;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;
import java.util.Queue;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * Test-only base of a registered policy that is another one and records every decision the
 * engine asks of it: the view, what {@link #before} read from the policy as the decision
 * began, and the tasks it returned. Engine trace tests register a subclass under
 * {@code NAME-recorded}; the conformance suites leave those names out.
 *
 * @param <S> what is read from the policy before each decision
 */
public abstract class RecordingPolicyFactory<S> implements MergePolicyFactory {

    /** One decision. */
    public record Decision<S>(TreeView view, S before, List<MergeTask> tasks) {
    }

    private final MergePolicyFactory delegate;
    private final Queue<Decision<S>> decisions;

    protected RecordingPolicyFactory(MergePolicyFactory delegate, Queue<Decision<S>> decisions) {
        this.delegate = delegate;
        this.decisions = decisions;
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

    /** A fresh queue for a subclass's decisions. */
    protected static <S> Queue<Decision<S>> newQueue() {
        return new ConcurrentLinkedQueue<>();
    }

    /** Reads what a check needs from {@code policy} before it decides on {@code view}; none by default. */
    protected S before(MergePolicy policy, TreeView view) {
        return null;
    }

    @Override
    public String name() {
        return delegate.name() + "-recorded";
    }

    @Override
    public String description() {
        return delegate.name() + ", recording its decisions (tests only)";
    }

    @Override
    public List<PolicyParameter> parameters() {
        return delegate.parameters();
    }

    @Override
    public MergePolicy create(PolicyParameters params) {
        MergePolicy policy = delegate.create(params);
        return new ForwardingMergePolicy(policy) {
            @Override
            public List<MergeTask> pickMerges(TreeView tree) {
                S before = before(policy, tree);
                List<MergeTask> tasks = policy.pickMerges(tree);
                decisions.add(new Decision<>(tree, before, List.copyOf(tasks)));
                return tasks;
            }
        };
    }
}
