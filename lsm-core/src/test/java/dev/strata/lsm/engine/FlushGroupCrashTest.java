package dev.strata.lsm.engine;

import dev.strata.lsm.ColumnFamily;
import dev.strata.lsm.FamilyOptions;
import dev.strata.lsm.LsmStore;
import dev.strata.lsm.StoreConfig;
import dev.strata.lsm.TestAccess;
import dev.strata.lsm.WriteBatch;
import dev.strata.lsm.testkit.TestKeys;
import dev.strata.lsm.version.FlushGroupRecord;
import dev.strata.lsm.fault.CrashImages;
import dev.strata.lsm.WalSyncMode;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A crash at each step of an atomic flush ({@link FlushGroups}) of three families: the crash
 * image is a copy of the store directory taken on the flush thread at that step (nothing else
 * writes a file meanwhile: WAL mode none, no merge policy), opened as a store of its own.
 * Before the commit record the group never happened; from it on, it happened whole.
 */
class FlushGroupCrashTest {
    private static final int BATCHES = 200;

    @TempDir
    Path tmp;

    private static StoreConfig config() {
        return StoreConfig.builder().walMode(WalSyncMode.NONE).memtableBytes(1 << 20).mergePolicy("no-merge")
                .family("a", FamilyOptions.defaults()).family("b", FamilyOptions.defaults()).build();
    }

    private static byte[] key(int i) {
        return TestKeys.padded("k", i, 5).getBytes(StandardCharsets.US_ASCII);
    }

