package dev.strata.lsm.family;

import dev.strata.lsm.ColumnFamily;
import dev.strata.lsm.ConfigException;
import dev.strata.lsm.Cursor;
import dev.strata.lsm.FamilyOptions;
import dev.strata.lsm.LsmStore;
import dev.strata.lsm.Snapshot;
import dev.strata.lsm.StoreConfig;
import dev.strata.lsm.StoreException;
import dev.strata.lsm.WriteBatch;
import dev.strata.lsm.io.FileChannelStorageIO;
import dev.strata.lsm.io.ForwardingStorageIO;
import dev.strata.lsm.testkit.TestKeys;
import dev.strata.lsm.version.FamilyCatalog;
import dev.strata.lsm.wal.WalSegments;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Column families: create, list, drop, reads and writes per family, cross-family batches, recovery, bad input. */
class ColumnFamilyTest {
    @TempDir
    Path tmp;

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static String s(byte[] v) {
        return v == null ? null : new String(v, StandardCharsets.UTF_8);
    }

    private static List<String> keys(Cursor c) {
        List<String> out = new ArrayList<>();
        try (c) {
            while (c.next()) {
                out.add(s(c.key()) + "=" + s(c.value()));
            }
        }
        return out;
    }

    @Test
    void familiesAreSeparateKeyspacesThatSurviveReopen() {
        Path dir = tmp.resolve("s");
        try (LsmStore store = LsmStore.open(dir)) {
            assertEquals(List.of("default"), store.listColumnFamilies().stream().map(ColumnFamily::name).toList());
            ColumnFamily users = store.createColumnFamily("users", FamilyOptions.defaults());
            ColumnFamily orders = store.createColumnFamily("orders", FamilyOptions.builder().memtableBytes(64 << 10).build());
            store.put(b("k"), b("default"));
            store.put(users, b("k"), b("user"));
            store.put(orders, b("k"), b("order"));
            store.put(orders, b("k2"), b("order2"));
            store.delete(users, b("k"));
            assertEquals("default", s(store.get(b("k"))));
            assertNull(store.get(users, b("k")));
            assertEquals("order", s(store.get(orders, b("k"))));
            assertEquals(List.of("k=order", "k2=order2"), keys(store.scan(orders, null, null)));
            assertEquals(List.of("k=default"), keys(store.scan(null, null)));
            assertEquals(List.of("default", "users", "orders"),
                    store.listColumnFamilies().stream().map(ColumnFamily::name).toList());
            assertTrue(store.columnFamily("orders") == orders, "the same handle every time");
            store.flushColumnFamily(orders);
            assertEquals(1, store.columnFamilyStats(orders).componentCount());
            assertEquals(0, store.columnFamilyStats(users).componentCount());
        }
        try (LsmStore store = LsmStore.open(dir)) {
            ColumnFamily users = store.columnFamily("users");
            ColumnFamily orders = store.columnFamily("orders");
            assertEquals(List.of("default", "users", "orders"),
                    store.listColumnFamilies().stream().map(ColumnFamily::name).toList());
            assertEquals("default", s(store.get(b("k"))));
            assertNull(store.get(users, b("k")));
            assertEquals(List.of("k=order", "k2=order2"), keys(store.scan(orders, null, null)));
        }
    }

    @Test
    void aRangeDeleteInOneFamilyLeavesTheOthersThroughFlushAndWalReplay() {
        Path dir = tmp.resolve("s");
        try (LsmStore store = LsmStore.open(dir)) {
            ColumnFamily a = store.createColumnFamily("a", FamilyOptions.defaults());
            ColumnFamily c = store.createColumnFamily("c", FamilyOptions.defaults());
            for (String k : List.of("k1", "k2", "k3", "k4")) {
                store.put(b(k), b("d"));
                store.put(a, b(k), b("a"));
                store.put(c, b(k), b("c"));
            }
            store.flushColumnFamily(c);
            store.deleteRange(a, b("k2"), b("k4"));
            // In tables: the range delete flushed with family c's.
            store.write(new WriteBatch().deleteRange(c, b("k1"), b("k3")).put(c, b("k1"), b("again")));
            store.flushColumnFamily(c);
            assertEquals(List.of("k1=a", "k4=a"), keys(store.scan(a, null, null)));
            assertEquals(List.of("k1=again", "k3=c", "k4=c"), keys(store.scan(c, null, null)));
            assertEquals(List.of("k1=d", "k2=d", "k3=d", "k4=d"), keys(store.scan(null, null)));
            assertThrows(IllegalArgumentException.class, () -> store.deleteRange(a, b("z"), b("a")));
        }
        // Family a's range delete is only in the WAL (its type byte carries the family flag).
        try (LsmStore store = LsmStore.open(dir)) {
            ColumnFamily a = store.columnFamily("a");
            ColumnFamily c = store.columnFamily("c");
            assertEquals(List.of("k1=a", "k4=a"), keys(store.scan(a, null, null)));
            assertNull(store.get(a, b("k3")));
            assertEquals(List.of("k1=again", "k3=c", "k4=c"), keys(store.scan(c, null, null)));
            assertEquals("d", s(store.get(b("k2"))));
        }
    }

