package dev.strata.lsm.bench.workload;

import dev.strata.lsm.StoreConfig;
import dev.strata.lsm.bench.engine.BenchEngine;
import dev.strata.lsm.bench.engine.BulkIngest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The ingest workload: files, the one call, the read-back check, the empty-store rule, not-supported rows. */
class IngestWorkloadTest {
    private static final StoreConfig SMALL = StoreConfig.builder().memtableBytes(64 << 10).blockCacheBytes(1 << 20)
            .build();

    private static WorkloadSettings settings(List<WorkloadType> workloads, long records, long perFile) {
        return new WorkloadSettings(workloads, records, records, 16, 100, 1, 7, null, 0.99, null, 100, 50, perFile);
    }

    @Test
    void startsFreshOnlyForIngestAfterAnythingAndFillsAfterIngest() {
        List<WorkloadType> w = List.of(WorkloadType.FILLSEQ, WorkloadType.INGEST, WorkloadType.READRANDOM,
                WorkloadType.FILLSEQ, WorkloadType.OVERWRITE);
        assertFalse(EngineRun.startsFresh(w, 0));
        assertTrue(EngineRun.startsFresh(w, 1), "ingest after a fill");
        assertFalse(EngineRun.startsFresh(w, 2), "reads use the ingested store");
        assertTrue(EngineRun.startsFresh(w, 3), "a fill after ingest");
        assertFalse(EngineRun.startsFresh(w, 4));
        assertFalse(EngineRun.startsFresh(List.of(WorkloadType.INGEST, WorkloadType.READRANDOM), 0));
        List<WorkloadType> none = List.of(WorkloadType.FILLRANDOM, WorkloadType.FILLSEQ, WorkloadType.READRANDOM);
        for (int i = 0; i < none.size(); i++) {
            assertFalse(EngineRun.startsFresh(none, i), "lists without ingest keep their store");
        }
    }

    @Test
    void ingestThenFillseqOnStrataAndRocksdbAndNotSupportedOnLeveldb(@TempDir Path tmp) throws Exception {
        WorkloadSettings s = settings(List.of(WorkloadType.INGEST, WorkloadType.READRANDOM, WorkloadType.FILLSEQ),
                2500, 1000);
        Comparison.Outcome o = Comparison.run(List.of("strata", "rocksdb", "leveldb"), 1, tmp, false, SMALL, s, null);
        Summary sum = o.summary();
        for (String engine : List.of("strata", "rocksdb")) {
            Summary.Row ingest = sum.rowsOf(engine).get(0);
            assertTrue(ingest.supported(), engine);
            assertEquals(2500, ingest.ops(), engine);
            assertTrue(ingest.opsPerSec() > 0, engine);
            Map<String, Object> c = ingest.engineCounters();
            assertEquals(3L, ((Number) c.get("ingestFiles")).longValue(), engine + " " + c);
            assertEquals(1001L, ((Number) c.get("ingestVerifiedKeys")).longValue(), engine + " " + c);
            assertTrue(((Number) c.get("ingestCallSeconds")).doubleValue() > 0, engine);
            assertEquals(3, ingest.byOperation().get(Operation.WRITE_FILE).count(), "one latency sample per file");
            assertEquals(1, ingest.byOperation().get(Operation.INGEST).count(), "one sample for the call");
            assertTrue(ingest.writeAmplification() >= 1.0, engine + " wrote every file byte at least once");
            Summary.Row read = sum.rowsOf(engine).get(1);
            assertEquals(0, read.misses(), engine + ": reads after the ingest find every key");
            assertTrue(sum.rowsOf(engine).get(2).supported());
            assertTrue(sum.ingestMethods().containsKey(engine));
        }
        Summary.Row leveldb = sum.rowsOf("leveldb").get(0);
        assertFalse(leveldb.supported());
        assertTrue(leveldb.notSupported().contains("no ingest"), leveldb.notSupported());
        assertTrue(Double.isNaN(leveldb.ratioToFirst()));
        assertFalse(sum.ingestMethods().containsKey("leveldb"));
        assertTrue(sum.rowsOf("leveldb").get(2).supported(), "leveldb still runs fillseq");
        assertTrue(sum.rowsOf("leveldb").get(2).opsPerSec() > 0);
        try (var left = Files.list(tmp)) {
            assertEquals(List.of(), left.toList(), "data and staging directories are deleted");
        }

        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        ResultTable.print(sum, s, new PrintStream(bytes, true, StandardCharsets.UTF_8));
        String table = bytes.toString(StandardCharsets.UTF_8);
        assertTrue(table.contains("not supported: leveldb has no ingest"), table);
        assertTrue(table.contains("write-file") && table.contains("external files of 1,000 records"), table);
        Map<String, Object> doc = ResultJson.document(sum, s, "lsm-bench compare");
        @SuppressWarnings("unchecked")
        List<Map<String, Object>> results = (List<Map<String, Object>>) doc.get("results");
        Map<String, Object> leveldbIngest = results.stream()
                .filter(r -> r.get("engine").equals("leveldb") && r.get("workload").equals("ingest"))
                .findFirst().orElseThrow();
        assertNull(leveldbIngest.get("opsPerSec"), "no number for a workload the engine cannot run");
        assertTrue(leveldbIngest.containsKey("notSupported"));
    }

