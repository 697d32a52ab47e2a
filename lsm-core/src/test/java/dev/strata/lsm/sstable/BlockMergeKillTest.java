package dev.strata.lsm.sstable;

import dev.strata.lsm.cache.BlockCache;
import dev.strata.lsm.io.IoPurpose;
import dev.strata.lsm.io.OpenMode;
import dev.strata.lsm.io.PageFile;
import dev.strata.lsm.testkit.TestSeed;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Kills (SIGKILL) a process in the middle of in-place merges at random moments: the last
 * version it recorded as committed reads exactly what it must, and a further in-place merge
 * after the crash (appended after whatever torn pages the killed merge left) reads correctly
 * too, the torn pages counting as dead. Replay with {@code -Dstrata.test.seed=N}.
 */
class BlockMergeKillTest {
    @TempDir
    Path dir;

    @Test
    void killedMergesLeaveTheCommittedVersionReadable() throws Exception {
        long seed = TestSeed.orRandom();
        System.out.println("BlockMergeKillTest seed=" + seed + " (replay with -Dstrata.test.seed=" + seed + ")");
        Random rnd = new Random(seed);
        TableFixture fixture = new TableFixture();
        int tornSeen = 0;
        for (int run = 0; run < 3; run++) {
            Path sub = Files.createDirectories(dir.resolve("run" + run));
            String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
            Process p = new ProcessBuilder(java, "-Xmx128m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-cp",
                    System.getProperty("java.class.path"), BlockMergeKillWriter.class.getName(), sub.toString(),
                    Long.toString(seed + run)).redirectError(ProcessBuilder.Redirect.INHERIT).start();
            try (BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.US_ASCII))) {
                int waitRounds = 1 + rnd.nextInt(4);
                for (int i = 0; i <= waitRounds; i++) {
                    String line = out.readLine();
                    assertTrue(line != null, "the writer died before round " + i);
                }
                Thread.sleep(rnd.nextInt(40));
                p.destroyForcibly();
                assertTrue(p.waitFor(30, TimeUnit.SECONDS), "the writer did not die");
            }
            String[] committed = Files.readString(sub.resolve(BlockMergeKillWriter.COMMITTED)).trim().split(" ");
            int round = Integer.parseInt(committed[0]);
            long footer = Long.parseLong(committed[1]);
            Path path = sub.resolve(BlockMergeKillWriter.TABLE);
            long size = Files.size(path);
            tornSeen += size > footer + 4096 ? 1 : 0;
            List<InternalEntry> expected = BlockMergeKillWriter.expected(seed + run, round);
            FinishedTable next;
            try (PageFile file = fixture.io.open(path, OpenMode.READ_WRITE, IoPurpose.MERGE)) {
                SSTableReader reader = SSTableReader.open(file, footer, 1, BlockCache.disabled());
                assertEquals(expected, BlockMergeWriterTest.scan(reader), "run " + run + ", committed round " + round);
                // Merge once more after the crash: it appends after the torn tail.
                EntryListIterator in = new EntryListIterator(BlockMergeKillWriter.input(seed + run, round + 1));
                in.seekToFirst();
                next = BlockMergeWriter.merge(file, reader, BlockMergeKillWriter.OPTIONS, in,
                        BlockMergeWriter.Retention.keepAll()).table();
                SSTableReader after = SSTableReader.open(file, next.footerOffset(), 1, BlockCache.disabled());
                assertEquals(BlockMergeKillWriter.expected(seed + run, round + 1), BlockMergeWriterTest.scan(after));
                long livePages = next.footer().livePages();
                long dead = TableLiveness.unreferencedPages(List.of(after)).stream()
                        .mapToLong(TableLiveness.PageRun::pageCount).sum();
                assertEquals(next.endOffset() / 4096, livePages + dead, "torn pages count as dead");
            }
        }
        System.out.println("runs killed with a torn append in the file: " + tornSeen + " of 3");
    }
}
