package dev.strata.lsm.kafka;

import dev.strata.lsm.ConfigException;
import dev.strata.lsm.SharedResources;
import dev.strata.lsm.StoreConfig;
import org.apache.kafka.streams.StreamsConfig;

import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The configuration a Strata state store opens with: the supplier's, with the application's
 * shared resources and the {@link StrataConfigSetter}'s changes. Application configs (StreamsConfig
 * keys):
 * <ul>
 *   <li>{@value #BLOCK_CACHE_BYTES_CONFIG}: one block cache of this many bytes for every
 *       Strata store of the application in this JVM;</li>
 *   <li>{@value #MEMTABLE_BUDGET_BYTES_CONFIG}: one memtable budget for all of them
 *       ({@link SharedResources});</li>
 *   <li>{@value #BACKGROUND_THREADS_CONFIG}: one pool of this many flush and merge threads
 *       (2 to 256; a quarter of them flush) that all of them run their background jobs on,
 *       instead of threads of their own per store (0 or unset: each store its own);</li>
 *   <li>{@value #MEMORY_OFF_HEAP_CONFIG}: {@code true} keeps every store's memtables and the
 *       block cache's page images in direct memory, off the Java heap
 *       ({@link StoreConfig#offHeap()}, {@link SharedResources.Builder#offHeap(boolean)});
 *       {@code false} or unset: on the heap;</li>
 *   <li>{@value #CONFIG_SETTER_CONFIG}: a {@link StrataConfigSetter} class;</li>
 *   <li>{@value #COMMIT_COALESCE_MS_CONFIG}: a commit that comes less than this many ms after
 *       the last commit a store wrote is held in memory, its writes and offsets, and written
 *       with a later one (see docs/kafka-streams.md, "Coalesced commits"); 0 writes every
 *       commit; unset: {@value #DEFAULT_COMMIT_COALESCE_MS}.</li>
 * </ul>
 * The shared resources are built once per application id and JVM, at the first store's open,
 * from the values that store sees (Kafka Streams gives every store of an application the same
 * configuration), and live as long as the JVM: stores of later Kafka Streams instances of the
 * same application id in the JVM share them (the pool's threads are daemons that idle
 * when no store works). Thread safe.
 */
public final class StrataStoreConfigs {
    /** Bytes of the one block cache of the application's Strata stores. */
    public static final String BLOCK_CACHE_BYTES_CONFIG = "strata.block.cache.bytes";
    /** Bytes all the application's Strata memtables may hold together. */
    public static final String MEMTABLE_BUDGET_BYTES_CONFIG = "strata.memtable.budget.bytes";
    /** Flush and merge threads of the one background pool of the application's Strata stores. */
    public static final String BACKGROUND_THREADS_CONFIG = "strata.background.threads";
    /** {@code true} or {@code false}: the stores' memtables and cached pages in direct memory. */
    public static final String MEMORY_OFF_HEAP_CONFIG = "strata.memory.off.heap";
    /** A {@link StrataConfigSetter} class (or its name). */
    public static final String CONFIG_SETTER_CONFIG = "strata.config.setter";
    /** Ms after a written commit within which a store holds the next commits in memory (0: none). */
    public static final String COMMIT_COALESCE_MS_CONFIG = "strata.commit.coalesce.ms";
    /** {@value #COMMIT_COALESCE_MS_CONFIG} when unset. */
    public static final long DEFAULT_COMMIT_COALESCE_MS = 50;
    /** The largest value {@value #COMMIT_COALESCE_MS_CONFIG} accepts. */
    public static final long MAX_COMMIT_COALESCE_MS = 60_000;

    private static final Map<String, SharedResources> SHARED = new ConcurrentHashMap<>();

    private StrataStoreConfigs() {
    }

    /**
     * The configuration store {@code storeName} opens with, from the supplier's {@code base}
     * and the application's {@code configs}.
     *
     * @throws ConfigException naming the key when a {@code strata.*} value is invalid
     */
    static StoreConfig forStore(String storeName, StoreConfig base, Map<String, Object> configs) {
        Long cacheBytes = bytes(configs, BLOCK_CACHE_BYTES_CONFIG);
        Long budgetBytes = bytes(configs, MEMTABLE_BUDGET_BYTES_CONFIG);
        Integer threads = threads(configs);
        Boolean offHeap = offHeap(configs);
        Object setterConfig = configs.get(CONFIG_SETTER_CONFIG);
        if (cacheBytes == null && budgetBytes == null && threads == null && offHeap == null && setterConfig == null) {
            return base;
        }
        StoreConfig.Builder builder = base.toBuilder();
        if (offHeap != null) {
            builder.offHeap(offHeap);
        }
        if (cacheBytes != null || budgetBytes != null || threads != null) {
            builder.sharedResources(shared(configs, cacheBytes, budgetBytes, threads));
        }
        if (setterConfig != null) {
            setter(setterConfig).setConfig(storeName, builder, configs);
        }
        return builder.build();
    }

    /** The application's shared resources in this JVM (made by the first store to ask). */
    static SharedResources shared(Map<String, Object> configs, Long cacheBytes, Long budgetBytes, Integer threads) {
        String appId = Objects.toString(configs.get(StreamsConfig.APPLICATION_ID_CONFIG), "");
        return SHARED.computeIfAbsent(appId, id -> {
            SharedResources.Builder b = SharedResources.builder();
            if (cacheBytes != null) {
                b.blockCacheBytes(cacheBytes);
            }
            if (budgetBytes != null) {
                b.memtableBudgetBytes(budgetBytes);
            }
            if (threads != null) {
                b.backgroundThreads(threads);
            }
            Boolean offHeap = offHeap(configs);
            if (offHeap != null) {
                b.offHeap(offHeap);
            }
            return b.build();
        });
    }

    /** The shared resources of application {@code appId} in this JVM, or null when no store has made them yet. */
    static SharedResources sharedIfMade(String appId) {
        return SHARED.get(appId);
    }

    /** {@value #BACKGROUND_THREADS_CONFIG}, checked before any store uses it; null when unset. */
    private static Integer threads(Map<String, Object> configs) {
        Object v = configs.get(BACKGROUND_THREADS_CONFIG);
        if (v == null) {
            return null;
        }
        int threads;
        try {
            threads = v instanceof Number n ? Math.toIntExact(n.longValue()) : Integer.parseInt(v.toString().trim());
        } catch (NumberFormatException | ArithmeticException e) {
            throw new ConfigException(BACKGROUND_THREADS_CONFIG + " must be a number of threads, was \"" + v + "\"", e);
        }
        if (threads != 0 && (threads < 2 || threads > 256)) {
            throw new ConfigException(BACKGROUND_THREADS_CONFIG + " must be 0 (each store its own threads) or 2 to 256 "
                    + "(at least one flush thread and one merge thread), was " + threads);
        }
        return threads;
    }

    /** {@value #MEMORY_OFF_HEAP_CONFIG}, checked before any store uses it; null when unset. */
    private static Boolean offHeap(Map<String, Object> configs) {
        Object v = configs.get(MEMORY_OFF_HEAP_CONFIG);
        if (v == null || v instanceof Boolean) {
            return (Boolean) v;
        }
        String text = v.toString().trim();
        if (text.equalsIgnoreCase("true")) {
            return true;
        }
        if (text.equalsIgnoreCase("false")) {
            return false;
        }
        throw new ConfigException(MEMORY_OFF_HEAP_CONFIG + " must be true or false, was \"" + v + "\"");
    }

    /**
     * {@value #COMMIT_COALESCE_MS_CONFIG} in nanoseconds ({@value #DEFAULT_COMMIT_COALESCE_MS} ms
     * when unset).
     *
     * @throws ConfigException naming the key when the value is not a number of ms from 0 to
     *         {@value #MAX_COMMIT_COALESCE_MS}
     */
    static long commitCoalesceNanos(Map<String, Object> configs) {
        Object v = configs.get(COMMIT_COALESCE_MS_CONFIG);
        if (v == null) {
            return java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(DEFAULT_COMMIT_COALESCE_MS);
        }
        long ms;
        try {
            ms = v instanceof Number n ? n.longValue() : Long.parseLong(v.toString().trim());
        } catch (NumberFormatException e) {
            throw new ConfigException(COMMIT_COALESCE_MS_CONFIG + " must be a number of ms, was \"" + v + "\"", e);
        }
        if (ms < 0 || ms > MAX_COMMIT_COALESCE_MS) {
            throw new ConfigException(COMMIT_COALESCE_MS_CONFIG + " must be 0 to " + MAX_COMMIT_COALESCE_MS
                    + " ms, was " + ms);
        }
        return java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(ms);
    }

    private static Long bytes(Map<String, Object> configs, String key) {
        Object v = configs.get(key);
        if (v == null) {
            return null;
        }
        long bytes;
        try {
            bytes = v instanceof Number n ? n.longValue() : Long.parseLong(v.toString().trim());
        } catch (NumberFormatException e) {
            throw new ConfigException(key + " must be a number of bytes, was \"" + v + "\"", e);
        }
        if (bytes < 0) {
            throw new ConfigException(key + " must be >= 0, was " + bytes);
        }
        return bytes;
    }

    private static StrataConfigSetter setter(Object config) {
        Class<?> type;
        if (config instanceof Class<?> c) {
            type = c;
        } else {
            try {
                type = Class.forName(config.toString().trim(), true, Thread.currentThread().getContextClassLoader());
            } catch (ClassNotFoundException e) {
                throw new ConfigException(CONFIG_SETTER_CONFIG + ": class " + config + " not found", e);
            }
        }
        if (!StrataConfigSetter.class.isAssignableFrom(type)) {
            throw new ConfigException(CONFIG_SETTER_CONFIG + ": " + type.getName() + " does not implement "
                    + StrataConfigSetter.class.getName());
        }
        try {
            return (StrataConfigSetter) type.getDeclaredConstructor().newInstance();
        } catch (ReflectiveOperationException e) {
            throw new ConfigException(CONFIG_SETTER_CONFIG + ": cannot make a " + type.getName()
                    + " with its public no-argument constructor: " + e, e);
        }
    }
}