    @Test
    void aBatchAcrossFamiliesIsAtomicAndASnapshotSeesEveryFamilyAtOnePoint() {
        try (LsmStore store = LsmStore.open(tmp.resolve("s"))) {
            ColumnFamily a = store.createColumnFamily("a", FamilyOptions.defaults());
            ColumnFamily c = store.createColumnFamily("c", FamilyOptions.defaults());
            store.write(new WriteBatch().put(a, b("x"), b("1")).put(c, b("x"), b("1")).put(b("x"), b("1")));
            try (Snapshot snap = store.snapshot()) {
                store.write(new WriteBatch().put(a, b("x"), b("2")).delete(c, b("x")).put(b("y"), b("2")));
                assertEquals("1", s(snap.get(a, b("x"))));
                assertEquals("1", s(snap.get(c, b("x"))));
                assertNull(snap.get(b("y")));
                assertEquals(List.of("x=1"), keys(snap.scan(c, null, null)));
                assertEquals("2", s(store.get(a, b("x"))));
                assertNull(store.get(c, b("x")));
                // A bad handle anywhere in a batch fails all of it.
                ColumnFamily doomed = store.createColumnFamily("doomed", FamilyOptions.defaults());
                store.dropColumnFamily(doomed);
                WriteBatch mixed = new WriteBatch().put(a, b("z"), b("3")).put(doomed, b("z"), b("3"));
                IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> store.write(mixed));
                assertTrue(e.getMessage().contains("doomed") && e.getMessage().contains("dropped"), e.getMessage());
                assertNull(store.get(a, b("z")));
                assertThrows(IllegalArgumentException.class, () -> snap.get(doomed, b("x")));
            }
        }
    }

    @Test
    void flushingOneFamilyKeepsTheWalAnotherFamilyStillNeeds() {
        Path dir = tmp.resolve("s");
        try (LsmStore store = LsmStore.open(dir)) {
            ColumnFamily a = store.createColumnFamily("a", FamilyOptions.defaults());
            ColumnFamily c = store.createColumnFamily("c", FamilyOptions.defaults());
            for (int i = 0; i < 100; i++) {
                store.write(new WriteBatch().put(a, b("k" + i), b("a" + i)).put(c, b("k" + i), b("c" + i)));
            }
            // a and the default family go to tables; c's writes are only in the WAL.
            store.flushColumnFamily(a);
            store.flush();
            for (int i = 100; i < 120; i++) {
                store.put(a, b("k" + i), b("a" + i));
            }
            store.flushColumnFamily(a);
            assertEquals(0, store.columnFamilyStats(c).componentCount());
        } // close in WAL mode async does not flush
        try (LsmStore store = LsmStore.open(dir)) {
            ColumnFamily a = store.columnFamily("a");
            ColumnFamily c = store.columnFamily("c");
            for (int i = 0; i < 100; i++) {
                assertEquals("a" + i, s(store.get(a, b("k" + i))));
                assertEquals("c" + i, s(store.get(c, b("k" + i))), "key " + i + " of family c");
            }
            for (int i = 100; i < 120; i++) {
                assertEquals("a" + i, s(store.get(a, b("k" + i))), "key " + i + " of family a, scan " + keys(store.scan(a, b("k1"), b("k2"))) + " c " + keys(store.scan(c, b("k1"), b("k2"))));
            }
            assertEquals(120, keys(store.scan(a, null, null)).size());
        }
    }

    @Test
    void dropDeletesTheFamilyAndRefusesItsHandleEverywhere() throws IOException {
        Path dir = tmp.resolve("s");
        try (LsmStore store = LsmStore.open(dir)) {
            ColumnFamily gone = store.createColumnFamily("gone", FamilyOptions.defaults());
            store.put(gone, b("k"), b("v"));
            store.flushColumnFamily(gone);
            Path familyDir = FamilyCatalog.familyDirectory(dir, gone.id());
            assertTrue(Files.isDirectory(familyDir));
            store.dropColumnFamily(gone);
            assertTrue(gone.isDropped());
            assertFalse(Files.exists(familyDir), "a dropped family's directory is deleted");
            for (Runnable call : List.<Runnable>of(() -> store.put(gone, b("k"), b("v")), () -> store.get(gone, b("k")),
                    () -> store.delete(gone, b("k")), () -> store.scan(gone, null, null),
                    () -> store.flushColumnFamily(gone), () -> store.dropColumnFamily(gone),
                    () -> store.columnFamilyStats(gone), () -> store.write(new WriteBatch().put(gone, b("k"), b("v"))))) {
                IllegalArgumentException e = assertThrows(IllegalArgumentException.class, call::run);
                assertTrue(e.getMessage().contains("\"gone\"") && e.getMessage().contains("dropped"), e.getMessage());
            }
            assertThrows(IllegalArgumentException.class, () -> store.columnFamily("gone"));
            // The name is free again, with a new id: the old one's WAL records stay the old family's.
            ColumnFamily again = store.createColumnFamily("gone", FamilyOptions.defaults());
            assertTrue(again.id() > gone.id());
            assertNull(store.get(again, b("k")));
            store.put(again, b("k2"), b("v2"));
        }
        try (LsmStore store = LsmStore.open(dir)) {
            ColumnFamily again = store.columnFamily("gone");
            assertNull(store.get(again, b("k")), "the dropped family's WAL records are not replayed into the new one");
            assertEquals("v2", s(store.get(again, b("k2"))));
        }
    }

    @Test
    void badInputIsRefusedWithAClearErrorAndChangesNothing() {
        try (LsmStore store = LsmStore.open(tmp.resolve("s")); LsmStore other = LsmStore.open(tmp.resolve("o"))) {
            ColumnFamily a = store.createColumnFamily("a", FamilyOptions.defaults());
            ColumnFamily foreign = other.createColumnFamily("a", FamilyOptions.defaults());
            assertMessage(IllegalArgumentException.class, "exists already", () -> store.createColumnFamily("a",
                    FamilyOptions.defaults()));
            assertMessage(IllegalArgumentException.class, "exists already", () -> store.createColumnFamily("default",
                    FamilyOptions.defaults()));
            assertMessage(IllegalArgumentException.class, "cannot be dropped",
                    () -> store.dropColumnFamily(store.defaultColumnFamily()));
            assertMessage(IllegalArgumentException.class, "no column family \"nope\"", () -> store.columnFamily("nope"));
            assertMessage(IllegalArgumentException.class, "another store", () -> store.put(foreign, b("k"), b("v")));
            assertMessage(IllegalArgumentException.class, "another store",
                    () -> store.write(new WriteBatch().put(a, b("k"), b("v")).put(foreign, b("k"), b("v"))));
            assertNull(store.get(a, b("k")));
            for (String bad : new String[] {"", "a b", "x/y", ".hidden", "-x", "é", "n".repeat(65)}) {
                assertThrows(IllegalArgumentException.class, () -> store.createColumnFamily(bad, FamilyOptions.defaults()),
                        "name " + bad);
            }
            assertMessage(IllegalArgumentException.class, "unknown merge policy",
                    () -> store.createColumnFamily("p", FamilyOptions.builder().mergePolicy("no-such-policy").build()));
            assertMessage(IllegalArgumentException.class, "memtableBytes",
                    () -> store.createColumnFamily("m", FamilyOptions.builder().memtableBytes(10).build()));
            assertThrows(IllegalArgumentException.class, () -> FamilyOptions.builder().memtableBytes(-1));
            assertThrows(IllegalArgumentException.class, () -> store.createColumnFamily("n", null));
            assertThrows(IllegalArgumentException.class, () -> store.put((ColumnFamily) null, b("k"), b("v")));
            assertEquals(List.of("default", "a"), store.listColumnFamilies().stream().map(ColumnFamily::name).toList());
        }
        // A handle of an earlier open of the same store is refused too.
        ColumnFamily stale;
        try (LsmStore store = LsmStore.open(tmp.resolve("s"))) {
            stale = store.columnFamily("a");
        }
        try (LsmStore store = LsmStore.open(tmp.resolve("s"))) {
            assertMessage(IllegalArgumentException.class, "earlier open", () -> store.get(stale, b("k")));
        }
    }

    @Test
    void configuredFamiliesAreCreatedAtOpenAndTakeTheirOwnOptions() {
        Path dir = tmp.resolve("s");
        StoreConfig config = StoreConfig.builder()
                .family("small", FamilyOptions.builder().memtableBytes(64 << 10).mergePolicy("no-merge").build())
                .build();
        try (LsmStore store = LsmStore.open(dir, config)) {
            ColumnFamily small = store.columnFamily("small");
            byte[] value = new byte[1000];
            for (int i = 0; i < 400; i++) {
                store.put(small, b(TestKeys.padded("k", i, 5)), value);
            }
            store.flushColumnFamily(small);
            // 400 KB through a 64 KiB memtable: several flushes, and no-merge keeps every table.
            assertTrue(store.columnFamilyStats(small).componentCount() >= 4,
                    "components: " + store.columnFamilyStats(small).componentCount());
            assertEquals(0, store.stats().componentCount());
        }
        assertThrows(IllegalArgumentException.class, () -> StoreConfig.builder().family("x", FamilyOptions.defaults())
                .family("x", FamilyOptions.defaults()));
        assertThrows(IllegalArgumentException.class, () -> StoreConfig.builder().family("default", FamilyOptions.defaults()));
        assertThrows(ConfigException.class, () -> StoreConfig.builder()
                .family("x", FamilyOptions.builder().memtableBytes(5).build()).build());
    }

    @Test
    void eachFamilyHasItsOwnStatsAndMetersTaggedWithItsName() {
        io.micrometer.core.instrument.simple.SimpleMeterRegistry registry =
                new io.micrometer.core.instrument.simple.SimpleMeterRegistry();
        try (LsmStore store = LsmStore.open(tmp.resolve("s"), StoreConfig.builder().meterRegistry(registry).build())) {
            ColumnFamily f = store.createColumnFamily("f", FamilyOptions.defaults());
            for (int i = 0; i < 50; i++) {
                store.put(f, b("k" + i), b("v" + i));
            }
            store.flushColumnFamily(f);
            store.put(f, b("k"), b("v"));
            store.flushColumnFamily(f);
            store.put(b("d"), b("v"));
            assertEquals(2, store.columnFamilyStats(f).flushCount());
            assertEquals(0, store.stats().flushCount());
            assertTrue(store.stats().memtableBytes() > 0);
            assertEquals(0, store.columnFamilyStats(f).memtableBytes());
            assertEquals(store.columnFamilyStats(f).componentCount(),
                    registry.get("strata.family.components").tag("family", "f").gauge().value());
            assertEquals(2.0, registry.get("strata.family.flushes").tag("family", "f").functionCounter().count());
            assertEquals(0.0, registry.get("strata.family.flushes").tag("family", "default").functionCounter().count());
            store.dropColumnFamily(f);
            assertTrue(registry.find("strata.family.components").tag("family", "f").meters().isEmpty(),
                    "a dropped family's meters are removed");
        }
    }

    @Test
    void aStoreWithoutFamiliesKeepsItsOldLayout() throws IOException {
        Path dir = tmp.resolve("s");
        try (LsmStore store = LsmStore.open(dir)) {
            store.put(b("k"), b("v"));
            store.flush();
        }
        assertFalse(Files.exists(dir.resolve(FamilyCatalog.FILE)), "no catalog until a family is created");
        assertFalse(Files.exists(dir.resolve(FamilyCatalog.DIRECTORY)));
        try (LsmStore store = LsmStore.open(dir)) {
            assertEquals("v", s(store.get(b("k"))));
        }
    }

    @Test
    void aDropWhoseCatalogWriteFailsLeavesTheFamilyWhole() throws IOException {
        Path dir = tmp.resolve("s");
        AtomicBoolean failRename = new AtomicBoolean();
        ForwardingStorageIO io = new ForwardingStorageIO(new FileChannelStorageIO()) {
            @Override
            public void rename(Path from, Path to) throws IOException {
                if (failRename.get() && to.getFileName().toString().equals(FamilyCatalog.FILE)) {
                    throw new IOException("injected: rename of the family catalog failed");
                }
                super.rename(from, to);
            }
        };
        StoreConfig config = StoreConfig.builder().storageIO(io).build();
        try (LsmStore store = LsmStore.open(dir, config)) {
            ColumnFamily f = store.createColumnFamily("f", FamilyOptions.defaults());
            store.put(f, b("k"), b("v"));
            store.flushColumnFamily(f);
            store.put(f, b("k2"), b("v2"));
            failRename.set(true);
            StoreException e = assertThrows(StoreException.class, () -> store.dropColumnFamily(f));
            assertTrue(e.getMessage().contains("still there"), e.getMessage());
            assertFalse(f.isDropped());
            assertEquals("v", s(store.get(f, b("k"))));
            assertTrue(Files.isDirectory(FamilyCatalog.familyDirectory(dir, f.id())));
            failRename.set(false);
        }
        try (LsmStore store = LsmStore.open(dir)) {
            ColumnFamily f = store.columnFamily("f");
            assertEquals("v", s(store.get(f, b("k"))));
            assertEquals("v2", s(store.get(f, b("k2"))));
        }
    }

    @Test
    void aDroppedFamilysDirectoryLeftByACrashIsDeletedAtOpen() throws IOException {
        Path dir = tmp.resolve("s");
        Path copy = tmp.resolve("copy");
        int id;
        try (LsmStore store = LsmStore.open(dir)) {
            ColumnFamily f = store.createColumnFamily("f", FamilyOptions.defaults());
            id = f.id();
            store.put(f, b("k"), b("v"));
            store.flushColumnFamily(f);
            copyTree(FamilyCatalog.familyDirectory(dir, id), copy);
            store.dropColumnFamily(f);
        }
        // As if the process died after the drop was recorded, before the directory was deleted.
        copyTree(copy, FamilyCatalog.familyDirectory(dir, id));
        try (LsmStore store = LsmStore.open(dir)) {
            assertEquals(List.of("default"), store.listColumnFamilies().stream().map(ColumnFamily::name).toList());
            assertFalse(Files.exists(FamilyCatalog.familyDirectory(dir, id)));
        }
        assertTrue(WalSegments.list(new FileChannelStorageIO(), dir).size() >= 1);
    }

    @Test
    void repairRebuildsEveryFamilysManifest() throws IOException {
        Path dir = tmp.resolve("s");
        int id;
        try (LsmStore store = LsmStore.open(dir)) {
            ColumnFamily f = store.createColumnFamily("f", FamilyOptions.defaults());
            id = f.id();
            for (int i = 0; i < 20; i++) {
                store.write(new WriteBatch().put(f, b("k" + i), b("f" + i)).put(b("k" + i), b("d" + i)));
            }
            store.flushColumnFamily(f);
            store.put(f, b("late"), b("wal only"));
        }
        // Lose the family's manifest: without repair the store does not open.
        Path familyDir = FamilyCatalog.familyDirectory(dir, id);
        Files.delete(familyDir.resolve("CURRENT"));
        try (var files = Files.list(familyDir)) {
            for (Path p : files.toList()) {
                if (p.getFileName().toString().startsWith("MANIFEST")) {
                    Files.delete(p);
                }
            }
        }
        dev.strata.lsm.RepairReport report = LsmStore.repair(dir, StoreConfig.defaults());
        assertEquals(1, report.families().size(), report.toString());
        assertEquals(1, report.families().get(0).tables(), report.toString());
        try (LsmStore store = LsmStore.open(dir)) {
            ColumnFamily f = store.columnFamily("f");
            for (int i = 0; i < 20; i++) {
                assertEquals("f" + i, s(store.get(f, b("k" + i))));
                assertEquals("d" + i, s(store.get(b("k" + i))));
            }
            assertEquals("wal only", s(store.get(f, b("late"))));
        }
    }

    private static void copyTree(Path from, Path to) throws IOException {
        Files.createDirectories(to);
        try (var files = Files.list(from)) {
            for (Path p : files.toList()) {
                if (Files.isRegularFile(p)) {
                    Files.copy(p, to.resolve(p.getFileName()));
                }
            }
        }
    }

    private static void assertMessage(Class<? extends Throwable> type, String part, Runnable call) {
        Throwable t = assertThrows(type, call::run);
        assertTrue(t.getMessage().contains(part), "expected \"" + part + "\" in: " + t.getMessage());
    }
}
