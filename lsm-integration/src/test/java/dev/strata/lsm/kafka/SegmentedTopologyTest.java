package dev.strata.lsm.kafka;

import dev.strata.lsm.testkit.TestScale;
import org.apache.kafka.streams.state.BuiltInDslStoreSuppliers;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import dev.strata.lsm.testkit.SlowTest;

/**
 * A topology with a windowed count and a session count ({@link SegmentedTopologyRun},
 * {@code 400 * strata.test.multiplier} events over 12 keys and about 35 minutes, some late;
 * 1,200 in the slow lane, SegmentedTopologyTest at multiplier 3) under {@link StrataDslStoreSuppliers}
 * gives the output and the final store contents Kafka's in-memory stores give, keeps its
 * window and session stores in Strata segments, drops expired segments, and never loads
 * rocksdbjni: each run is in a class loader of its own (the test classpath, parent the
 * platform loader), which is asked afterwards whether it loaded {@code org.rocksdb.RocksDB}.
 * The same run with Kafka's default RocksDB suppliers does load it (the check can fail).
 */
@SlowTest
class SegmentedTopologyTest {
    private static final long SEED = 31;
    /** Events of a run; every run's windowed and session outputs hold more than half as many records. */
    private static final int EVENTS = TestScale.scaled(400);

    @TempDir
    Path stateDir;

    private record Run(Map<String, List<String>> result, boolean rocksDbLoaded) {
    }

    @SuppressWarnings("unchecked")
    private Run run(String name, Class<?> suppliers) throws Exception {
        try (IsolatedLoader loader = new IsolatedLoader()) {
            Class<?> runner = loader.loadClass(SegmentedTopologyRun.class.getName());
            assertTrue(runner.getClassLoader() == loader, "the run is isolated");
            Callable<Map<String, List<String>>> call = (Callable<Map<String, List<String>>>) runner
                    .getConstructor(String.class, String.class, long.class, int.class)
                    .newInstance(stateDir.resolve(name).toString(), suppliers.getName(), SEED, EVENTS);
            // Kafka's configs load classes named in them through the context class loader
            ClassLoader previous = Thread.currentThread().getContextClassLoader();
            Thread.currentThread().setContextClassLoader(loader);
            try {
                Map<String, List<String>> result = call.call();
                return new Run(result, loader.loaded("org.rocksdb.RocksDB"));
            } finally {
                Thread.currentThread().setContextClassLoader(previous);
            }
        }
    }

    @Test
    void windowAndSessionStoresOnStrataGiveInMemoryResultsWithoutLoadingRocksDb() throws Exception {
        Run memory = run("memory", BuiltInDslStoreSuppliers.InMemoryDslStoreSuppliers.class);
        Run strata = run("strata", StrataDslStoreSuppliers.class);

        assertFalse(strata.rocksDbLoaded(), "a topology under StrataDslStoreSuppliers loaded org.rocksdb.RocksDB");
        assertTrue(memory.result().get("windows").size() > EVENTS / 2, "windowed counts: " + memory.result().get("windows").size());
        assertTrue(memory.result().get("sessions").size() > EVENTS / 2, "session counts: " + memory.result().get("sessions").size());
        assertTrue(memory.result().get("sessions").stream().anyMatch(r -> r.endsWith("=null")), "sessions merged");
        for (String part : List.of("windows", "sessions", "windowStore", "sessionStore")) {
            assertEquals(memory.result().get(part), strata.result().get(part), part);
        }

        List<String> windowSegments = strata.result().get("windowSegments");
        List<String> sessionSegments = strata.result().get("sessionSegments");
        // retention 90 s (size + grace), segments of 60 s: at most 3 live of the about 35 made
        assertTrue(!windowSegments.isEmpty() && windowSegments.size() <= 3, "window segments " + windowSegments);
        assertTrue(!sessionSegments.isEmpty() && sessionSegments.size() <= 3, "session segments " + sessionSegments);
        List<String> files = strata.result().get("files");
        assertTrue(files.stream().noneMatch(f -> f.contains("rocksdb") || f.contains("counts.")),
                "no RocksDB files (its segments would be <store>.<start>): " + files);
    }

    @Test
    void theSameRunOnKafkasRocksDbSuppliersLoadsRocksDb() throws Exception {
        Run rocks = run("rocks", BuiltInDslStoreSuppliers.RocksDBDslStoreSuppliers.class);
        assertTrue(rocks.rocksDbLoaded(), "the class-loading check sees RocksDB when it is used");
        assertTrue(rocks.result().get("windows").size() > EVENTS / 2);
    }

}
