package dev.strata.lsm.engine;

import dev.strata.lsm.ColumnFamily;
import dev.strata.lsm.FamilyOptions;
import dev.strata.lsm.LsmStore;
import dev.strata.lsm.StoreConfig;
import dev.strata.lsm.WriteBatch;
import dev.strata.lsm.fault.CrashImages;
import dev.strata.lsm.io.FileChannelStorageIO;
import dev.strata.lsm.io.ForwardingStorageIO;
import dev.strata.lsm.io.IoPurpose;
import dev.strata.lsm.io.OpenMode;
import dev.strata.lsm.io.PageFile;
import dev.strata.lsm.RepairReport;
import dev.strata.lsm.testkit.TestKeys;
import dev.strata.lsm.version.FlushGroupRecord;
import dev.strata.lsm.version.TableFiles;
import dev.strata.lsm.WalSyncMode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A crash while an atomic flush writes its tables, after the first family's table and before
 * the second's (so before the commit record): the group never happened. An open deletes the
 * written table (no manifest names it); {@code LsmStore.repair}, which rebuilds the manifests
 * from the tables it finds, kept it, and the repaired store held one family's half of every
 * batch of the group and not the other's (issue 30). The group's intent record, written before
 * its first table, marks such tables; repair sets them aside.
 */
class FlushGroupRepairTest {
    private static final int BATCHES = 200;

    @TempDir
    Path tmp;

    private static StoreConfig.Builder config() {
        return StoreConfig.builder().walMode(WalSyncMode.NONE).memtableBytes(1 << 20).mergePolicy("no-merge")
                .family("a", FamilyOptions.defaults());
    }

    private static byte[] key(int i) {
        return TestKeys.padded("k", i, 5).getBytes(StandardCharsets.US_ASCII);
    }

    /**
     * A crash image of the store taken when the flush creates its second table (the first,
     * forced, is on disk; the commit record is not): the state a kill leaves there.
     */
    private Path crashImageBetweenTheGroupsTables() throws IOException {
        Path dir = tmp.resolve("store");
        Path crash = tmp.resolve("crash");
        AtomicBoolean armed = new AtomicBoolean();
        AtomicInteger tablesCreated = new AtomicInteger();
        AtomicBoolean copied = new AtomicBoolean();
        ForwardingStorageIO io = new ForwardingStorageIO(new FileChannelStorageIO()) {
            @Override
            public PageFile open(Path path, OpenMode mode, IoPurpose purpose) throws IOException {
                if (armed.get() && mode == OpenMode.CREATE_NEW && TableFiles.parseNumber(path.getFileName().toString()) >= 0
                        && tablesCreated.incrementAndGet() == 2 && copied.compareAndSet(false, true)) {
                    CrashImages.copy(dir, crash);
                }
                return super.open(path, mode, purpose);
            }
        };
        try (LsmStore store = LsmStore.open(dir, config().storageIO(io).build())) {
            ColumnFamily a = store.columnFamily("a");
            for (int i = 0; i < BATCHES; i++) {
                byte[] v = ("v" + i).getBytes(StandardCharsets.US_ASCII);
                store.write(new WriteBatch().put(key(i), v).put(a, key(i), v));
            }
            armed.set(true);
            store.flush();
        }
        assertTrue(copied.get(), "the group never created its second table");
        return crash;
    }

    private static int[] counts(LsmStore store) {
        List<ColumnFamily> families = List.of(store.defaultColumnFamily(), store.columnFamily("a"));
        int[] counts = new int[families.size()];
        for (int f = 0; f < families.size(); f++) {
            for (int i = 0; i < BATCHES; i++) {
                if (store.get(families.get(f), key(i)) != null) {
                    counts[f]++;
                }
            }
        }
        return counts;
    }

    @Test
    void repairSetsAsideTheTablesOfAGroupThatNeverCommitted() throws IOException {
        Path crash = crashImageBetweenTheGroupsTables();
        RepairReport report = LsmStore.repair(crash, config().build());
        List<String> reasons = new ArrayList<>();
        report.setAside().forEach(s -> reasons.add(s.reason()));
        report.families().forEach(f -> f.setAside().forEach(s -> reasons.add(s.reason())));
        try (LsmStore store = LsmStore.open(crash, config().build())) {
            int[] counts = counts(store);
            assertEquals(counts[0], counts[1], "batches in default and in a after the repair: whole or absent");
            assertEquals(0, counts[0], "the group never committed");
        }
        assertTrue(reasons.stream().anyMatch(r -> r.contains("never committed")), "set aside: " + reasons);
        assertFalse(Files.exists(crash.resolve(FlushGroupRecord.FILE)), "the repair deleted the record");
    }

    @Test
    void anOpenDeletesTheTablesOfAGroupThatNeverCommittedAndItsIntent() throws IOException {
        Path crash = crashImageBetweenTheGroupsTables();
        try (LsmStore store = LsmStore.open(crash, config().build())) {
            int[] counts = counts(store);
            assertEquals(0, counts[0], "default");
            assertEquals(0, counts[1], "a");
        }
        assertFalse(Files.exists(crash.resolve(FlushGroupRecord.FILE)), "the open deleted the intent");
        // Nothing is left that a repair could take for data of the group.
        RepairReport report = LsmStore.repair(crash, config().build());
        assertEquals(0, report.tables() + report.families().stream().mapToInt(RepairReport::tables).sum(),
                "tables left after the open: " + report);
    }
}
