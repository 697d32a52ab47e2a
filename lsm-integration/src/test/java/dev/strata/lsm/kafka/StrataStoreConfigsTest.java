package dev.strata.lsm.kafka;

import dev.strata.lsm.ConfigException;
import dev.strata.lsm.SharedResources;
import dev.strata.lsm.StoreConfig;
import dev.strata.lsm.engine.SharedResourcesAccess;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Grouped;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.TimeWindows;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Properties;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code strata.*} application configs: shared resources for every store, and the config setter. */
class StrataStoreConfigsTest {
    @TempDir
    Path dir;

    /** Records the stores it configured and gives each a 1 MiB memtable. */
    public static class RecordingSetter implements StrataConfigSetter {
        static final List<String> CONFIGURED = Collections.synchronizedList(new ArrayList<>());
        static volatile StoreConfig last;

        @Override
        public void setConfig(String storeName, StoreConfig.Builder builder, Map<String, Object> configs) {
            CONFIGURED.add(storeName + "@" + configs.get(StreamsConfig.APPLICATION_ID_CONFIG));
            builder.memtableBytes(1 << 20);
            last = builder.build();
        }
    }

    @Test
    void everyStoreOfTheApplicationSharesOneBudgetAndTheSetterConfiguresEach() throws Exception {
        String appId = "shared-app";
        Properties props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, appId);
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
        props.put(StreamsConfig.STATE_DIR_CONFIG, Files.createDirectories(dir.resolve(appId)).toString());
        props.put(StreamsConfig.STATESTORE_CACHE_MAX_BYTES_CONFIG, 0);
        props.put(StreamsConfig.DSL_STORE_SUPPLIERS_CLASS_CONFIG, StrataDslStoreSuppliers.class);
        props.put(StrataStoreConfigs.BLOCK_CACHE_BYTES_CONFIG, "4194304");
        props.put(StrataStoreConfigs.MEMTABLE_BUDGET_BYTES_CONFIG, 8L << 20);
        props.put(StrataStoreConfigs.BACKGROUND_THREADS_CONFIG, "2");
        props.put(StrataStoreConfigs.CONFIG_SETTER_CONFIG, RecordingSetter.class.getName());
        RecordingSetter.CONFIGURED.clear();

