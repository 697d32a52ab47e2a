package dev.strata.lsm.sstable;

import dev.strata.lsm.CorruptionException;
import dev.strata.lsm.cache.BlockCache;
import dev.strata.lsm.io.IoPurpose;
import dev.strata.lsm.io.OpenMode;
import dev.strata.lsm.io.PageFile;
import dev.strata.lsm.testkit.TestSeed;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Random;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Page liveness of a file holding a chain of in-place merged versions, and crash safety of
 * an in-place merge: punching every page no live version references leaves the live versions
 * intact, every referenced page is needed, and a torn append leaves the previous version
 * readable.
 */
class TableLivenessTest {
    static final int PAGE = 4096;

    @TempDir
    Path dir;

    private final TableFixture fixture = new TableFixture();
    private Path path;
    private final List<FinishedTable> versions = new ArrayList<>();
    private final List<List<InternalEntry>> contents = new ArrayList<>();

    /** A file with three versions: a fresh table and two in-place merges. */
    @BeforeEach
    void writeChain() throws IOException {
        long seed = TestSeed.orDefault(42);
        Random rnd = new Random(seed);
        TreeMap<InternalEntry, InternalEntry> model = BlockMergeWriterTest.model();
        long[] seq = {1};
        for (int k = 0; k < 2500; k++) {
            if (rnd.nextInt(3) != 0) {
                InternalEntry e = InternalEntry.put(BlockMergeWriterTest.key(k), seq[0]++, BlockMergeWriterTest.value(rnd));
                model.put(e, e);
            }
        }
        path = dir.resolve("chain.sst");
        TableOptions options = TableOptions.defaults().withBloomReserve(0.4);
        versions.add(fixture.write(path, options, new ArrayList<>(model.keySet())));
        contents.add(new ArrayList<>(model.keySet()));
        for (int round = 0; round < 2; round++) {
            List<InternalEntry> input = BlockMergeWriterTest.newEntries(rnd, 2500, seq);
            input.forEach(e -> model.put(e, e));
            try (PageFile file = fixture.io.open(path, OpenMode.READ_WRITE, IoPurpose.MERGE)) {
                SSTableReader base = SSTableReader.open(file, last().footerOffset(), 1, BlockCache.disabled());
                EntryListIterator in = new EntryListIterator(input);
                in.seekToFirst();
                versions.add(BlockMergeWriter.merge(file, base, options, in, BlockMergeWriter.Retention.keepAll()).table());
            }
            contents.add(new ArrayList<>(model.keySet()));
        }
    }

    private FinishedTable last() {
        return versions.get(versions.size() - 1);
    }

    private List<InternalEntry> readAll(Path p, FinishedTable table) throws IOException {
        try (PageFile file = fixture.io.open(p, OpenMode.READ, IoPurpose.READ)) {
            return BlockMergeWriterTest.scan(SSTableReader.open(file, table.footerOffset(), 1, BlockCache.disabled()));
        }
    }

    private List<SSTableReader> open(PageFile file, List<FinishedTable> tables) throws IOException {
        List<SSTableReader> out = new ArrayList<>();
        for (FinishedTable t : tables) {
            out.add(SSTableReader.open(file, t.footerOffset(), 1, BlockCache.disabled()));
        }
        return out;
    }

    /** A copy of the file with pages {@code pages} overwritten by zeros (what a punched hole reads as). */
    private Path zeroed(String name, Iterable<Integer> pages) throws IOException {
        Path copy = dir.resolve(name);
        Files.copy(path, copy);
        try (FileChannel ch = FileChannel.open(copy, StandardOpenOption.WRITE)) {
            for (int p : pages) {
                ch.write(ByteBuffer.allocate(PAGE), (long) p * PAGE);
            }
        }
        return copy;
    }

    private static List<Integer> pagesOf(List<TableLiveness.PageRun> runs) {
        List<Integer> pages = new ArrayList<>();
        for (TableLiveness.PageRun r : runs) {
            for (int p = r.firstPage(); p < r.firstPage() + r.pageCount(); p++) {
                pages.add(p);
            }
        }
        return pages;
    }

