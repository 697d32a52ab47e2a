package dev.strata.lsm.family;

import dev.strata.lsm.ColumnFamily;
import dev.strata.lsm.FamilyOptions;
import dev.strata.lsm.IngestOptions;
import dev.strata.lsm.LsmStore;
import dev.strata.lsm.MemoryRead;
import dev.strata.lsm.StoreConfig;
import dev.strata.lsm.TableWriter;
import dev.strata.lsm.WriteOptions;
import dev.strata.lsm.testkit.TestKeys;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The per-family forms of ingest, getAll, getFromMemory and the calls with {@link WriteOptions}. */
class FamilyCallsTest {
    @TempDir
    Path tmp;

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static String s(byte[] v) {
        return v == null ? null : new String(v, StandardCharsets.UTF_8);
    }

    private static byte[] u64(long v) {
        return ByteBuffer.allocate(8).putLong(v).array();
    }

    @Test
    void ingestIntoAFamilyPlacesItsTablesThereAndLeavesTheOthers() throws Exception {
        StoreConfig config = StoreConfig.builder().mergePolicy("size-tiered", Map.of()).build();
        try (LsmStore store = LsmStore.open(tmp.resolve("s"), config)) {
            ColumnFamily a = store.createColumnFamily("a", FamilyOptions.defaults());
            store.put(a, b("k05"), b("old"));
            store.put(a, b("k99"), b("memtable")); // written before: the ingest is newer
            store.put(b("k05"), b("default"));
            Path file = tmp.resolve("t.sst");
            try (TableWriter w = TableWriter.create(file, config)) {
                for (int i = 0; i < 100; i++) {
                    w.put(b(TestKeys.padded("k", i, 2)), b("ingested" + i));
                }
                w.finish();
            }
            long defaultFlushes = store.stats().flushCount();
            store.ingest(a, List.of(file), IngestOptions.defaults());
            assertEquals("ingested5", s(store.get(a, b("k05"))));
            assertEquals("ingested99", s(store.get(a, b("k99"))));
            assertEquals("default", s(store.get(b("k05"))), "the default family is untouched");
            assertNull(store.get(b("k06")));
            assertEquals(defaultFlushes, store.stats().flushCount(), "the other families' memtables are not flushed");
            assertTrue(store.columnFamilyStats(a).componentCount() >= 1);
            store.put(a, b("k05"), b("newer"));
            assertEquals("newer", s(store.get(a, b("k05"))));
        }
        try (LsmStore store = LsmStore.open(tmp.resolve("s"), config)) {
            ColumnFamily a = store.columnFamily("a");
            assertEquals("newer", s(store.get(a, b("k05"))));
            assertEquals("ingested50", s(store.get(a, b("k50"))));
            assertNull(store.get(b("k50")));
        }
    }

    @Test
    void getAllGetFromMemoryAndWriteOptionsPerFamily() {
        StoreConfig config = StoreConfig.builder().mergeOperator("uint64add").build();
        try (LsmStore store = LsmStore.open(tmp.resolve("s"), config)) {
            ColumnFamily a = store.createColumnFamily("a", FamilyOptions.defaults());
            WriteOptions sync = WriteOptions.defaults().sync(true);
            store.put(a, b("x"), b("1"), sync);
            store.put(a, b("y"), b("2"));
            store.put(b("x"), b("default"));
            store.merge(a, b("n"), u64(2), sync);
            store.merge(a, b("n"), u64(3), WriteOptions.defaults());
            byte[][] got = store.getAll(a, b("y"), b("x"), b("none"), b("x"));
            assertEquals(java.util.Arrays.asList("2", "1", null, "1"), java.util.Arrays.stream(got).map(FamilyCallsTest::s).toList());
            assertEquals(5, ByteBuffer.wrap(store.get(a, b("n"))).getLong());

            MemoryRead inMemory = store.getFromMemory(a, b("x"));
            assertTrue(inMemory.answered());
            assertEquals("1", s(inMemory.value()));
            // Nothing of family a flushed yet: a key its memtable lacks is absent, known from memory.
            assertTrue(store.getFromMemory(a, b("absent")).answered());
            assertNull(store.getFromMemory(a, b("absent")).value());
            store.delete(a, b("x"), sync);
            assertTrue(store.getFromMemory(a, b("x")).answered());
            assertNull(store.getFromMemory(a, b("x")).value());
            assertEquals("default", s(store.getFromMemory(b("x")).value()), "the default family is separate");
            store.flushColumnFamily(a);
            assertFalse(store.getFromMemory(a, b("y")).answered(), "flushed: not in memory any more");
            assertEquals("2", s(store.get(a, b("y"))));

            store.put(a, b("r1"), b("v"));
            store.put(a, b("r2"), b("v"));
            store.deleteRange(a, b("r"), b("s"), sync);
            assertNull(store.get(a, b("r1")));
            store.put(b("r1"), b("v"));
            store.deleteRange(b("r"), b("s"), WriteOptions.defaults());
            assertNull(store.get(b("r1")));
            assertArrayEquals(b("2"), store.get(a, b("y")));
        }
    }

    @Test
    void droppedAndForeignHandlesAreRefusedNamingTheFamily() throws Exception {
        try (LsmStore store = LsmStore.open(tmp.resolve("s"));
             LsmStore other = LsmStore.open(tmp.resolve("o"))) {
            ColumnFamily gone = store.createColumnFamily("gone", FamilyOptions.defaults());
            store.dropColumnFamily(gone);
            ColumnFamily foreign = other.createColumnFamily("foreign", FamilyOptions.defaults());
            Path file = tmp.resolve("t.sst");
            try (TableWriter w = TableWriter.create(file, store.config())) {
                w.put(b("k"), b("v"));
                w.finish();
            }
            for (ColumnFamily cf : List.of(gone, foreign)) {
                List<org.junit.jupiter.api.function.Executable> calls = List.of(
                        () -> store.ingest(cf, List.of(file), IngestOptions.defaults()),
                        () -> store.getAll(cf, b("k")),
                        () -> store.getFromMemory(cf, b("k")),
                        () -> store.delete(cf, b("k"), WriteOptions.defaults()),
                        () -> store.merge(cf, b("k"), b("o"), WriteOptions.defaults()),
                        () -> store.deleteRange(cf, b("a"), b("b"), WriteOptions.defaults()));
                for (var call : calls) {
                    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, call);
                    assertTrue(e.getMessage().contains("\"" + cf.name() + "\""), e.getMessage());
                }
            }
            assertNull(store.get(b("k")), "nothing was ingested");
        }
    }
}