    @Test
    void indexVerificationIngestsOnStrataAndIsReported(@TempDir Path tmp) throws Exception {
        WorkloadSettings s = new WorkloadSettings(List.of(WorkloadType.INGEST, WorkloadType.READRANDOM), 2500, 2500, 16,
                100, 1, 7, null, 0.99, null, 100, 50, 1.0, 1000, "index");
        Summary sum = Comparison.run(List.of("strata"), 1, tmp, false, SMALL, s, null).summary();
        Summary.Row ingest = sum.rowsOf("strata").get(0);
        assertEquals(2500, ingest.ops());
        assertEquals(1001L, ((Number) ingest.engineCounters().get("ingestVerifiedKeys")).longValue());
        assertEquals(0, sum.rowsOf("strata").get(1).misses(), "reads after the ingest find every key");
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        ResultTable.print(sum, s, new PrintStream(bytes, true, StandardCharsets.UTF_8));
        assertTrue(bytes.toString(StandardCharsets.UTF_8).contains("ingest verification: index"));
        assertEquals("index", ResultJson.document(sum, s, "lsm-bench compare").get("settings") instanceof Map<?, ?> m
                ? m.get("ingestVerification") : null);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new WorkloadSettings(
                List.of(WorkloadType.INGEST), 10, 10, 16, 100, 1, 7, null, 0.99, null, 100, 50, 1.0, 1000, "footer"));
        assertTrue(e.getMessage().contains("--ingest-verification"), e.getMessage());
    }

    @Test
    void aWrongReadBackFailsTheRun(@TempDir Path tmp) throws Exception {
        // Strata underneath, but the bulk load drops the last file: the read-back must notice.
        Path dir = tmp.resolve("strata");
        WorkloadSettings s = settings(List.of(WorkloadType.INGEST), 3000, 1000);
        try (BenchEngine real = BenchEngine.open("strata", dir, SMALL)) {
            BenchEngine lossy = new ForwardingEngine(real) {
                @Override
                public BulkIngest bulkIngest() {
                    BulkIngest b = real.bulkIngest();
                    return new BulkIngest() {
                        @Override
                        public TableFile create(Path file) {
                            return b.create(file);
                        }

                        @Override
                        public void ingest(List<Path> files, boolean fullVerification) {
                            b.ingest(files.subList(0, files.size() - 1), fullVerification);
                        }

                        @Override
                        public String describe() {
                            return "drops the last file";
                        }
                    };
                }
            };
            IllegalStateException e = assertThrows(IllegalStateException.class,
                    () -> EngineRun.execute(lossy, dir, s, null));
            assertTrue(e.getMessage().contains("is missing after the ingest"), e.getMessage());
        }
    }

    @Test
    void ingestAfterAWriteNeedsAnEngineThatCanBeReopened(@TempDir Path tmp) {
        WorkloadSettings s = settings(List.of(WorkloadType.FILLSEQ, WorkloadType.INGEST), 100, 50);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> EngineRun.execute(new FakeEngine(0), tmp, s, null));
        assertTrue(e.getMessage().contains("needs an empty store"), e.getMessage());
    }

    @Test
    void fileSizeMustBePositive() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> settings(List.of(WorkloadType.INGEST), 10, 0));
        assertTrue(e.getMessage().contains("--ingest-file-records"), e.getMessage());
    }

    /** Passes every call to another engine. */
    private static class ForwardingEngine implements BenchEngine {
        private final BenchEngine e;

        ForwardingEngine(BenchEngine e) {
            this.e = e;
        }

        @Override
        public String name() {
            return e.name();
        }

        @Override
        public String describe() {
            return e.describe();
        }

        @Override
        public String durability() {
            return e.durability();
        }

        @Override
        public void put(byte[] key, byte[] value) {
            e.put(key, value);
        }

        @Override
        public byte[] get(byte[] key) {
            return e.get(key);
        }

        @Override
        public void delete(byte[] key) {
            e.delete(key);
        }

        @Override
        public int scan(byte[] from, int count) {
            return e.scan(from, count);
        }

        @Override
        public void settle() {
            e.settle();
        }

        @Override
        public Map<String, Object> ownCounters() {
            return e.ownCounters();
        }

        @Override
        public void close() {
        }
    }
}
