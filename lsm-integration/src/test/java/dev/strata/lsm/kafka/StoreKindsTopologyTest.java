package dev.strata.lsm.kafka;

import dev.strata.lsm.testkit.TestScale;
import org.apache.kafka.streams.state.BuiltInDslStoreSuppliers;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Callable;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every kind of store the DSL makes ({@link StoreKindsTopologyRun}: a count per key, a windowed
 * count and a session aggregate that emit on window close, a windowed and a session count
 * that emit every update, a stream-stream left join), in the default and in the headers format
 * (KIP-1271), under {@link StrataDslStoreSuppliers}: the outputs equal those of the same run on
 * Kafka's default RocksDB suppliers, record for record and in order with the record cache off;
 * with it on, the same records, in the same order per key (the order across keys of one
 * emission on window close may differ: see {@link StrataWindowStore}, "Time-ordered"). The
 * stores are Strata's of the expected kind, and a run of all of them, both formats, never loads
 * {@code org.rocksdb.RocksDB} (checked in a class loader of its own, as
 * {@link SegmentedTopologyTest} does, whose control run shows the check sees RocksDB when used).
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class StoreKindsTopologyTest {
    private static final long SEED = 1271;
    private static final int EVENTS = TestScale.scaled(80);

    @TempDir
    Path stateDir;

    private Map<String, List<String>> run(String name, Class<?> suppliers, boolean headers, boolean caching) {
        long start = System.nanoTime();
        Map<String, List<String>> result = new StoreKindsTopologyRun(stateDir.resolve(name).toString(),
                suppliers.getName(), headers, caching, SEED, EVENTS).call();
        System.out.printf("%s headers=%s caching=%s: %d ms%n", suppliers.getSimpleName(), headers, caching,
                (System.nanoTime() - start) / 1_000_000);
        return result;
    }

    @Order(1)
    @ParameterizedTest(name = "headers={0}")
    @ValueSource(booleans = {false, true})
    void everyStoreKindOnStrataGivesTheOutputsOfKafkasRocksDbStores(boolean headers) {
        Map<String, List<String>> rocks = run("rocks", BuiltInDslStoreSuppliers.RocksDBDslStoreSuppliers.class,
                headers, false);
        Map<String, List<String>> strata = run("strata", StrataDslStoreSuppliers.class, headers, false);

        for (String topic : StoreKindsTopologyRun.OUTPUTS) {
            assertEquals(rocks.get(topic), strata.get(topic), topic);
        }
        // the runs did something: closed windows and sessions were emitted, sessions merged
        assertTrue(rocks.get("window-final-out").size() > EVENTS / 5, "final windows " + rocks.get("window-final-out"));
        assertTrue(rocks.get("session-final-out").size() > EVENTS / 5, "final sessions "
                + rocks.get("session-final-out"));
        assertTrue(rocks.get("session-final-out").stream().anyMatch(r -> r.length() > r.indexOf('=') + 3),
                "some final session aggregates several records");
        assertTrue(rocks.get("join-out").stream().anyMatch(r -> r.endsWith("+null"))
                && rocks.get("join-out").stream().anyMatch(r -> !r.endsWith("+null")), "join results");
        // ... and emitted the closed windows by time across keys, as Kafka's time-ordered store does
        List<String> finalWindows = strata.get("window-final-out");
        assertTrue(finalWindows.stream().map(StoreKindsTopologyTest::windowStart).toList()
                .equals(finalWindows.stream().map(StoreKindsTopologyTest::windowStart).sorted().toList()),
                "final windows in start order: " + finalWindows);

        assertEquals(List.of((headers ? StrataTimestampedKeyValueStoreWithHeaders.class
                : StrataTimestampedKeyValueStore.class).getName()), strata.get("store:counts"));
        assertEquals(List.of((headers ? StrataTimestampedWindowStoreWithHeaders.class
                : StrataTimestampedWindowStore.class).getName()), strata.get("store:window-final"));
        assertEquals(List.of((headers ? StrataSessionStoreWithHeaders.class : StrataSessionStore.class).getName()),
                strata.get("store:session-final"));
        assertEquals(strata.get("store:window-final"), strata.get("store:window-counts"));
        assertEquals(strata.get("store:session-final"), strata.get("store:session-counts"));
        // the DSL did build every store in the format asked, over Kafka's stores and over Strata's
        for (String store : StoreKindsTopologyRun.STORES) {
            for (Map<String, List<String>> run : List.of(rocks, strata)) {
                String outer = run.get("outer:" + store).get(0);
                assertEquals(headers, outer.endsWith("WithHeaders"), store + ": " + outer);
            }
        }
        assertTrue(strata.get("files").stream().noneMatch(f -> f.contains("rocksdb")), "no RocksDB files: "
                + strata.get("files"));
        assertTrue(rocks.get("files").stream().anyMatch(f -> f.contains("rocksdb")), "RocksDB files in the control");
    }

    @Order(2)
    @Test
    void withTheRecordCacheTheSameRecordsComeInTheSameOrderPerKey() {
        // The reference is Kafka's RocksDB run without the cache: the driver commits, and so
        // flushes the cache, after every record, so the cache changes no record emitted here,
        // only, for emission on window close, the order across keys (Kafka's own cached run
        // takes about 40 s on RocksDB: StoreKindsTopologySlowTest compares with it).
        Map<String, List<String>> reference = run("rocks", BuiltInDslStoreSuppliers.RocksDBDslStoreSuppliers.class,
                false, referenceCaching());
        Map<String, List<String>> strata = run("strata", StrataDslStoreSuppliers.class, false, true);
        for (String topic : StoreKindsTopologyRun.OUTPUTS) {
            assertEquals(byKey(reference.get(topic)), byKey(strata.get(topic)), topic);
        }
        assertTrue(reference.get("window-final-out").size() > EVENTS / 5, "final windows "
                + reference.get("window-final-out"));
        // the time-ordered window store was under Kafka's key-ordered cache, and read in key order
        assertTrue(strata.get("chain:window-final").contains(
                "org.apache.kafka.streams.state.internals.CachingWindowStore"), strata.get("chain:window-final")
                .toString());
    }

    /** Whether the reference run of {@link #withTheRecordCacheTheSameRecordsComeInTheSameOrderPerKey} caches. */
    boolean referenceCaching() {
        return false;
    }

    @Order(3)
    @Test
    @SuppressWarnings("unchecked")
    void everyStoreKindInBothFormatsNeverLoadsRocksDb() throws Exception {
        try (IsolatedLoader loader = new IsolatedLoader()) {
            Class<?> runner = loader.loadClass(StoreKindsTopologyRun.class.getName());
            assertTrue(runner.getClassLoader() == loader, "the run is isolated");
            ClassLoader previous = Thread.currentThread().getContextClassLoader();
            Thread.currentThread().setContextClassLoader(loader);  // Kafka loads configured classes through it
            try {
                for (boolean headers : new boolean[] {false, true}) {
                    Callable<Map<String, List<String>>> call = (Callable<Map<String, List<String>>>) runner
                            .getConstructor(String.class, String.class, boolean.class, boolean.class, long.class,
                                    int.class)
                            .newInstance(stateDir.resolve("isolated-" + headers).toString(),
                                    StrataDslStoreSuppliers.class.getName(), headers, false, SEED, EVENTS);
                    Map<String, List<String>> result = call.call();
                    for (String topic : StoreKindsTopologyRun.OUTPUTS) {
                        assertFalse(result.get(topic).isEmpty(), "the run wrote to " + topic);
                    }
                    assertTrue(result.get("store:window-final").get(0).startsWith("dev.strata"),
                            result.get("store:window-final").toString());
                }
            } finally {
                Thread.currentThread().setContextClassLoader(previous);
            }
            assertFalse(loader.loaded("org.rocksdb.RocksDB"),
                    "a topology of every store kind under StrataDslStoreSuppliers loaded org.rocksdb.RocksDB");
            assertTrue(loader.loaded("org.apache.kafka.streams.state.internals.CachingWindowStore")
                    || loader.loaded(StrataWindowStore.class.getName()), "the loader ran the topologies");
        }
    }

    private static long windowStart(String record) {
        return Long.parseLong(record.substring(record.indexOf('@') + 1, record.indexOf('=')));
    }

    /** The records grouped by their key (before '@' for windows and sessions), in order per key. */
    private static Map<String, List<String>> byKey(List<String> records) {
        Map<String, List<String>> out = new TreeMap<>();
        for (String r : records) {
            int end = r.indexOf('@') >= 0 ? r.indexOf('@') : r.indexOf('=');
            out.computeIfAbsent(r.substring(0, end), k -> new ArrayList<>()).add(r);
        }
        return out;
    }
}
