package dev.strata.lsm.bench.engine;

import dev.strata.lsm.PrefixExtractor;
import dev.strata.lsm.StoreConfig;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.ByteBuffer;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The adapters' calls behind the scanreverse, countermerge/counterrmw and prefixscan
 * workloads give the same answers on Strata and RocksDB, with and without a prefix extractor.
 */
class ReadExtensionsTest {
    @TempDir
    Path dir;

    private static byte[] key(int group, int i) {
        return new byte[] {0, (byte) group, (byte) i};
    }

    @ParameterizedTest
    @ValueSource(strings = {"strata", "rocksdb"})
    void reverseScansCountersAndPrefixScans(String engine) {
        for (PrefixExtractor extractor : new PrefixExtractor[] {null, PrefixExtractor.fixed(2)}) {
            StoreConfig config = StoreConfig.builder().prefixExtractor(extractor).build();
            try (BenchEngine e = BenchEngine.open(engine, dir.resolve(engine + (extractor == null ? "" : "-p")), config)) {
                assertTrue(e.hasReadExtensions());
                for (int g = 1; g <= 3; g++) {
                    for (int i = 0; i < 10; i++) {
                        e.put(key(g, i), new byte[] {(byte) i});
                    }
                }
                e.settle();
                assertEquals(10, e.scanPrefix(new byte[] {0, 2}), engine + " " + extractor);
                assertEquals(0, e.scanPrefix(new byte[] {0, 4}));
                assertEquals(1, e.scanPrefix(key(3, 9)));
                assertEquals(30, e.scanPrefix(new byte[] {0}), "a prefix shorter than the extractor's");
                assertEquals(15, e.scanReverse(key(2, 4), 100), "2/4 .. 2/0, then group 1");
                assertEquals(5, e.scanReverse(new byte[] {0, 2, 4, 0}, 5), "from the last key at or before");
                assertEquals(3, e.scanReverse(key(1, 9), 3));
                assertEquals(0, e.scanReverse(new byte[] {0, 0}, 5));
                byte[] counter = {1, 0, 0};
                for (int i = 0; i < 5; i++) {
                    e.mergeAdd(counter, 3);
                }
                e.settle();
                e.mergeAdd(counter, 1);
                assertArrayEquals(ByteBuffer.allocate(8).putLong(16).array(), e.get(counter));
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"leveldb"})
    void leveldbRunsNoneOfThem(String engine) {
        try (BenchEngine e = BenchEngine.open(engine, dir.resolve(engine), StoreConfig.defaults())) {
            assertFalse(e.hasReadExtensions());
            assertThrows(UnsupportedOperationException.class, () -> e.mergeAdd(new byte[] {1}, 1));
        }
    }
}
