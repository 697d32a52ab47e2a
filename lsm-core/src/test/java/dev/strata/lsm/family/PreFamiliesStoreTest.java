package dev.strata.lsm.family;

import dev.strata.lsm.ColumnFamily;
import dev.strata.lsm.Cursor;
import dev.strata.lsm.FamilyOptions;
import dev.strata.lsm.LsmStore;
import dev.strata.lsm.version.FamilyCatalog;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A store directory written before column families existed ({@link PreFamiliesStoreFixture}:
 * tables, a manifest and a WAL segment with unflushed writes) opens unchanged, reads what it
 * held, and can then take families.
 */
class PreFamiliesStoreTest {
    private static final List<String> FILES = List.of("000009.wal", "000011.sst", "CURRENT", "MANIFEST-000001");

    @TempDir
    Path dir;

    @Test
    void aStoreFromBeforeFamiliesOpensUnchangedAndCanTakeFamilies() throws IOException {
        for (String name : FILES) {
            try (InputStream in = getClass().getResourceAsStream("/pre-families-store/" + name)) {
                Files.copy(in, dir.resolve(name));
            }
        }
        Map<String, String> expected = PreFamiliesStoreFixture.expected();
        try (LsmStore store = LsmStore.open(dir, PreFamiliesStoreFixture.config())) {
            assertEquals(expected, contents(store, null), "the old store's data, the WAL's unflushed writes included");
            assertEquals(List.of("default"), store.listColumnFamilies().stream().map(ColumnFamily::name).toList());
        }
        assertFalse(Files.exists(dir.resolve(FamilyCatalog.FILE)), "opening alone writes no catalog");
        try (LsmStore store = LsmStore.open(dir, PreFamiliesStoreFixture.config())) {
            assertEquals(expected, contents(store, null));
            ColumnFamily f = store.createColumnFamily("new", FamilyOptions.defaults());
            store.put(f, "k".getBytes(StandardCharsets.US_ASCII), "v".getBytes(StandardCharsets.US_ASCII));
            store.put("key-00000".getBytes(StandardCharsets.US_ASCII), "again".getBytes(StandardCharsets.US_ASCII));
            expected.put("key-00000", "again");
        }
        assertTrue(Files.exists(dir.resolve(FamilyCatalog.FILE)));
        try (LsmStore store = LsmStore.open(dir, PreFamiliesStoreFixture.config())) {
            assertEquals(expected, contents(store, null));
            assertEquals(Map.of("k", "v"), contents(store, store.columnFamily("new")));
        }
    }

    private static Map<String, String> contents(LsmStore store, ColumnFamily family) {
        Map<String, String> m = new TreeMap<>();
        try (Cursor c = family == null ? store.scan(null, null) : store.scan(family, null, null)) {
            while (c.next()) {
                m.put(new String(c.key(), StandardCharsets.US_ASCII), new String(c.value(), StandardCharsets.US_ASCII));
            }
        }
        return m;
    }
}