    /** A crash image of {@code dir} ({@link CrashImages}), taken from the flush thread. */
    private static void copy(Path dir, Path crash) {
        try {
            CrashImages.copy(dir, crash);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** Writes the batches, each across the three families. */
    private static void writeBatches(LsmStore store) {
        ColumnFamily a = store.columnFamily("a");
        ColumnFamily b = store.columnFamily("b");
        for (int i = 0; i < BATCHES; i++) {
            byte[] v = ("v" + i).getBytes(StandardCharsets.US_ASCII);
            store.write(new WriteBatch().put(key(i), v).put(a, key(i), v).put(b, key(i), v));
        }
    }

    private static int count(LsmStore store, ColumnFamily cf) {
        int n = 0;
        for (int i = 0; i < BATCHES; i++) {
            if (store.get(cf, key(i)) != null) {
                n++;
            }
        }
        return n;
    }

    @ParameterizedTest(name = "crash after \"{0}\": {1} batches")
    @CsvSource({"written, 0", "committed, 200", "installed default, 200", "installed a, 200"})
    void aCrashAtEachStepLeavesTheGroupWholeOrAbsent(String step, int expected) throws IOException {
        Path dir = tmp.resolve("store");
        Path crash = tmp.resolve("crash");
        AtomicBoolean copied = new AtomicBoolean();
        try (LsmStore store = LsmStore.open(dir, config())) {
            writeBatches(store);
            TestAccess.engine(store).flushGroupHook(s -> {
                if (s.equals(step) && copied.compareAndSet(false, true)) {
                    copy(dir, crash);
                }
            });
            store.flush();
            assertTrue(copied.get(), "the group never reached step " + step);
            assertFalse(Files.exists(dir.resolve(FlushGroupRecord.FILE)), "the record outlived its group");
        }
        FlushGroupRecord record = FlushGroupRecord.read(new dev.strata.lsm.io.FileChannelStorageIO(), crash);
        assertTrue(record != null, "the intent is written before the tables, the commit record after them");
        assertEquals(!step.equals("written"), record.committed(),
                "the commit record replaces the intent between \"written\" and \"committed\"");
        try (LsmStore store = LsmStore.open(crash, config())) {
            List<ColumnFamily> all = List.of(store.defaultColumnFamily(), store.columnFamily("a"),
                    store.columnFamily("b"));
            for (ColumnFamily cf : all) {
                assertEquals(expected, count(store, cf), "family " + cf.name() + " after a crash after " + step);
            }
        }
        assertFalse(Files.exists(crash.resolve(FlushGroupRecord.FILE)), "the open finished the group");
        try (LsmStore store = LsmStore.open(crash, config())) {
            assertEquals(expected, count(store, store.columnFamily("b")), "a second open");
        }
    }

    /**
     * The directory sync after the commit record's rename fails: the record may be on disk
     * (here it is), so the group must keep the tables it names. A crash while the group
     * retries (the image taken when the retry reaches "written") must open with the group
     * whole, not fail on a record naming tables the failed attempt deleted.
     */
    @Test
    void aCommitRecordWhoseDirectorySyncFailedKeepsItsTables() throws IOException {
        Path dir = tmp.resolve("store");
        Path crash = tmp.resolve("crash");
        AtomicBoolean armed = new AtomicBoolean();
        AtomicBoolean failed = new AtomicBoolean();
        dev.strata.lsm.io.StorageIO io = new dev.strata.lsm.io.ForwardingStorageIO(
                new dev.strata.lsm.io.FileChannelStorageIO()) {
            @Override
            public void rename(Path source, Path target) throws IOException {
                super.rename(source, target);
                // The commit record's rename, not the intent's written before the tables.
                if (target.getFileName().toString().equals(FlushGroupRecord.FILE) && !failed.get()
                        && FlushGroupRecord.read(new dev.strata.lsm.io.FileChannelStorageIO(), target.getParent())
                                .committed()) {
                    armed.set(true);
                }
            }

            @Override
            public void syncDirectory(Path d) throws IOException {
                if (armed.compareAndSet(true, false)) {
                    failed.set(true);
                    throw new IOException("injected: directory sync after the commit record's rename");
                }
                super.syncDirectory(d);
            }
        };
        AtomicBoolean copied = new AtomicBoolean();
        try (LsmStore store = LsmStore.open(dir, config().toBuilder().storageIO(io).build())) {
            writeBatches(store);
            TestAccess.engine(store).flushGroupHook(s -> {
                if (s.equals("written") && failed.get() && copied.compareAndSet(false, true)) {
                    copy(dir, crash);
                }
            });
            store.flush();
            assertTrue(failed.get(), "the sync never failed");
            assertTrue(copied.get(), "the group never retried");
        }
        assertTrue(Files.exists(crash.resolve(FlushGroupRecord.FILE)), "the failed attempt's record is in the image");
        try (LsmStore store = LsmStore.open(crash, config())) {
            for (ColumnFamily cf : List.of(store.defaultColumnFamily(), store.columnFamily("a"), store.columnFamily("b"))) {
                assertEquals(BATCHES, count(store, cf), "family " + cf.name());
            }
        }
    }

    @Test
    void aReaderStagedWhileAGroupIsHalfInstalledSeesItWhole() {
        Path dir = tmp.resolve("store");
        int[] seen = new int[3];
        try (LsmStore store = LsmStore.open(dir, config())) {
            writeBatches(store);
            TestAccess.engine(store).flushGroupHook(s -> {
                if (s.equals("installed default")) {
                    // The default family's manifest names its table, a's and b's do not yet.
                    try (LsmStore reader = LsmStore.openReadOnly(dir, config())) {
                        seen[0] = count(reader, reader.defaultColumnFamily());
                        seen[1] = count(reader, reader.columnFamily("a"));
                        seen[2] = count(reader, reader.columnFamily("b"));
                    }
                }
            });
            store.flush();
        }
        assertEquals(List.of(BATCHES, BATCHES, BATCHES), List.of(seen[0], seen[1], seen[2]),
                "default, a, b as the reader saw them");
    }

    @Test
    void aDamagedCommitRecordFailsTheOpenNamingIt() throws IOException {
        Path dir = tmp.resolve("store");
        Path crash = tmp.resolve("crash");
        try (LsmStore store = LsmStore.open(dir, config())) {
            ColumnFamily a = store.columnFamily("a");
            store.write(new WriteBatch().put(key(1), key(1)).put(a, key(1), key(1)));
            TestAccess.engine(store).flushGroupHook(s -> {
                if (s.equals("committed")) {
                    copy(dir, crash);
                }
            });
            store.flush();
        }
        Path record = crash.resolve(FlushGroupRecord.FILE);
        byte[] bytes = Files.readAllBytes(record);
        bytes[bytes.length / 2] ^= 0x10;
        Files.write(record, bytes);
        var e = assertThrows(dev.strata.lsm.CorruptionException.class, () -> LsmStore.open(crash, config()).close());
        assertTrue(e.getMessage().contains(FlushGroupRecord.FILE), e.getMessage());
    }

    @Test
    void aStoreThatDoesNotFlushAtomicallyRefusesTheHook() {
        try (LsmStore store = LsmStore.open(tmp.resolve("s"), StoreConfig.builder().build())) {
            assertThrows(IllegalStateException.class, () -> TestAccess.engine(store).flushGroupHook(s -> { }));
        }
    }

    /**
     * The group committed, then family a's install edit tore (its manifest ends in a damaged
     * record) and the process died: a's table is on disk, named by the commit record but by no
     * intact manifest edit, and WAL mode none has no WAL segment to vouch for it. The open must
     * not take the table as evidence of an acknowledged edit it would lose: the commit record
     * holds it, and recovery installs it (torture, WAL mode none, found it).
     */
    @Test
    void aTornInstallEditOfACommittedGroupIsFinishedByTheOpen() throws IOException {
        Path dir = tmp.resolve("store");
        Path crash = tmp.resolve("crash");
        AtomicBoolean copied = new AtomicBoolean();
        try (LsmStore store = LsmStore.open(dir, config())) {
            writeBatches(store);
            TestAccess.engine(store).flushGroupHook(s -> {
                if (s.equals("committed") && copied.compareAndSet(false, true)) {
                    copy(dir, crash);
                }
            });
            store.flush();
            assertTrue(copied.get());
        }
        int a;
        try (LsmStore store = LsmStore.open(dir, config())) {
            a = store.columnFamily("a").id();
        }
        Path familyDir = dev.strata.lsm.version.FamilyCatalog.familyDirectory(crash, a);
        Path manifest = dev.strata.lsm.version.Manifest.readCurrent(new dev.strata.lsm.io.FileChannelStorageIO(),
                familyDir);
        byte[] torn = new byte[48];
        java.util.Arrays.fill(torn, (byte) 0x5a);
        Files.write(manifest, torn, java.nio.file.StandardOpenOption.APPEND);
        try (LsmStore store = LsmStore.open(crash, config())) {
            for (ColumnFamily cf : List.of(store.defaultColumnFamily(), store.columnFamily("a"),
                    store.columnFamily("b"))) {
                assertEquals(BATCHES, count(store, cf), "family " + cf.name());
            }
        }
    }
}
