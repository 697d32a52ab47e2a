package dev.strata.lsm.sstable;

import dev.strata.lsm.cache.BlockCache;
import dev.strata.lsm.io.CountingStorageIO;
import dev.strata.lsm.io.FileChannelStorageIO;
import dev.strata.lsm.io.IoPurpose;
import dev.strata.lsm.io.OpenMode;
import dev.strata.lsm.io.PageFile;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;

/** Writes tables from generated entries and opens them through a counting IO layer. */
final class TableFixture {
    final CountingStorageIO io = new CountingStorageIO(new FileChannelStorageIO());

    FinishedTable write(Path path, TableOptions options, List<InternalEntry> entries) throws IOException {
        try (PageFile file = io.open(path, OpenMode.CREATE, IoPurpose.FLUSH)) {
            SSTableWriter writer = new SSTableWriter(file, options);
            for (InternalEntry e : entries) {
                writer.add(e);
            }
            return writer.finish();
        }
    }

    PageFile openForRead(Path path) throws IOException {
        return io.open(path, OpenMode.READ, IoPurpose.READ);
    }

    /**
     * Sorted entries over {@code distinctKeys} random unique keys with key lengths in
     * [minKey, maxKey] and value lengths in [minValue, maxValue]; about a tenth of the keys
     * get several versions and some versions are tombstones.
     */
    static List<InternalEntry> randomEntries(Random rnd, int distinctKeys, int minKey, int maxKey, int minValue,
                                             int maxValue) {
        Set<String> seen = new HashSet<>();
        List<byte[]> keys = new ArrayList<>(distinctKeys);
        while (keys.size() < distinctKeys) {
            byte[] k = new byte[minKey + rnd.nextInt(maxKey - minKey + 1)];
            rnd.nextBytes(k);
            if (seen.add(java.util.HexFormat.of().formatHex(k))) {
                keys.add(k);
            }
        }
        keys.sort(InternalKeys::compareUserKeys);
        List<InternalEntry> out = new ArrayList<>();
        long seq = 1_000_000;
        for (byte[] k : keys) {
            int versions = rnd.nextInt(10) == 0 ? 2 + rnd.nextInt(3) : 1;
            long s = seq - rnd.nextInt(1000);
            for (int v = 0; v < versions; v++) {
                if (rnd.nextInt(8) == 0) {
                    out.add(InternalEntry.delete(k, s));
                } else {
                    byte[] value = new byte[minValue + rnd.nextInt(maxValue - minValue + 1)];
                    rnd.nextBytes(value);
                    out.add(InternalEntry.put(k, s, value));
                }
                s -= 1 + rnd.nextInt(50);
            }
        }
        return out;
    }

    static SSTableReader open(PageFile file, FinishedTable table, BlockCache cache) throws IOException {
        return SSTableReader.open(file, table.footerOffset(), 1, cache);
    }
}
