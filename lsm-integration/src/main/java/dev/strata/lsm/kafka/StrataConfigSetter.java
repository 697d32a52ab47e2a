package dev.strata.lsm.kafka;

import dev.strata.lsm.StoreConfig;

import java.util.Map;

/**
 * Per-store overrides of the Strata configuration, as Kafka's {@code RocksDBConfigSetter} is
 * for RocksDB: name the implementing class in the application config
 * {@value StrataStoreConfigs#CONFIG_SETTER_CONFIG}. Each Strata state store instance (each
 * task's store; a window or session store once for all its segments) makes one instance of
 * the class (public, with a public no-argument constructor) when it opens and calls
 * {@link #setConfig} once, on the stream thread, with a builder holding the store's
 * configuration (and the application's {@code strata.*} shared resources, if any). What the
 * builder holds when it returns is what the store opens with.
 */
public interface StrataConfigSetter {
    /**
     * @param storeName the state store's name
     * @param builder the configuration the store will open with; change it in place
     * @param configs the application's configuration (StreamsConfig values)
     */
    void setConfig(String storeName, StoreConfig.Builder builder, Map<String, Object> configs);
}