    @Test
    void punchingUnreferencedPagesKeepsTheLiveVersionsIntact() throws IOException {
        for (List<FinishedTable> live : List.of(List.of(last()), List.of(versions.get(1), last()))) {
            List<TableLiveness.PageRun> dead;
            BitSet referenced = new BitSet();
            try (PageFile file = fixture.openForRead(path)) {
                List<SSTableReader> readers = open(file, live);
                dead = TableLiveness.unreferencedPages(readers);
                for (SSTableReader r : readers) {
                    BitSet pages = TableLiveness.referencedPages(r);
                    assertEquals(r.footer().livePages(), pages.cardinality());
                    referenced.or(pages);
                }
            }
            long filePages = Files.size(path) / PAGE;
            assertEquals(filePages, referenced.cardinality() + pagesOf(dead).size(),
                    "every page is either referenced by a live version or reported dead");
            for (int p : pagesOf(dead)) {
                assertFalse(referenced.get(p), "page " + p + " is referenced but reported dead");
            }
            for (int i = 1; i < dead.size(); i++) {
                TableLiveness.PageRun a = dead.get(i - 1);
                assertTrue(a.firstPage() + a.pageCount() < dead.get(i).firstPage(), "runs are maximal and ordered");
            }
            assertFalse(dead.isEmpty(), "earlier versions left dead pages");
            Path punched = zeroed("punched-" + live.size() + ".sst", pagesOf(dead));
            for (FinishedTable t : live) {
                assertEquals(contents.get(versions.indexOf(t)), readAll(punched, t));
            }
        }
    }

    @Test
    void everyReferencedPageIsNeeded() throws IOException {
        BitSet referenced;
        try (PageFile file = fixture.openForRead(path)) {
            referenced = TableLiveness.referencedPages(open(file, List.of(last())).get(0));
        }
        Random rnd = new Random(3);
        int checked = 0;
        for (int p = referenced.nextSetBit(0); p >= 0; p = referenced.nextSetBit(p + 1)) {
            if (rnd.nextInt(8) != 0 && p != (int) (last().footerOffset() / PAGE)) {
                continue;
            }
            Path damaged = zeroed("damaged-" + p + ".sst", List.of(p));
            int page = p;
            assertThrows(CorruptionException.class, () -> readAll(damaged, last()),
                    "zeroing referenced page " + page + " must break the version");
            Files.delete(damaged);
            checked++;
        }
        assertTrue(checked > 10);
    }

    @Test
    void tornAppendLeavesThePreviousVersionReadable() throws IOException {
        FinishedTable previous = versions.get(versions.size() - 2);
        long start = previous.endOffset();
        long end = last().endOffset();
        Random rnd = new Random(TestSeed.orDefault(7));
        for (int i = 0; i < 25; i++) {
            long cut = i == 0 ? start : start + (long) (rnd.nextDouble() * (end - start));
            Path torn = dir.resolve("torn-" + i + ".sst");
            Files.copy(path, torn);
            try (FileChannel ch = FileChannel.open(torn, StandardOpenOption.WRITE)) {
                ch.truncate(cut);
                if (i % 2 == 1) {
                    // A torn write may also leave garbage after the cut (a page partly written).
                    byte[] junk = new byte[(int) Math.min(end - cut, 1 + rnd.nextInt(3 * PAGE))];
                    rnd.nextBytes(junk);
                    ch.write(ByteBuffer.wrap(junk), cut);
                }
            }
            assertEquals(contents.get(versions.size() - 2), readAll(torn, previous), "cut at " + cut);
            long size = Files.size(torn);
            if (size < end) {
                assertThrows(CorruptionException.class, () -> readAll(torn, last()), "cut at " + cut);
            }
            Files.delete(torn);
        }
    }

    @Test
    void damageInAReusedLeafIsReportedByTheNewVersion() throws IOException {
        int reused;
        try (PageFile file = fixture.openForRead(path)) {
            SSTableReader newest = open(file, List.of(last())).get(0);
            reused = LeafIndex.leaves(newest).stream().mapToInt(LeafRef::page)
                    .filter(p -> p < last().footer().firstPage()).findFirst().orElseThrow();
        }
        Path damaged = dir.resolve("flip.sst");
        Files.copy(path, damaged);
        try (FileChannel ch = FileChannel.open(damaged, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            ByteBuffer b = ByteBuffer.allocate(1);
            long at = (long) reused * PAGE + 100;
            ch.read(b, at);
            b.put(0, (byte) (b.get(0) ^ 0x40)).rewind();
            ch.write(b, at);
        }
        CorruptionException e = assertThrows(CorruptionException.class, () -> readAll(damaged, last()));
        assertTrue(e.getMessage().contains("page " + reused), e.getMessage());
    }
}
