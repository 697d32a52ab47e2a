package dev.strata.lsm.family;

import dev.strata.lsm.ColumnFamily;
import dev.strata.lsm.FamilyOptions;
import dev.strata.lsm.LsmStore;
import dev.strata.lsm.StoreConfig;
import dev.strata.lsm.WriteBatch;
import dev.strata.lsm.testkit.TestScale;
import dev.strata.lsm.WalSyncMode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@link LsmStore#openReadOnly} and {@link LsmStore#refresh()} of a store with column families, beside its writer. */
class FamilyReadOnlyTest {
    @TempDir
    Path tmp;

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static StoreConfig config() {
        return StoreConfig.builder().memtableBytes(32 << 10).walMode(WalSyncMode.ASYNC).build();
    }

    @Test
    void aReaderSeesEachFamilyAndAfterRefreshTheNewerWrites() {
        Path dir = tmp.resolve("s");
        try (LsmStore writer = LsmStore.open(dir, config())) {
            ColumnFamily a = writer.createColumnFamily("a", FamilyOptions.defaults());
            ColumnFamily bFam = writer.createColumnFamily("b", FamilyOptions.builder().mergePolicy("size-tiered").build());
            for (int i = 0; i < 1_000; i++) {
                writer.put(b("d" + i), b("d1"));
                writer.put(a, b("a" + i), b("a1"));
            }
            writer.flushColumnFamily(a);
            writer.put(bFam, b("k"), b("b1")); // only in the WAL
            try (LsmStore reader = LsmStore.openReadOnly(dir, config())) {
                assertEquals(List.of("default", "a", "b"),
                        reader.listColumnFamilies().stream().map(ColumnFamily::name).toList());
                ColumnFamily ra = reader.columnFamily("a");
                ColumnFamily rb = reader.columnFamily("b");
                assertArrayEquals(b("a1"), reader.get(ra, b("a999")));
                assertArrayEquals(b("d1"), reader.get(b("d999")));
                assertArrayEquals(b("b1"), reader.get(rb, b("k")));
                assertNull(reader.get(ra, b("d1")), "families stay separate keyspaces");
                assertThrows(UnsupportedOperationException.class, () -> reader.put(ra, b("x"), b("y")));

                writer.put(a, b("a5"), b("a2"));
                writer.write(new WriteBatch().put(bFam, b("k"), b("b2")).delete(b("d5")));
                writer.dropColumnFamily(a);
                ColumnFamily c = writer.createColumnFamily("c", FamilyOptions.defaults());
                writer.put(c, b("c"), b("c1"));
                writer.flushColumnFamily(c);
                // Not refreshed yet: the state the reader found.
                assertArrayEquals(b("b1"), reader.get(rb, b("k")));
                assertArrayEquals(b("d1"), reader.get(b("d5")));

                reader.refresh();
                assertEquals(List.of("default", "b", "c"),
                        reader.listColumnFamilies().stream().map(ColumnFamily::name).toList());
                assertArrayEquals(b("b2"), reader.get(rb, b("k")), "a handle of a family that stayed keeps working");
                assertNull(reader.get(b("d5")));
                assertArrayEquals(b("c1"), reader.get(reader.columnFamily("c"), b("c")));
                IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> reader.get(ra, b("a5")));
                assertTrue(e.getMessage().contains("\"a\""), e.getMessage());
            }
        }
    }

    @Test
    void readersBesideAWriterSeeCrossFamilyBatchesWhole() throws Exception {
        Path dir = tmp.resolve("s");
        long rounds = TestScale.scaled(8L);
        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong acked = new AtomicLong();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        try (LsmStore writer = LsmStore.open(dir, StoreConfig.builder().memtableBytes(16 << 10)
                .mergePolicy("size-tiered", Map.of()).walMode(WalSyncMode.ASYNC).build())) {
            ColumnFamily a = writer.createColumnFamily("a", FamilyOptions.defaults());
            ColumnFamily bFam = writer.createColumnFamily("b", FamilyOptions.defaults());
            Thread w = new Thread(() -> {
                try {
                    // Batch i sets key i % 50 to i in a and in b, and "n" in the default family to i.
                    for (long i = 1; !stop.get(); i++) {
                        byte[] v = b(Long.toString(i));
                        writer.write(new WriteBatch().put(a, b("k" + i % 50), v).put(bFam, b("k" + i % 50), v)
                                .put(b("n"), v));
                        acked.set(i);
                    }
                } catch (Throwable t) {
                    failure.set(t);
                }
            });
            w.start();
            try (LsmStore reader = LsmStore.openReadOnly(dir, config())) {
                for (long r = 0; r < rounds; r++) {
                    Thread.sleep(30);
                    long before = acked.get();
                    reader.refresh();
                    byte[] n = reader.get(b("n"));
                    long seen = n == null ? 0 : Long.parseLong(new String(n, StandardCharsets.UTF_8));
                    assertTrue(seen >= before, "the reader sees every batch acknowledged before the refresh");
                    ColumnFamily ra = reader.columnFamily("a");
                    ColumnFamily rb = reader.columnFamily("b");
                    for (int k = 0; k < 50; k++) {
                        byte[] va = reader.get(ra, b("k" + k));
                        byte[] vb = reader.get(rb, b("k" + k));
                        assertArrayEquals(va, vb, "key k" + k + " after batch " + seen);
                        long expected = seen - Math.floorMod(seen - k, 50);
                        assertEquals(expected <= 0 ? null : Long.toString(expected),
                                va == null ? null : new String(va, StandardCharsets.UTF_8), "key k" + k);
                    }
                }
            } finally {
                stop.set(true);
                w.join();
            }
            assertNull(failure.get(), () -> "writer failed: " + failure.get());
        }
    }
}
