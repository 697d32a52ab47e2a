package dev.strata.lsm.fault;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.strata.lsm.LsmStore;
import dev.strata.lsm.StoreConfig;
import dev.strata.lsm.StoreException;
import dev.strata.lsm.io.FileChannelStorageIO;
import dev.strata.lsm.io.SpaceLimitedStorageIO;
import dev.strata.lsm.io.StorageIO;
import dev.strata.lsm.WalSyncMode;
import dev.strata.lsm.testkit.TestKeys;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A store whose disk fills up under a stream of puts, in every WAL mode: the put that runs
 * out of space throws a {@link StoreException} (not an {@code InternalError}, and not later),
 * the store stays readable, and after the process is gone (the store is not flushed at
 * close in the WAL modes) and space is freed, a reopen finds every acknowledged put.
 */
class StoreDiskFullTest {
    private static final long CAPACITY = 2 << 20;

    @TempDir
    Path dir;

    private static StoreConfig config(StorageIO io, WalSyncMode mode) {
        return StoreConfig.builder()
                .memtableBytes(64L << 20)
                .walMode(mode)
                .storageIO(io)
                .build();
    }

    private static byte[] key(int i) {
        return TestKeys.padded("key-", i, 8).getBytes();
    }

    private static byte[] value(int i) {
        byte[] v = new byte[700 + i % 300];
        Arrays.fill(v, (byte) i);
        v[0] = (byte) (i >>> 8);
        return v;
    }

    @ParameterizedTest
    @EnumSource(value = WalSyncMode.class, names = {"SYNC", "ASYNC"})
    void thePutThatRunsOutOfSpaceFailsAndAcknowledgedPutsSurviveAReopen(WalSyncMode mode) {
        SpaceLimitedStorageIO io = new SpaceLimitedStorageIO(new FileChannelStorageIO(), CAPACITY);
        Map<Integer, byte[]> acknowledged = new LinkedHashMap<>();
        StoreException firstFailure = null;
        int failures = 0;
        LsmStore store = LsmStore.open(dir, config(io, mode));
        try {
            for (int i = 0; i < 6_000 && failures < 20; i++) {
                try {
                    store.put(key(i), value(i));
                    acknowledged.put(i, value(i));
                } catch (StoreException e) {
                    failures++;
                    if (firstFailure == null) {
                        firstFailure = e;
                    }
                }
            }
            assertNotNull(firstFailure, "a " + CAPACITY + "-byte disk filled up without a failed put; "
                    + io.lostMappedBytes() + " bytes of acknowledged WAL appends were lost");
            assertTrue(firstFailure.toString().contains("No space left on device")
                            || String.valueOf(firstFailure.getCause()).contains("No space left on device"),
                    "the error names the cause: " + firstFailure);
            for (Map.Entry<Integer, byte[]> e : acknowledged.entrySet()) {
                assertArrayEquals(e.getValue(), store.get(key(e.getKey())), "readable: key " + e.getKey());
            }
        } finally {
            try {
                store.close();
            } catch (StoreException e) {
                // Close may report the failed WAL; the memtable is not flushed either way.
            }
        }
        try (LsmStore reopened = LsmStore.open(dir, config(new FileChannelStorageIO(), mode))) {
            for (Map.Entry<Integer, byte[]> e : acknowledged.entrySet()) {
                assertArrayEquals(e.getValue(), reopened.get(key(e.getKey())),
                        "acknowledged key " + e.getKey() + " of " + acknowledged.size() + " after reopen");
            }
        }
    }
}