        StreamsBuilder builder = new StreamsBuilder();
        var grouped = builder.stream("in", Consumed.with(Serdes.String(), Serdes.String()))
                .groupByKey(Grouped.with(Serdes.String(), Serdes.String()));
        grouped.count(Materialized.as("counts"));
        grouped.windowedBy(TimeWindows.ofSizeWithNoGrace(Duration.ofMinutes(1))).count(Materialized.as("windowed"));
        try (TopologyTestDriver driver = new TopologyTestDriver(builder.build(), props)) {
            TestInputTopic<String, String> in = driver.createInputTopic("in", new StringSerializer(),
                    new StringSerializer(), Instant.ofEpochMilli(0), Duration.ofSeconds(20));
            for (int i = 0; i < 20; i++) {
                in.pipeInput("k" + i, "v");
            }
            SharedResources shared = StrataStoreConfigs.shared(Map.of(StreamsConfig.APPLICATION_ID_CONFIG, appId),
                    null, null, null);
            assertEquals(4 << 20, SharedResourcesAccess.blockCache(shared).capacityBytes());
            assertEquals(8 << 20, SharedResourcesAccess.memtableBudget(shared).budgetBytes());
            assertEquals(2, SharedResourcesAccess.backgroundPool(shared).threads());
            // Every store's background jobs run on the one pool: no thread is a store's own.
            assertTrue(Thread.getAllStackTraces().keySet().stream().map(Thread::getName)
                    .noneMatch(n -> n.startsWith("strata-flush-") || n.startsWith("strata-bg-")
                            || n.startsWith("strata-policy-")), "a store started threads of its own");
            // The key-value store and the window store's open segments (20 records over 400 s).
            assertTrue(SharedResourcesAccess.memtableBudget(shared).members() >= 3, "stores in the budget: "
                    + SharedResourcesAccess.memtableBudget(shared).members());
            assertTrue(shared.memtableBytesUsed() > 0);
            assertSame(shared, RecordingSetter.last.sharedResources());
            assertEquals(1 << 20, RecordingSetter.last.memtableBytes());
            assertEquals(List.of("counts@" + appId, "windowed@" + appId), RecordingSetter.CONFIGURED.stream()
                    .sorted().toList());
        }
        SharedResources shared = StrataStoreConfigs.shared(Map.of(StreamsConfig.APPLICATION_ID_CONFIG, appId),
                null, null, null);
        assertEquals(0, SharedResourcesAccess.memtableBudget(shared).members(), "closed stores leave the budget");
        assertEquals(0, shared.writeBufferBytesUsed(), "closed stores reserve no write buffer bytes");
    }

    @Test
    void memoryOffHeapPutsTheStoresAndTheSharedCacheOffTheHeap() {
        StoreConfig base = StrataStores.DEFAULT_CONFIG;
        StoreConfig own = StrataStoreConfigs.forStore("s", base, Map.of(StreamsConfig.APPLICATION_ID_CONFIG,
                "off-heap-own", StrataStoreConfigs.MEMORY_OFF_HEAP_CONFIG, "true"));
        assertTrue(own.offHeap());
        assertEquals(null, own.sharedResources());
        StoreConfig shared = StrataStoreConfigs.forStore("s", base, Map.of(StreamsConfig.APPLICATION_ID_CONFIG,
                "off-heap-shared", StrataStoreConfigs.MEMORY_OFF_HEAP_CONFIG, Boolean.TRUE,
                StrataStoreConfigs.BLOCK_CACHE_BYTES_CONFIG, 1L << 20));
        assertTrue(shared.offHeap());
        assertTrue(shared.sharedResources().offHeap());
        assertTrue(SharedResourcesAccess.blockCache(shared.sharedResources()).offHeap());
        StoreConfig onHeap = StrataStoreConfigs.forStore("s", base, Map.of(StreamsConfig.APPLICATION_ID_CONFIG,
                "on-heap", StrataStoreConfigs.MEMORY_OFF_HEAP_CONFIG, "false"));
        assertEquals(false, onHeap.offHeap());
        ConfigException e = assertThrows(ConfigException.class, () -> StrataStoreConfigs.forStore("s", base,
                Map.of(StreamsConfig.APPLICATION_ID_CONFIG, "off-heap-bad", StrataStoreConfigs.MEMORY_OFF_HEAP_CONFIG,
                        "yes", StrataStoreConfigs.BLOCK_CACHE_BYTES_CONFIG, 1L << 20)));
        assertTrue(e.getMessage().contains(StrataStoreConfigs.MEMORY_OFF_HEAP_CONFIG), e.getMessage());
        assertEquals(null, StrataStoreConfigs.sharedIfMade("off-heap-bad"), "a refused value builds nothing");
    }

    @Test
    void badValuesAreRefusedNamingTheKey() {
        StoreConfig base = StrataStores.DEFAULT_CONFIG;
        ConfigException e = assertThrows(ConfigException.class, () -> StrataStoreConfigs.forStore("s", base,
                Map.of(StreamsConfig.APPLICATION_ID_CONFIG, "bad", StrataStoreConfigs.MEMTABLE_BUDGET_BYTES_CONFIG, "lots")));
        assertTrue(e.getMessage().contains(StrataStoreConfigs.MEMTABLE_BUDGET_BYTES_CONFIG), e.getMessage());
        e = assertThrows(ConfigException.class, () -> StrataStoreConfigs.forStore("s", base,
                Map.of(StrataStoreConfigs.CONFIG_SETTER_CONFIG, String.class.getName())));
        assertTrue(e.getMessage().contains("does not implement"), e.getMessage());
        e = assertThrows(ConfigException.class, () -> StrataStoreConfigs.forStore("s", base,
                Map.of(StrataStoreConfigs.CONFIG_SETTER_CONFIG, "no.such.Setter")));
        assertTrue(e.getMessage().contains("not found"), e.getMessage());
        e = assertThrows(ConfigException.class, () -> StrataStoreConfigs.forStore("s", base,
                Map.of(StreamsConfig.APPLICATION_ID_CONFIG, "bad", StrataStoreConfigs.BACKGROUND_THREADS_CONFIG, "1")));
        assertTrue(e.getMessage().contains(StrataStoreConfigs.BACKGROUND_THREADS_CONFIG), e.getMessage());
        e = assertThrows(ConfigException.class, () -> StrataStoreConfigs.forStore("s", base,
                Map.of(StreamsConfig.APPLICATION_ID_CONFIG, "bad", StrataStoreConfigs.BACKGROUND_THREADS_CONFIG, "many")));
        assertTrue(e.getMessage().contains(StrataStoreConfigs.BACKGROUND_THREADS_CONFIG), e.getMessage());
        assertSame(base, StrataStoreConfigs.forStore("s", base, Map.of()));
    }
}
