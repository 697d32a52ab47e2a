package dev.strata.lsm.fault;

import dev.strata.lsm.LsmStore;
import dev.strata.lsm.StoreConfig;
import dev.strata.lsm.StoreException;
import dev.strata.lsm.io.FileChannelStorageIO;
import dev.strata.lsm.io.IoPurpose;
import dev.strata.lsm.WalSyncMode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Without a WAL, close() is where acknowledged writes become durable: when it cannot flush
 * them it says so instead of returning as if they were safe, and still releases the store.
 */
class CloseWithoutWalTest {
    @TempDir
    Path dir;

    @Test
    void closeReportsWritesItCouldNotFlush() {
        FaultInjectingStorageIO io = new FaultInjectingStorageIO(new FileChannelStorageIO(), IoPurpose.FLUSH,
                FaultInjectingStorageIO.Fault.ENOSPC, 1, true);
        StoreConfig config = StoreConfig.builder().walMode(WalSyncMode.NONE).mergePolicy("no-merge").storageIO(io)
                .build();
        LsmStore store = LsmStore.open(dir, config);
        store.put("k".getBytes(UTF_8), "v".getBytes(UTF_8));
        StoreException e = assertThrows(StoreException.class, store::close);
        assertTrue(e.getMessage().contains("none") && e.getMessage().contains("No space left"), e.getMessage());
        // The store was released all the same: it opens again, and works once the fault is gone.
        io.heal();
        try (LsmStore again = LsmStore.open(dir, config)) {
            again.put("k".getBytes(UTF_8), "v2".getBytes(UTF_8));
            again.flush();
            assertArrayEquals("v2".getBytes(UTF_8), again.get("k".getBytes(UTF_8)));
        }
    }
}
