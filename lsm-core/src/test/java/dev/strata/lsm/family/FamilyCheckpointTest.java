package dev.strata.lsm.family;

import dev.strata.lsm.ColumnFamily;
import dev.strata.lsm.FamilyOptions;
import dev.strata.lsm.LsmStore;
import dev.strata.lsm.StoreConfig;
import dev.strata.lsm.WriteBatch;
import dev.strata.lsm.backup.BackupInfo;
import dev.strata.lsm.backup.Backups;
import dev.strata.lsm.testkit.TestScale;
import dev.strata.lsm.WalSyncMode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.api.io.TempDir;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLongArray;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Checkpoints and backups of a store with column families: every family at one sequence
 * number, taken while writers (single-family writes, cross-family batches, merge operands)
 * and merges run.
 */
class FamilyCheckpointTest {
    @TempDir
    Path tmp;

    private static final int WRITERS = 2;

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] u64(long v) {
        return ByteBuffer.allocate(8).putLong(v).array();
    }

    private static StoreConfig config() {
        return config(WalSyncMode.ASYNC);
    }

    private static StoreConfig config(WalSyncMode mode) {
        return StoreConfig.builder().memtableBytes(32 << 10).mergePolicy("size-tiered", Map.of())
                .mergeOperator("uint64add").walMode(mode).build();
    }

    /**
     * Writer t's op i: i % 3 == 0 puts {@code t-i} in the default family, 1 in family a, 2 is a
     * batch putting {@code t-i} in b and {@code t-i-x} in a and adding 1 to counter {@code c-t}
     * in the default family. A checkpoint at one sequence number holds, per writer, exactly a
     * prefix of its ops, across all families.
     */
    private static void write(LsmStore store, ColumnFamily a, ColumnFamily bFam, int t, long i) {
        String k = t + "-" + i;
        byte[] value = new byte[120];
        ByteBuffer.wrap(value).putLong(i);
        switch ((int) (i % 3)) {
            case 0 -> store.put(b(k), value);
            case 1 -> store.put(a, b(k), value);
            default -> store.write(new WriteBatch().put(bFam, b(k), value).put(a, b(k + "-x"), value)
                    .merge(b("c-" + t), u64(1)));
        }
    }

    /** How many of writer t's first ops the store holds; asserts they form a prefix, and the batches are whole. */
    private static long prefixOf(LsmStore cp, int t, long written) {
        ColumnFamily a = cp.columnFamily("a");
        ColumnFamily bFam = cp.columnFamily("b");
        long prefix = -1;
        for (long i = 0; i < written; i++) {
            String k = t + "-" + i;
            boolean present = switch ((int) (i % 3)) {
                case 0 -> cp.get(b(k)) != null;
                case 1 -> cp.get(a, b(k)) != null;
                default -> {
                    boolean inB = cp.get(bFam, b(k)) != null;
                    boolean inA = cp.get(a, b(k + "-x")) != null;
                    assertEquals(inB, inA, "cross-family batch " + k + " is whole or absent");
                    yield inB;
                }
            };
            if (prefix < 0 && !present) {
                prefix = i;
            }
            if (prefix >= 0) {
                assertTrue(!present, "writer " + t + "'s op " + i + " is in the checkpoint but op " + prefix
                        + " is not: not one sequence number");
            }
        }
        long held = prefix < 0 ? written : prefix;
        long expected = 0;
        for (long i = 0; i < held; i++) {
            if (i % 3 == 2) {
                expected++;
            }
        }
        byte[] counter = cp.get(b("c-" + t));
        assertEquals(expected, counter == null ? 0 : ByteBuffer.wrap(counter).getLong(), "counter of writer " + t);
        return held;
    }

    @ParameterizedTest
    @EnumSource(value = WalSyncMode.class, names = {"ASYNC", "NONE"})
    void checkpointsDuringWritesHoldEveryFamilyAtOneSequenceNumber(WalSyncMode mode) throws Exception {
        long cap = TestScale.scaled(15_000L);
        Path source = tmp.resolve("source");
        int checkpoints = 4;
        long[] ackedBefore = new long[checkpoints * WRITERS];
        AtomicLongArray acked = new AtomicLongArray(WRITERS);
        AtomicBoolean stop = new AtomicBoolean();
        List<Throwable> failures = java.util.Collections.synchronizedList(new ArrayList<>());
        try (LsmStore store = LsmStore.open(source, config(mode))) {
            ColumnFamily a = store.createColumnFamily("a", FamilyOptions.defaults());
            ColumnFamily bFam = store.createColumnFamily("b", FamilyOptions.defaults());
            List<Thread> writers = new ArrayList<>();
            for (int t = 0; t < WRITERS; t++) {
                int id = t;
                Thread w = new Thread(() -> {
                    try {
                        for (long i = 0; !stop.get() && i < cap; i++) {
                            write(store, a, bFam, id, i);
                            acked.set(id, i + 1);
                        }
                    } catch (Throwable e) {
                        failures.add(e);
                    }
                });
                w.start();
                writers.add(w);
            }
            for (int c = 0; c < checkpoints; c++) {
                Thread.sleep(40);
                for (int t = 0; t < WRITERS; t++) {
                    ackedBefore[c * WRITERS + t] = acked.get(t);
                }
                store.checkpoint(tmp.resolve("cp" + c));
            }
            stop.set(true);
            for (Thread w : writers) {
                w.join();
            }
            assertTrue(failures.isEmpty(), () -> "writer failed: " + failures);
            assertTrue(store.columnFamilyStats(a).flushCount() > 0, "family a flushed during the run");
        }
        long[] total = new long[WRITERS];
        for (int t = 0; t < WRITERS; t++) {
            total[t] = acked.get(t);
        }
        for (int c = 0; c < checkpoints; c++) {
            try (LsmStore cp = LsmStore.open(tmp.resolve("cp" + c), config(mode))) {
                assertEquals(List.of("default", "a", "b"), cp.listColumnFamilies().stream().map(ColumnFamily::name).toList());
                for (int t = 0; t < WRITERS; t++) {
                    long held = prefixOf(cp, t, total[t] + 1);
                    assertTrue(held >= ackedBefore[c * WRITERS + t], "checkpoint " + c + " holds " + held
                            + " ops of writer " + t + ", fewer than the " + ackedBefore[c * WRITERS + t]
                            + " acknowledged before it");
                }
            }
        }
        // The source is untouched by the checkpoints: it holds everything.
        try (LsmStore store = LsmStore.open(source, config(mode))) {
            for (int t = 0; t < WRITERS; t++) {
                assertTrue(prefixOf(store, t, total[t] + 1) >= total[t]);
            }
        }
    }

    @Test
    void backupsOfAStoreWithFamiliesRestoreEveryFamily() throws Exception {
        Path source = tmp.resolve("source");
        Backups backups = Backups.open(tmp.resolve("backups"));
        BackupInfo first;
        BackupInfo second;
        try (LsmStore store = LsmStore.open(source, config())) {
            ColumnFamily a = store.createColumnFamily("a", FamilyOptions.defaults());
            ColumnFamily bFam = store.createColumnFamily("b", FamilyOptions.defaults());
            for (int i = 0; i < 2_000; i++) {
                store.put(b("d" + i), b("d1-" + i));
                store.put(a, b("a" + i), b("a1-" + i));
            }
            store.flushColumnFamily(a);
            store.put(bFam, b("unflushed"), b("b1")); // only in the WAL tail of the backup
            first = backups.create(store);
            store.put(a, b("a7"), b("a2"));
            store.delete(b("d3"));
            store.dropColumnFamily(bFam);
            store.createColumnFamily("c", FamilyOptions.defaults());
            store.put(store.columnFamily("c"), b("c"), b("c2"));
            second = backups.create(store);
        }
        assertTrue(second.bytesCopied() < second.bytes(), "the second backup shares unchanged tables");
        backups.verify(first.id());
        backups.verify(second.id());
        backups.restore(first.id(), tmp.resolve("r1"));
        backups.restore(second.id(), tmp.resolve("r2"));
        assertTrue(Files.isDirectory(tmp.resolve("r1").resolve("families")));
        try (LsmStore r1 = LsmStore.open(tmp.resolve("r1"), config())) {
            assertEquals(List.of("default", "a", "b"), r1.listColumnFamilies().stream().map(ColumnFamily::name).toList());
            assertArrayEquals(b("a1-7"), r1.get(r1.columnFamily("a"), b("a7")));
            assertArrayEquals(b("d1-3"), r1.get(b("d3")));
            assertArrayEquals(b("a1-1999"), r1.get(r1.columnFamily("a"), b("a1999")));
            assertArrayEquals(b("b1"), r1.get(r1.columnFamily("b"), b("unflushed")));
            assertNull(r1.get(r1.columnFamily("a"), b("d1")));
        }
        try (LsmStore r2 = LsmStore.open(tmp.resolve("r2"), config())) {
            assertEquals(List.of("default", "a", "c"), r2.listColumnFamilies().stream().map(ColumnFamily::name).toList());
            assertArrayEquals(b("a2"), r2.get(r2.columnFamily("a"), b("a7")));
            assertNull(r2.get(b("d3")));
            assertArrayEquals(b("c2"), r2.get(r2.columnFamily("c"), b("c")));
        }
        backups.purgeOldBackups(1);
        assertEquals(List.of(second.id()), backups.list().stream().map(BackupInfo::id).toList());
        backups.verify(second.id());
    }
}
