package dev.strata.lsm.engine;

import dev.strata.lsm.ConfigException;
import dev.strata.lsm.LsmStore;
import dev.strata.lsm.Snapshot;
import dev.strata.lsm.StoreConfig;
import dev.strata.lsm.TestAccess;
import dev.strata.lsm.WriteBatch;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayInputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The successive-merge bound ({@link StoreConfig#maxSuccessiveMerges()}): a hot key taking
 * 100,000 operands keeps at most the bound in a row in the active memtable (what a get
 * combines from it), through single merges and batches with several operands of the key,
 * with the right value, for snapshots taken on the way and after a reopen; without the
 * bound the operands pile up; a bad bound is refused.
 */
class SuccessiveMergesTest {
    @TempDir
    Path dir;

    private static final byte[] HOT = "hot".getBytes(StandardCharsets.UTF_8);

    private static byte[] u64(long v) {
        return ByteBuffer.allocate(Long.BYTES).putLong(v).array();
    }

    private static long asLong(byte[] v) {
        return ByteBuffer.wrap(v).getLong();
    }

    private static int chain(LsmStore store, int limit) {
        return TestAccess.engine(store).successiveMergesInMemtable(0, HOT, limit);
    }

    @Test
    void aHotKeyKeepsAtMostTheBoundOfOperandsInARow() {
        int bound = 16;
        StoreConfig config = StoreConfig.builder().mergeOperator("uint64add").maxSuccessiveMerges(bound).build();
        long expected = 0;
        long atSnapshot = -1;
        int longest = 0;
        try (LsmStore store = LsmStore.open(dir, config)) {
            Snapshot snapshot = null;
            for (int i = 0; i < 100_000; i++) {
                if (i % 1000 == 999) {
                    // A batch with several operands of the key: each is checked against the bound
                    // with the ones before it in the memtable.
                    WriteBatch b = new WriteBatch();
                    for (int j = 0; j < 7; j++) {
                        b.merge(HOT, u64(j + 1));
                        expected += j + 1;
                    }
                    store.write(b);
                } else {
                    store.merge(HOT, u64(i % 5));
                    expected += i % 5;
                }
                int c = chain(store, bound + 1);
                longest = Math.max(longest, c);
                assertTrue(c <= bound, "operands in a row after merge " + i + ": " + c);
                if (i == 50_000) {
                    snapshot = store.snapshot();
                    atSnapshot = expected;
                }
                if (i % 9973 == 0) {
                    assertEquals(expected, asLong(store.get(HOT)), "after merge " + i);
                }
            }
            assertEquals(bound, longest, "the chain reached the bound");
            assertEquals(expected, asLong(store.get(HOT)));
            assertEquals(atSnapshot, asLong(snapshot.get(HOT)), "a snapshot taken on the way");
            assertTrue(store.stats().mergesCollapsed() >= 100_000 / (bound + 1) - store.stats().flushCount() - 1,
                    "merges written as values: " + store.stats().mergesCollapsed());
            store.flush();
            assertEquals(atSnapshot, asLong(snapshot.get(HOT)), "the snapshot after a flush");
            snapshot.close();
            store.merge(HOT, u64(1));
            expected += 1;
        }
        try (LsmStore store = LsmStore.open(dir, config)) {
            assertEquals(expected, asLong(store.get(HOT)), "after a reopen");
        }
    }

    /**
     * A crash-like reopen: the WAL holds operands, the memtable held some of them as values;
     * the replay must give the same value (the store is not flushed before it is abandoned).
     */
    @Test
    void replayingTheWalGivesTheSameValue() {
        StoreConfig config = StoreConfig.builder().mergeOperator("stringappend").maxSuccessiveMerges(2).build();
        StringBuilder expected = new StringBuilder("base");
        try (LsmStore store = LsmStore.open(dir, config)) {
            store.put(HOT, "base".getBytes(StandardCharsets.UTF_8));
            store.flush();
            for (int i = 0; i < 50; i++) {
                store.merge(HOT, Integer.toString(i).getBytes(StandardCharsets.UTF_8));
                expected.append(',').append(i);
                assertTrue(chain(store, 3) <= 2);
            }
            assertArrayEquals(expected.toString().getBytes(StandardCharsets.UTF_8), store.get(HOT));
            assertTrue(store.stats().mergesCollapsed() >= 16, "collapsed " + store.stats().mergesCollapsed());
        }
        try (LsmStore store = LsmStore.open(dir, config)) {
            assertArrayEquals(expected.toString().getBytes(StandardCharsets.UTF_8), store.get(HOT), "after replay");
        }
    }

    /**
     * A get whose operands end in a put within the memtables combines them there: it touches
     * no table block (the block cache counts every table block a read asks for). With the put
     * only in a table, the same get reads the table.
     */
    @Test
    void operandsOnAValueInTheMemtableAreCombinedWithoutReadingATable() {
        StoreConfig config = StoreConfig.builder().mergeOperator("uint64add").maxSuccessiveMerges(16).build();
        try (LsmStore store = LsmStore.open(dir, config)) {
            for (int i = 0; i < 100; i++) {
                store.put(("k" + i).getBytes(StandardCharsets.UTF_8), u64(i));
            }
            store.put(HOT, u64(1000));
            store.flush(); // a table whose key range holds HOT
            store.put(HOT, u64(1));
            for (int i = 0; i < 5; i++) {
                store.merge(HOT, u64(10));
            }
            long blocks = blocksAsked(store);
            for (int i = 0; i < 10; i++) {
                assertEquals(51, asLong(store.get(HOT)));
                assertEquals(51, asLong(store.getAll(HOT)[0]), "a multi-get too");
            }
            assertEquals(blocks, blocksAsked(store), "a table block was read");
            // The put in the table only: the operands' value is below the memtables.
            store.flush();
            store.merge(HOT, u64(10));
            blocks = blocksAsked(store);
            assertEquals(61, asLong(store.get(HOT)));
            assertTrue(blocksAsked(store) > blocks, "the table holds the value below the operand");
            // A tombstone in the memtable ends the operands as a put does.
            store.delete(HOT);
            store.merge(HOT, u64(7));
            blocks = blocksAsked(store);
            assertEquals(7, asLong(store.get(HOT)));
            assertEquals(blocks, blocksAsked(store));
            // So does a range tombstone in the memtable covering what is below the operand.
            store.put(HOT, u64(100));
            store.deleteRange(HOT, "hou".getBytes(StandardCharsets.UTF_8));
            store.merge(HOT, u64(3));
            blocks = blocksAsked(store);
            assertEquals(3, asLong(store.get(HOT)));
            assertEquals(blocks, blocksAsked(store));
        }
    }

    private static long blocksAsked(LsmStore store) {
        return store.stats().blockCacheHits() + store.stats().blockCacheMisses();
    }

    @Test
    void withoutTheBoundOperandsPileUp() {
        StoreConfig config = StoreConfig.builder().mergeOperator("uint64add").build();
        assertEquals(0, config.maxSuccessiveMerges());
        try (LsmStore store = LsmStore.open(dir, config)) {
            for (int i = 0; i < 100; i++) {
                store.merge(HOT, u64(1));
            }
            assertEquals(100, chain(store, 1000));
            assertEquals(100, asLong(store.get(HOT)));
            assertEquals(0, store.stats().mergesCollapsed());
        }
    }

    @Test
    void aNegativeBoundIsRefusedAndXmlSetsIt() {
        ConfigException e = assertThrows(ConfigException.class,
                () -> StoreConfig.builder().mergeOperator("uint64add").maxSuccessiveMerges(-1).build());
        assertTrue(e.getMessage().contains("maxSuccessiveMerges") && e.getMessage().contains("-1"), e.getMessage());
        StoreConfig fromXml = dev.strata.lsm.config.XmlConfig.read(new ByteArrayInputStream(
                "<store><mergeOperator name=\"uint64add\" maxSuccessiveMerges=\"16\"/></store>"
                        .getBytes(StandardCharsets.UTF_8)), "test.xml");
        assertEquals(16, fromXml.maxSuccessiveMerges());
        assertEquals("uint64add", fromXml.mergeOperator());
        ConfigException x = assertThrows(ConfigException.class, () -> dev.strata.lsm.config.XmlConfig.read(new ByteArrayInputStream(
                "<store><mergeOperator name=\"uint64add\" maxSuccessiveMerges=\"-2\"/></store>"
                        .getBytes(StandardCharsets.UTF_8)), "test.xml"));
        assertTrue(x.getMessage().contains("maxSuccessiveMerges") && x.getMessage().contains("-2"), x.getMessage());
        ConfigException y = assertThrows(ConfigException.class, () -> dev.strata.lsm.config.XmlConfig.read(new ByteArrayInputStream(
                "<store><mergeOperator name=\"uint64add\" maxSuccessiveMerges=\"many\"/></store>"
                        .getBytes(StandardCharsets.UTF_8)), "test.xml"));
        assertTrue(y.getMessage().contains("maxSuccessiveMerges"), y.getMessage());
    }
}
