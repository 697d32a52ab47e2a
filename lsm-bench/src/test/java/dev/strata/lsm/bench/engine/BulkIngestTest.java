package dev.strata.lsm.bench.engine;

import dev.strata.lsm.StoreConfig;
import dev.strata.lsm.testkit.TestKeys;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The engines' bulk loads of external table files, on a few thousand records. */
class BulkIngestTest {
    private static final StoreConfig SMALL = StoreConfig.builder().memtableBytes(64 << 10).blockCacheBytes(1 << 20)
            .build();

    private static byte[] key(int i) {
        return TestKeys.padded("key", i, 6).getBytes(StandardCharsets.US_ASCII);
    }

    private static byte[] value(int i) {
        return String.format("value-%06d-%s", i, "x".repeat(80)).getBytes(StandardCharsets.US_ASCII);
    }

    @ParameterizedTest
    @ValueSource(strings = {"strata", "rocksdb"})
    void filesWrittenInKeyOrderAreIngestedAndTheExternalFilesAreGone(String name, @TempDir Path tmp) {
        Path dir = tmp.resolve(name);
        Path staging = tmp.resolve("files");
        try (BenchEngine e = BenchEngine.open(name, dir, SMALL)) {
            e.put(key(99_999), value(99_999)); // a write before the ingest stays readable
            BulkIngest bulk = e.bulkIngest();
            assertTrue(bulk.describe().contains(name.equals("strata") ? "LsmStore.ingest" : "ingestExternalFile"),
                    bulk.describe());
            Files.createDirectories(staging);
            List<Path> files = new ArrayList<>();
            for (int f = 0; f < 3; f++) {
                Path file = staging.resolve("part-" + f + ".sst");
                try (BulkIngest.TableFile t = bulk.create(file)) {
                    for (int i = f * 1000; i < (f + 1) * 1000; i++) {
                        t.put(key(i), value(i));
                    }
                    long size = t.finish();
                    assertTrue(size > 1000L * 90, "file of " + size + " bytes holds the records");
                    assertEquals(size, Files.size(file));
                }
                files.add(file);
            }
            bulk.ingest(files);
            for (Path file : files) {
                assertFalse(Files.exists(file), file + " is taken over by the store");
            }
            for (int i = 0; i < 3000; i += 7) {
                assertArrayEquals(value(i), e.get(key(i)), "record " + i);
            }
            assertArrayEquals(value(2999), e.get(key(2999)));
            assertArrayEquals(value(99_999), e.get(key(99_999)));
            assertNull(e.get(key(3000)));
            assertEquals(10, e.scan(key(995), 10), "a scan crosses from one ingested file into the next");
            e.settle();
            assertArrayEquals(value(1500), e.get(key(1500)), "data survives settling");
        } catch (java.io.IOException ex) {
            throw new java.io.UncheckedIOException(ex);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"strata", "rocksdb"})
    void keysOutOfOrderAreRefused(String name, @TempDir Path tmp) {
        try (BenchEngine e = BenchEngine.open(name, tmp.resolve(name), SMALL);
             BulkIngest.TableFile t = e.bulkIngest().create(tmp.resolve("bad.sst"))) {
            t.put(key(2), value(2));
            assertThrows(RuntimeException.class, () -> t.put(key(1), value(1)));
        }
    }

    @Test
    void leveldbHasNoBulkIngest(@TempDir Path tmp) {
        try (BenchEngine e = BenchEngine.open("leveldb", tmp.resolve("l"), SMALL)) {
            assertNull(e.bulkIngest());
        }
    }
}
