package dev.strata.lsm.server;

import dev.strata.lsm.LsmStore;
import dev.strata.lsm.StoreConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisDataException;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** BGSAVE writes an openable checkpoint into DATA/checkpoints/TIMESTAMP; LASTSAVE reports when. */
class BgsaveTest {
    @TempDir
    Path dir;

    @Test
    void bgsaveWritesACheckpointThatOpensWithTheKeys() throws Exception {
        Path checkpoints = dir.resolve(Checkpoints.DIRECTORY);
        try (TestNode node = new TestNode(dir); Jedis j = node.client()) {
            for (int i = 0; i < 1000; i++) {
                j.set("key" + i, "value" + i);
            }
            long before = j.lastsave();
            assertEquals("Background saving started", j.bgsave());
            // Wait for the save to finish: its directory appears by rename, whole (bounded wait).
            long deadline = System.nanoTime() + 60_000_000_000L;
            while (list(checkpoints).isEmpty() && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertEquals(1, list(checkpoints).size(), "one checkpoint in " + checkpoints);
            while (j.lastsave() < before && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertTrue(j.lastsave() >= before);
            j.set("after", "the save");
            // A second save while one may still run is refused or starts; either way the node answers.
            try {
                j.bgsave();
            } catch (JedisDataException e) {
                assertTrue(e.getMessage().contains("in progress"), e.getMessage());
            }
        }
        Path first = list(checkpoints).get(0);
        try (LsmStore cp = LsmStore.open(first, RespServer.storeConfig(StoreConfig.builder().build()))) {
            for (int i = 0; i < 1000; i += 37) {
                assertNotNull(cp.get(("key" + i).getBytes()), "key" + i);
            }
        }
        // The node's store still opens with its checkpoints inside its directory.
        try (TestNode node = new TestNode(dir); Jedis j = node.client()) {
            assertEquals("value5", j.get("key5"));
            assertEquals("the save", j.get("after"));
        }
    }

    private static List<Path> list(Path d) throws IOException {
        if (!Files.isDirectory(d)) {
            return List.of();
        }
        try (Stream<Path> s = Files.list(d)) {
            return s.filter(p -> !p.getFileName().toString().endsWith("-tmp")).sorted().toList();
        }
    }
}
