package dev.strata.lsm.engine;

import dev.strata.lsm.LsmStore;
import dev.strata.lsm.StoreConfig;
import dev.strata.lsm.cache.BlockCache;
import dev.strata.lsm.io.FileChannelStorageIO;
import dev.strata.lsm.io.IoPurpose;
import dev.strata.lsm.io.OpenMode;
import dev.strata.lsm.io.PageFile;
import dev.strata.lsm.Compression;
import dev.strata.lsm.sstable.SSTableReader;
import dev.strata.lsm.testkit.TestKeys;
import dev.strata.lsm.version.TableFiles;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A store whose codec changes between opens: each table keeps the codec it was written with
 * (read back from its footer) until a merge rewrites it with the codec configured then, and
 * every value stays readable across reopens and merges of tables of different codecs.
 */
class MixedCodecStoreTest {
    @TempDir
    Path dir;

    private static byte[] key(int i) {
        return TestKeys.padded("key-", i, 8).getBytes();
    }

    private static byte[] value(int i, int round) {
        return ("value of " + i + " written in round " + round + " ").repeat(3).getBytes();
    }

    /** The codec of the newest table version in each table file of the store. */
    private static List<Compression> tableCodecs(Path dir) throws IOException {
        List<Compression> out = new ArrayList<>();
        try (Stream<Path> files = Files.list(dir)) {
            for (Path p : files.filter(f -> f.toString().endsWith(TableFiles.SUFFIX)).sorted().toList()) {
                try (PageFile file = new FileChannelStorageIO().open(p, OpenMode.READ, IoPurpose.READ)) {
                    out.add(SSTableReader.open(file, file.size() - 4096, 1, BlockCache.disabled()).footer()
                            .compression());
                }
            }
        }
        return out;
    }

    @Test
    void eachTableKeepsItsCodecUntilMerged() throws IOException {
        Compression[] rounds = {Compression.LZ4, Compression.ZSTD, Compression.SNAPPY, Compression.NONE};
        int keys = 3000;
        StoreConfig base = StoreConfig.builder().mergePolicy("no-merge").memtableBytes(8 << 20).build();
        for (int round = 0; round < rounds.length; round++) {
            try (LsmStore store = LsmStore.open(dir, base.toBuilder().compression(rounds[round]).build())) {
                // Each round overwrites a third of the keys (round 0 writes them all).
                for (int i = 0; i < keys; i++) {
                    if (round == 0 || i % 3 == round % 3) {
                        store.put(key(i), value(i, round));
                    }
                }
                store.flush();
            }
            List<Compression> codecs = tableCodecs(dir);
            assertEquals(round + 1, codecs.size(), "one table per round: " + codecs);
            assertEquals(List.of(rounds).subList(0, round + 1), codecs, "each table keeps its codec");
        }
        // Every value is the newest one, read through tables of four codecs.
        try (LsmStore store = LsmStore.open(dir, base.toBuilder().compression(Compression.NONE).build())) {
            for (int i = 0; i < keys; i++) {
                assertArrayEquals(value(i, newestRound(i, rounds.length)), store.get(key(i)), "key " + i);
            }
        }
        // A merge of all four (size-tiered, fanout 2) rewrites them with the codec configured now.
        StoreConfig merging = base.toBuilder().compression(Compression.ZSTD)
                .mergePolicy("size-tiered", Map.of("fanout", "2", "max-runs", "2")).build();
        try (LsmStore store = LsmStore.open(dir, merging)) {
            store.put(key(0), value(0, 9));
            store.flush();
            store.awaitMerges();
            for (int i = 1; i < keys; i++) {
                assertArrayEquals(value(i, newestRound(i, rounds.length)), store.get(key(i)), "key " + i);
            }
            assertArrayEquals(value(0, 9), store.get(key(0)));
        }
        List<Compression> after = tableCodecs(dir);
        assertTrue(after.size() < rounds.length + 1, "the tables were merged: " + after);
        Set<Compression> kinds = EnumSet.copyOf(after);
        assertEquals(EnumSet.of(Compression.ZSTD), kinds, "merge outputs take the configured codec: " + after);
    }

    private static int newestRound(int i, int rounds) {
        int newest = 0;
        for (int r = 1; r < rounds; r++) {
            if (i % 3 == r % 3) {
                newest = r;
            }
        }
        return newest;
    }
}
