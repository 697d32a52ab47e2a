package dev.strata.lsm.fault;

import dev.strata.lsm.LsmStore;
import dev.strata.lsm.StoreConfig;
import dev.strata.lsm.StoreException;
import dev.strata.lsm.io.FileChannelStorageIO;
import dev.strata.lsm.io.IoPurpose;
import dev.strata.lsm.testkit.TestKeys;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.IOException;
import java.nio.file.Path;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A manifest write that fails may still have reached the file (a force that fails after
 * the write, a torn append): the files its edit adds must survive until a new manifest
 * supersedes that one, or a crash right after loses them. Found by {@code strata-bench
 * torture}: a flush deleted its table after the manifest force failed, and the next open
 * replayed the edit and found the table missing.
 */
class ManifestFailureTest {
    private static final int KEYS = 2000;

    @TempDir
    Path tmp;

    private static StoreConfig config(FaultInjectingStorageIO io) {
        return StoreConfig.builder().memtableBytes(1 << 20).mergePolicy("no-merge").storageIO(io).build();
    }

    /**
     * Every manifest write site from the flush's edit on fails ({@code offset} 1 is the
     * edit's append, 2 its force): the flush fails, the store is "killed", and the crash
     * image must open with every key — from the table the edit names when its bytes reached
     * the file, from the WAL when the append failed (a torn one leaves a harmless tail).
     */
    @ParameterizedTest
    @CsvSource({"1, ENOSPC", "2, ENOSPC", "1, TORN", "2, EIO"})
    void filesOfAnEditWhoseManifestWriteFailedSurviveACrash(int offset, FaultInjectingStorageIO.Fault fault)
            throws IOException {
        Path dir = tmp.resolve("db");
        int sitesAtOpen;
        FaultInjectingStorageIO counting = new FaultInjectingStorageIO(new FileChannelStorageIO(), IoPurpose.MANIFEST,
                FaultInjectingStorageIO.Fault.ENOSPC, 0, false);
        try (LsmStore store = LsmStore.open(tmp.resolve("probe"), config(counting))) {
            sitesAtOpen = counting.sites();
            store.put("k".getBytes(UTF_8), "v".getBytes(UTF_8));
        }
        FaultInjectingStorageIO io = new FaultInjectingStorageIO(new FileChannelStorageIO(), IoPurpose.MANIFEST,
                fault, sitesAtOpen + offset, true);
        LsmStore store = LsmStore.open(dir, config(io));
        try {
            for (int i = 0; i < KEYS; i++) {
                store.put(key(i), value(i));
            }
            assertThrows(StoreException.class, store::flush);
            assertTrue(io.failures() > 0);
            CrashImages.copy(dir, tmp.resolve("crashed"));
        } finally {
            io.heal();
            store.close();
        }
        try (LsmStore reopened = LsmStore.open(tmp.resolve("crashed"), config(new FaultInjectingStorageIO(
                new FileChannelStorageIO(), IoPurpose.MANIFEST, FaultInjectingStorageIO.Fault.ENOSPC, 0, false)))) {
            for (int i = 0; i < KEYS; i++) {
                assertArrayEquals(value(i), reopened.get(key(i)), "key " + i);
            }
        }
    }

    private static byte[] key(int i) {
        return TestKeys.padded("key-", i, 6).getBytes(UTF_8);
    }

    private static byte[] value(int i) {
        return ("value-" + i).getBytes(UTF_8);
    }
}
