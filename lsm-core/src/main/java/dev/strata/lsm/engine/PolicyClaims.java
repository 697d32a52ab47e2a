package dev.strata.lsm.engine;

import dev.strata.lsm.StoreException;
import dev.strata.lsm.policy.MergePolicy;

import java.nio.file.Path;
import java.util.IdentityHashMap;
import java.util.Map;

/**
 * The merge policy instances the open stores of this JVM were given
 * ({@code StoreConfig.Builder.mergePolicy(MergePolicy)}), each with the store running it: an
 * instance serves one open store at a time, since a policy keeps in-memory state about its
 * tree and is promised one call at a time. Policies a store creates by name are its own and
 * are not claimed. Instances are told apart by identity, whatever their {@code equals}.
 * Thread safe (one lock).
 */
final class PolicyClaims {
    private static final Map<MergePolicy, Path> CLAIMED = new IdentityHashMap<>();

    private PolicyClaims() {
    }

    /**
     * Records that the store in {@code dir} runs {@code policy}; nothing for null.
     *
     * @throws StoreException naming the open store that runs it already
     */
    static void claim(MergePolicy policy, Path dir) {
        if (policy == null) {
            return;
        }
        synchronized (CLAIMED) {
            Path holder = CLAIMED.putIfAbsent(policy, dir);
            if (holder != null) {
                throw new StoreException("cannot open store " + dir + ": its merge policy instance ("
                        + policy.getClass().getName() + ") is running in the open store " + holder
                        + "; an instance serves one open store at a time (give each store its own)");
            }
        }
    }

    /** Releases the claim of the store in {@code dir} on {@code policy}, if it holds it; nothing for null. */
    static void release(MergePolicy policy, Path dir) {
        if (policy == null) {
            return;
        }
        synchronized (CLAIMED) {
            if (dir.equals(CLAIMED.get(policy))) {
                CLAIMED.remove(policy);
            }
        }
    }
}
