package dev.strata.lsm.engine;

import dev.strata.lsm.ColumnFamily;
import dev.strata.lsm.FamilyOptions;
import dev.strata.lsm.LsmStore;
import dev.strata.lsm.StoreConfig;
import dev.strata.lsm.StoreException;
import dev.strata.lsm.WriteBatch;
import dev.strata.lsm.fault.CrashImages;
import dev.strata.lsm.fault.WalFaultIO;
import dev.strata.lsm.WalSyncMode;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * A cross-family batch whose WAL append failed after its bytes were written (the sync
 * failed) is not acknowledged and not in any memtable, yet its record may be on disk whole.
 * A family that then flushed past it skips it on replay while a family that did not would
 * replay it: torn (torture, WAL mode sync, found it). The next segment starts with a void
 * record for the group, so no family replays it.
 */
class FailedWalAppendAcrossFamiliesTest {
    @TempDir
    Path tmp;

    private static StoreConfig config(WalSyncMode mode, WalFaultIO io) {
        StoreConfig.Builder b = StoreConfig.builder().walMode(mode).memtableBytes(1 << 20).mergePolicy("no-merge")
                .family("a", FamilyOptions.defaults()).family("b", FamilyOptions.defaults());
        if (io != null) {
            b.storageIO(io);
        }
        return b.build();
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    @ParameterizedTest
    @EnumSource(value = WalSyncMode.class, names = {"SYNC", "ASYNC"})
    void aBatchWhoseWalSyncFailedIsReplayedInNoFamily(WalSyncMode mode) throws IOException {
        Path dir = tmp.resolve("store");
        Path crash = tmp.resolve("crash");
        WalFaultIO io = new WalFaultIO();
        try (LsmStore store = LsmStore.open(dir, config(mode, io))) {
            ColumnFamily a = store.columnFamily("a");
            ColumnFamily b = store.columnFamily("b");
            store.write(new WriteBatch().put(a, bytes("ka"), bytes("old")).put(b, bytes("kb"), bytes("old")));
            store.flush(); // both families durable up to here: the next segment holds what follows
            io.armForceFailures(1);
            WriteBatch torn = new WriteBatch().put(a, bytes("ka"), bytes("batch")).put(b, bytes("kb"), bytes("batch"));
            // The sync: per write in mode sync; asked for by the write in mode async.
            assertThrows(StoreException.class, () -> store.write(torn, dev.strata.lsm.WriteOptions.defaults().sync(true)));
            assertEquals(1, io.thrown(), "the injected sync failure");
            assertArrayEquals(bytes("old"), store.get(a, bytes("ka")));
            // A later write to family a, and a flush of a alone: a's tables are past the failed batch.
            store.put(a, bytes("other"), bytes("x"));
            store.flushColumnFamily(a);
            CrashImages.copy(dir, crash);
        }
        try (LsmStore store = LsmStore.open(crash, config(mode, null))) {
            ColumnFamily a = store.columnFamily("a");
            ColumnFamily b = store.columnFamily("b");
            assertArrayEquals(bytes("x"), store.get(a, bytes("other")));
            assertArrayEquals(bytes("old"), store.get(a, bytes("ka")), "family a");
            assertArrayEquals(bytes("old"), store.get(b, bytes("kb")), "family b: the failed batch is torn");
        }
    }

    /**
     * A cross-family batch that failed while it was being inserted into the memtables, after
     * the WAL took it whole: family a's memtable holds its part, b's nothing. A flush of a
     * leaves the part out (it is above the visible sequence number) and must not record a's
     * tables as holding it, or a reopen skips it in a and replays it in b: torn. The WAL
     * record comes back whole (or not at all).
     */
    @org.junit.jupiter.api.Test
    void aBatchHalfInsertedWhenItFailedComesBackWholeAfterOneFamilyFlushed() throws IOException {
        Path dir = tmp.resolve("store");
        Path crash = tmp.resolve("crash");
        try (LsmStore store = LsmStore.open(dir, config(WalSyncMode.SYNC, null))) {
            ColumnFamily a = store.columnFamily("a");
            ColumnFamily b = store.columnFamily("b");
            store.write(new WriteBatch().put(a, bytes("ka"), bytes("old")).put(b, bytes("kb"), bytes("old")));
            store.flush();
            AtomicInteger inserts = new AtomicInteger();
            dev.strata.lsm.TestAccess.engine(store).memtableInsertHook(() -> {
                if (inserts.incrementAndGet() == 2) {
                    throw new IllegalStateException("injected: the second insert fails");
                }
            });
            WriteBatch batch = new WriteBatch().put(a, bytes("ka"), bytes("batch")).put(b, bytes("kb"), bytes("batch"));
            assertThrows(StoreException.class, () -> store.write(batch));
            dev.strata.lsm.TestAccess.engine(store).memtableInsertHook(null);
            store.flushColumnFamily(a);
            CrashImages.copy(dir, crash);
        }
        try (LsmStore store = LsmStore.open(crash, config(WalSyncMode.SYNC, null))) {
            byte[] va = store.get(store.columnFamily("a"), bytes("ka"));
            byte[] vb = store.get(store.columnFamily("b"), bytes("kb"));
            assertArrayEquals(bytes("batch"), va, "family a: the WAL holds the batch whole");
            assertArrayEquals(bytes("batch"), vb, "family b");
        }
    }
}
