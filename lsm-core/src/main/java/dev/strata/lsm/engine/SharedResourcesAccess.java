package dev.strata.lsm.engine;

import dev.strata.lsm.SharedResources;
import dev.strata.lsm.cache.BlockCache;

import java.util.Objects;

/**
 * The engine's way into a {@link SharedResources}: its block cache, memtable budget and
 * background pool are engine types, which the exported {@code dev.strata.lsm} package must not
 * name in its signatures (docs/engine.md, "Modules"). {@code SharedResources} installs the one
 * {@link Accessor} when its class is initialised, so any instance handed here has installed it.
 *
 * <p>Not API: this package is not exported by the {@code dev.strata.lsm} module. Thread safe.
 */
public final class SharedResourcesAccess {
    /** Reads the parts of a {@link SharedResources}; implemented by that class alone. */
    public interface Accessor {
        /** The shared block cache (every store takes its own {@linkplain BlockCache#forStore() view}). */
        BlockCache blockCache(SharedResources resources);

        /** The memtable budget, or null when there is none. */
        MemtableBudget memtableBudget(SharedResources resources);

        /**
         * The shared background pool, or null when each store has its own threads.
         *
         * @throws dev.strata.lsm.ConfigException once the resources are closed
         */
        BackgroundPool backgroundPool(SharedResources resources);
    }

    private static volatile Accessor accessor;

    private SharedResourcesAccess() {
    }

    /**
     * Installs the accessor; called once, by {@link SharedResources}' static initialiser.
     *
     * @throws IllegalStateException when one is installed already
     */
    public static synchronized void install(Accessor a) {
        if (accessor != null) {
            throw new IllegalStateException("the SharedResources accessor is installed already");
        }
        accessor = Objects.requireNonNull(a, "accessor");
    }

    /** The block cache {@code resources} share. */
    public static BlockCache blockCache(SharedResources resources) {
        return accessor().blockCache(resources);
    }

    /** The memtable budget of {@code resources}, or null when there is none. */
    public static MemtableBudget memtableBudget(SharedResources resources) {
        return accessor().memtableBudget(resources);
    }

    /**
     * The background pool of {@code resources}, or null when each store has its own threads.
     *
     * @throws dev.strata.lsm.ConfigException once the resources are closed
     */
    public static BackgroundPool backgroundPool(SharedResources resources) {
        return accessor().backgroundPool(resources);
    }

    private static Accessor accessor() {
        Accessor a = accessor;
        if (a == null) {
            throw new IllegalStateException("SharedResources was never initialised");
        }
        return a;
    }
}
