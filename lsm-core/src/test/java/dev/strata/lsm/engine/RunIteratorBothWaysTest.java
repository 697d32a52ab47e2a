package dev.strata.lsm.engine;

import dev.strata.lsm.cache.BlockCache;
import dev.strata.lsm.io.FileChannelStorageIO;
import dev.strata.lsm.io.IoPurpose;
import dev.strata.lsm.io.OpenMode;
import dev.strata.lsm.io.PageFile;
import dev.strata.lsm.sstable.EntryListIterator;
import dev.strata.lsm.sstable.EntryType;
import dev.strata.lsm.sstable.FinishedTable;
import dev.strata.lsm.sstable.InternalEntry;
import dev.strata.lsm.sstable.InternalKeys;
import dev.strata.lsm.sstable.IteratorWalk;
import dev.strata.lsm.sstable.SSTableReader;
import dev.strata.lsm.sstable.SSTableWriter;
import dev.strata.lsm.sstable.TableOptions;
import dev.strata.lsm.testkit.TestKeys;
import dev.strata.lsm.version.Component;
import dev.strata.lsm.version.ComponentMeta;
import dev.strata.lsm.version.Run;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * A run iterator moves both ways across its components (stepping off one table continues at
 * the neighbour's last or first entry; a seekForPrev between two tables lands at the end of
 * the earlier one), and a sequence bound hides the same entries backwards as forwards.
 */
class RunIteratorBothWaysTest {
    @TempDir
    Path dir;

    private final List<PageFile> open = new ArrayList<>();

    @AfterEach
    void closeFiles() throws IOException {
        for (PageFile f : open) {
            f.close();
        }
    }

    @Test
    void walksARunOfSeveralTables() throws IOException {
        Random rnd = new Random(21);
        for (int round = 0; round < 8; round++) {
            int tables = round == 0 ? 0 : 1 + rnd.nextInt(6);
            List<Component> components = new ArrayList<>();
            List<InternalEntry> all = new ArrayList<>();
            int key = 0;
            for (int t = 0; t < tables; t++) {
                List<InternalEntry> entries = new ArrayList<>();
                // Gaps between tables, so that seeks fall between them too.
                key += 1 + rnd.nextInt(20);
                int keys = 1 + rnd.nextInt(t % 2 == 0 ? 5 : 1_500);
                for (int k = 0; k < keys; k++, key += 1 + rnd.nextInt(2)) {
                    long seq = 1000;
                    for (int v = rnd.nextInt(8) == 0 ? 3 : 1; v > 0; v--) {
                        seq -= 1 + rnd.nextInt(100);
                        entries.add(rnd.nextInt(5) == 0 ? InternalEntry.delete(key(key), seq)
                                : InternalEntry.put(key(key), seq, ("v" + key + "@" + seq).getBytes()));
                    }
                }
                components.add(component(round * 10 + t, entries));
                all.addAll(entries);
            }
            Run run = new Run(1, components);
            IteratorWalk.Targets targets = targets(key);
            IteratorWalk.walk(new RunIterator(run), all, rnd, 4_000, targets, "run of " + tables + " tables");

            long bound = 900 + rnd.nextInt(100);
            List<InternalEntry> visible = all.stream().filter(e -> e.seqno() <= bound).toList();
            IteratorWalk.walk(new SequenceBoundIterator(new RunIterator(run), bound), visible, rnd, 2_000, targets,
                    "run of " + tables + " tables bounded at seqno " + bound);
        }
    }

    @Test
    void aSequenceBoundOverAListHidesNewerEntriesBothWays() throws IOException {
        Random rnd = new Random(22);
        List<InternalEntry> entries = new ArrayList<>();
        for (int k = 0; k < 300; k++) {
            for (long seq = 10; seq >= 1; seq -= 1 + rnd.nextInt(4)) {
                entries.add(new InternalEntry(key(k), seq, EntryType.PUT, ("v" + seq).getBytes()));
            }
        }
        List<InternalEntry> visible = entries.stream().filter(e -> e.seqno() <= 5).toList();
        IteratorWalk.walk(new SequenceBoundIterator(new EntryListIterator(entries), 5), visible, rnd, 5_000,
                targets(300), "list bounded at seqno 5");
    }

    private static byte[] key(int k) {
        return TestKeys.padded("k", k, 6).getBytes();
    }

    private static IteratorWalk.Targets targets(int maxKey) {
        return new IteratorWalk.Targets() {
            @Override
            public byte[] key(Random rnd) {
                byte[] k = RunIteratorBothWaysTest.key(rnd.nextInt(maxKey + 20) - 5 < 0 ? 0 : rnd.nextInt(maxKey + 20));
                return rnd.nextInt(6) == 0 ? java.util.Arrays.copyOf(k, rnd.nextInt(k.length + 1)) : k;
            }

            @Override
            public long seqno(Random rnd) {
                return rnd.nextInt(10) == 0 ? InternalKeys.MAX_SEQNO : rnd.nextInt(1_001);
            }
        };
    }

    private Component component(long fileNumber, List<InternalEntry> entries) throws IOException {
        Path path = dir.resolve(fileNumber + ".sst");
        PageFile file = new FileChannelStorageIO().open(path, OpenMode.CREATE, IoPurpose.FLUSH);
        open.add(file);
        SSTableWriter writer = new SSTableWriter(file, TableOptions.defaults());
        for (InternalEntry e : entries) {
            writer.add(e);
        }
        FinishedTable table = writer.finish();
        SSTableReader reader = SSTableReader.open(file, table.footerOffset(), fileNumber, BlockCache.create(1 << 20));
        return new Component(ComponentMeta.of(fileNumber, table, fileNumber, 0), reader);
    }
}
