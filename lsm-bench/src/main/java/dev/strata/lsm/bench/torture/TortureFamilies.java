package dev.strata.lsm.bench.torture;

import dev.strata.lsm.ColumnFamily;
import dev.strata.lsm.Cursor;
import dev.strata.lsm.FamilyOptions;
import dev.strata.lsm.LsmStore;
import dev.strata.lsm.StoreConfig;

import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * The column families torture writes: the default family and {@code t1}, {@code t2}, each
 * with its own memtable size. Key {@code k} of the key space lives in family {@code k % 3}, so
 * every batch of random keys is a batch across families, and a range of keys is read from all
 * three (their entries merged in key order, a key in the wrong family reported).
 *
 * <p>Not thread safe; one per open store (the handles are that store's).
 */
public final class TortureFamilies {
    /** The families' names; key {@code k} is in family {@code NAMES.get(k % 3)}. */
    public static final List<String> NAMES = List.of(ColumnFamily.DEFAULT_NAME, "t1", "t2");

    private final ColumnFamily[] handles;

    TortureFamilies(LsmStore store) {
        handles = NAMES.stream().map(store::columnFamily).toArray(ColumnFamily[]::new);
    }

    /**
     * Adds the families to {@code b} (made at the store's first open): t1 with half the
     * memtable, t2 with twice it; and the {@code uint64add} merge operator the counter keys'
     * operands need ({@link TortureValues#isCounter}), with a successive-merge bound of 4, so
     * that kills also come while operands are being written as their key's value.
     */
    static StoreConfig.Builder addTo(StoreConfig.Builder b, long memtableBytes) {
        return b.mergeOperator("uint64add").maxSuccessiveMerges(4).family("t1", FamilyOptions.builder()
                        .memtableBytes(Math.max(StoreConfig.MIN_MEMTABLE_BYTES, memtableBytes / 2)).build())
                .family("t2", FamilyOptions.builder().memtableBytes(memtableBytes * 2).build());
    }

    /** The family of key {@code k}. */
    ColumnFamily of(int k) {
        return handles[Math.floorMod(k, handles.length)];
    }

    /** Any of the families, by {@code pick} (taken modulo their count). */
    ColumnFamily any(int pick) {
        return handles[Math.floorMod(pick, handles.length)];
    }

    /**
     * The entries of every family that {@code open} gives a cursor for, merged in key order as
     * {@code {key, value}}; a key whose index does not belong to the family it came from, or
     * that is not a key of the key space, goes to {@code misplaced} (and is left out).
     */
    List<byte[][]> entries(Function<ColumnFamily, Cursor> open, Consumer<String> misplaced) {
        TreeMap<Integer, byte[][]> merged = new TreeMap<>();
        for (ColumnFamily cf : handles) {
            try (Cursor c = open.apply(cf)) {
                while (c.next()) {
                    int k = TortureValues.index(c.key());
                    if (k < 0) {
                        misplaced.accept("family " + cf.name() + " holds a key outside the key space: "
                                + java.util.Arrays.toString(c.key()));
                    } else if (of(k) != cf) {
                        misplaced.accept("key " + k + " found in family " + cf.name() + ", but it is written only to "
                                + of(k).name());
                    } else {
                        merged.put(k, new byte[][] {c.key(), c.value()});
                    }
                }
            }
        }
        return new ArrayList<>(merged.values());
    }
}
