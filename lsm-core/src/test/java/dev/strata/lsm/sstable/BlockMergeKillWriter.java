package dev.strata.lsm.sstable;

import dev.strata.lsm.cache.BlockCache;
import dev.strata.lsm.io.FileChannelStorageIO;
import dev.strata.lsm.io.IoPurpose;
import dev.strata.lsm.io.OpenMode;
import dev.strata.lsm.io.PageFile;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.TreeMap;

/**
 * The child process of {@link BlockMergeKillTest}: writes a table, then merges rounds of new
 * entries into it in place, forever. After each version is forced it records
 * "round footerOffset" in {@code committed} (written aside, then renamed over it) and prints
 * the round. The parent kills it at a random moment. The entries of every round follow from
 * the seed alone ({@link #base}, {@link #input}), so the parent can rebuild what any
 * committed version must hold.
 */
public final class BlockMergeKillWriter {
    static final String TABLE = "table.sst";
    static final String COMMITTED = "committed";
    static final TableOptions OPTIONS = TableOptions.defaults().withBloomReserve(0.4);

    private BlockMergeKillWriter() {
    }

    static List<InternalEntry> base(long seed) {
        Random rnd = new Random(seed);
        List<InternalEntry> out = new ArrayList<>();
        for (int k = 0; k < 6000; k++) {
            if (rnd.nextInt(3) != 0) {
                out.add(InternalEntry.put(BlockMergeWriterTest.key(k), 1 + k, BlockMergeWriterTest.value(rnd)));
            }
        }
        return out;
    }

    static List<InternalEntry> input(long seed, int round) {
        Random rnd = new Random(seed * 1_000_003L + round);
        long[] seq = {1_000_000L * round};
        return BlockMergeWriterTest.newEntries(rnd, 6000, seq);
    }

    /** What the version committed after {@code round} rounds holds. */
    static List<InternalEntry> expected(long seed, int round) {
        TreeMap<InternalEntry, InternalEntry> model = BlockMergeWriterTest.model();
        base(seed).forEach(e -> model.put(e, e));
        for (int r = 1; r <= round; r++) {
            input(seed, r).forEach(e -> model.put(e, e));
        }
        return new ArrayList<>(model.keySet());
    }

    public static void main(String[] args) throws IOException {
        Path dir = Path.of(args[0]);
        long seed = Long.parseLong(args[1]);
        FileChannelStorageIO io = new FileChannelStorageIO();
        Path path = dir.resolve(TABLE);
        FinishedTable table;
        try (PageFile file = io.open(path, OpenMode.CREATE, IoPurpose.FLUSH)) {
            SSTableWriter w = new SSTableWriter(file, OPTIONS);
            for (InternalEntry e : base(seed)) {
                w.add(e);
            }
            table = w.finish();
            file.force(true);
        }
        commit(dir, 0, table.footerOffset());
        for (int round = 1; ; round++) {
            try (PageFile file = io.open(path, OpenMode.READ_WRITE, IoPurpose.MERGE)) {
                SSTableReader base = SSTableReader.open(file, table.footerOffset(), 1, BlockCache.disabled());
                EntryListIterator in = new EntryListIterator(input(seed, round));
                in.seekToFirst();
                table = BlockMergeWriter.merge(file, base, OPTIONS, in, BlockMergeWriter.Retention.keepAll()).table();
                file.force(true);
            }
            commit(dir, round, table.footerOffset());
        }
    }

    private static void commit(Path dir, int round, long footerOffset) throws IOException {
        Path tmp = dir.resolve(COMMITTED + ".tmp");
        Files.writeString(tmp, round + " " + footerOffset, StandardCharsets.US_ASCII);
        Files.move(tmp, dir.resolve(COMMITTED), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        System.out.println(round);
        System.out.flush();
    }
}
