package dev.strata.lsm.engine;

import dev.strata.lsm.LsmStore;
import dev.strata.lsm.StoreConfig;
import dev.strata.lsm.testkit.TestKeys;
import dev.strata.lsm.version.Manifest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A manifest that grew past its rewrite size is replaced by a new one holding a snapshot;
 * the old one must go then, not at the next open (found by {@code strata-bench torture}: a
 * store directory held six superseded manifests).
 */
class ManifestRotationTest {
    @TempDir
    Path dir;

    private List<String> manifests() throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.map(p -> p.getFileName().toString()).filter(n -> Manifest.parseNumber(n) >= 0).sorted()
                    .toList();
        }
    }

    @Test
    void aRotatedManifestIsDeletedOnceCurrentNamesItsSuccessor() throws IOException {
        StoreConfig config = StoreConfig.builder().memtableBytes(64 << 10).mergePolicy("no-merge")
                .manifestRewriteBytes(4096).build();
        int flushes = 40;
        long firstManifest;
        try (LsmStore store = LsmStore.open(dir, config)) {
            firstManifest = Manifest.parseNumber(manifests().get(0));
            for (int f = 0; f < flushes; f++) {
                store.put(TestKeys.padded("key-", f, 4).getBytes(UTF_8), ("value-" + f).getBytes(UTF_8));
                store.flush();
            }
            List<String> left = manifests();
            assertEquals(1, left.size(), "manifests left while open: " + left);
            assertTrue(Manifest.parseNumber(left.get(0)) > firstManifest, "the manifest never rotated: " + left);
        }
        try (LsmStore reopened = LsmStore.open(dir, config)) {
            for (int f = 0; f < flushes; f++) {
                assertArrayEquals(("value-" + f).getBytes(UTF_8),
                        reopened.get(TestKeys.padded("key-", f, 4).getBytes(UTF_8)), "key " + f);
            }
        }
    }
}
