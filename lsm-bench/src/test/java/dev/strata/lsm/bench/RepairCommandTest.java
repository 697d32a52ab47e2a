package dev.strata.lsm.bench;

import dev.strata.lsm.CorruptionException;
import dev.strata.lsm.LsmStore;
import dev.strata.lsm.StoreConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.stream.Stream;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class RepairCommandTest {
    @RegisterExtension
    final StandardStreams streams = new StandardStreams();

    @TempDir
    Path dir;

    @Test
    void repairMakesAStoreWithADamagedManifestOpenAgain() throws IOException {
        StoreConfig config = StoreConfig.builder().memtableBytes(64 << 10).mergePolicy("no-merge").build();
        try (LsmStore store = LsmStore.open(dir, config)) {
            for (int i = 0; i < 3000; i++) {
                store.put(("k" + i).getBytes(UTF_8), ("v" + i).getBytes(UTF_8));
            }
            store.flush();
        }
        try (Stream<Path> files = Files.list(dir)) {
            Path manifest = files.filter(p -> p.getFileName().toString().startsWith("MANIFEST-")).findFirst().orElseThrow();
            try (FileChannel c = FileChannel.open(manifest, StandardOpenOption.WRITE)) {
                c.truncate(200);
            }
        }
        assertThrows(CorruptionException.class, () -> LsmStore.open(dir, config).close());

        assertEquals(0, BenchCli.run("repair", dir.toString()), streams.err());
        assertTrue(streams.out().contains("repaired " + dir), streams.out());
        try (LsmStore store = LsmStore.open(dir, config)) {
            for (int i = 0; i < 3000; i++) {
                assertArrayEquals(("v" + i).getBytes(UTF_8), store.get(("k" + i).getBytes(UTF_8)), "k" + i);
            }
        }
    }

    @Test
    void repairOfAMissingDirectoryFailsWithAMessage() {
        assertEquals(1, BenchCli.run("repair", dir.resolve("nope").toString()));
        assertTrue(streams.err().contains("nope"), streams.err());
    }

    @Test
    void repairOfAnOpenStoreIsRefused() {
        try (LsmStore store = LsmStore.open(dir, StoreConfig.defaults())) {
            store.put("a".getBytes(UTF_8), "b".getBytes(UTF_8));
            assertEquals(1, BenchCli.run("repair", dir.toString()));
            assertTrue(streams.err().contains("open"), streams.err());
            assertArrayEquals("b".getBytes(UTF_8), store.get("a".getBytes(UTF_8)));
        }
    }
}
