package dev.strata.lsm.fault;

import dev.strata.lsm.IngestOptions;
import dev.strata.lsm.LsmStore;
import dev.strata.lsm.StoreConfig;
import dev.strata.lsm.StoreException;
import dev.strata.lsm.TableWriter;
import dev.strata.lsm.io.FileChannelStorageIO;
import dev.strata.lsm.io.IoPurpose;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A crash during an ingest leaves all of its files in the store or none: the manifest edit
 * naming the ingested tables fails (disk full), the process is "killed" (its directory copied
 * as a kill leaves it), and the copy opens without any ingested key and without the tables
 * the ingest wrote.
 */
class IngestFaultTest {
    @TempDir
    Path tmp;

    private static byte[] key(int i) {
        return ByteBuffer.allocate(4).putInt(i).array();
    }

    private static long tables(Path dir) throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.filter(p -> p.toString().endsWith(".sst")).count();
        }
    }

    @Test
    void anIngestWhoseManifestEditFailsLeavesNothingAfterACrash() throws IOException {
        Path dir = tmp.resolve("db");
        FaultInjectingStorageIO counting = new FaultInjectingStorageIO(new FileChannelStorageIO(), IoPurpose.MANIFEST,
                FaultInjectingStorageIO.Fault.ENOSPC, 0, false);
        StoreConfig probe = StoreConfig.builder().storageIO(counting).mergePolicy("no-merge").build();
        int sitesBeforeIngest;
        try (LsmStore store = LsmStore.open(tmp.resolve("probe"), probe)) {
            store.put(key(1), "v".getBytes());
            store.flush();
            sitesBeforeIngest = counting.sites();
        }
        Path external = tmp.resolve("ext.sst");
        try (TableWriter w = TableWriter.create(external, StoreConfig.defaults())) {
            for (int i = 100; i < 2000; i++) {
                w.put(key(i), "ingested".getBytes());
            }
            w.finish();
        }
        FaultInjectingStorageIO io = new FaultInjectingStorageIO(new FileChannelStorageIO(), IoPurpose.MANIFEST,
                FaultInjectingStorageIO.Fault.ENOSPC, sitesBeforeIngest + 1, true);
        StoreConfig config = StoreConfig.builder().storageIO(io).mergePolicy("no-merge").build();
        LsmStore store = LsmStore.open(dir, config);
        try {
            store.put(key(1), "v".getBytes());
            store.flush();
            long tablesBefore = tables(dir);
            assertThrows(StoreException.class, () -> store.ingest(List.of(external), IngestOptions.defaults()));
            assertTrue(io.failures() > 0, "the fault fired");
            assertNull(store.get(key(500)), "a failed ingest is not visible");
            CrashImages.copy(dir, tmp.resolve("crashed"));
            assertEquals(tablesBefore, tables(tmp.resolve("crashed")), "the ingest's tables were deleted");
        } finally {
            io.heal();
            store.close();
        }
        try (LsmStore reopened = LsmStore.open(tmp.resolve("crashed"), StoreConfig.builder().mergePolicy("no-merge").build())) {
            assertArrayEquals("v".getBytes(), reopened.get(key(1)));
            for (int i = 100; i < 2000; i += 97) {
                assertNull(reopened.get(key(i)), "key " + i + " of a failed ingest");
            }
            reopened.ingest(List.of(external), IngestOptions.defaults());
            assertArrayEquals("ingested".getBytes(), reopened.get(key(500)));
        }
    }
}
