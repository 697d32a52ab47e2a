package dev.strata.lsm.io.direct;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** statx's block counts agree with du's, for written, sparse, missing files and a tree. */
class AllocatedSpaceTest {

    /** {@code du -B1} of one path (its first field), or -1 if du cannot run. */
    private static long du(Path path) throws IOException, InterruptedException {
        Process p = new ProcessBuilder("du", "-s", "-B1", path.toString()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
        return p.waitFor() == 0 ? Long.parseLong(out.split("\\s+")[0]) : -1;
    }

    private static Path written(Path file, int bytes) throws IOException {
        byte[] data = new byte[bytes];
        new Random(bytes).nextBytes(data);
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
            ch.write(java.nio.ByteBuffer.wrap(data));
            ch.force(true); // blocks allocated now, not at write-back
        }
        return file;
    }

    @Test
    void aWrittenFileTakesWhatDuSays(@TempDir Path dir) throws Exception {
        assumeTrue(AllocatedSpace.available(), "statx not bound here");
        Path file = written(dir.resolve("a.sst"), (1 << 20) + 100);
        long allocated = AllocatedSpace.ofFile(file);
        assertTrue(allocated >= (1 << 20) + 100, "allocated " + allocated);
        assertEquals(du(file), allocated);
    }

    @Test
    void aSparseFileTakesOnlyItsWrittenBlocks(@TempDir Path dir) throws Exception {
        assumeTrue(AllocatedSpace.available(), "statx not bound here");
        Path file = dir.resolve("sparse");
        try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
            raf.setLength(64L << 20);
            raf.seek(32L << 20);
            raf.write(new byte[4096]);
            raf.getFD().sync();
        }
        long allocated = AllocatedSpace.ofFile(file);
        assertTrue(allocated < (1 << 20), "a 64 MiB sparse file with one written block: " + allocated);
        assertEquals(du(file), allocated);
    }

    @Test
    void aMissingFileIsMinusOne(@TempDir Path dir) {
        assumeTrue(AllocatedSpace.available(), "statx not bound here");
        assertEquals(-1, AllocatedSpace.ofFile(dir.resolve("gone")));
    }

    @Test
    void aTreeIsTheSumOfItsFilesAndDuCountsTheDirectoriesBeside(@TempDir Path dir) throws Exception {
        assumeTrue(AllocatedSpace.available(), "statx not bound here");
        Path sub = Files.createDirectories(dir.resolve("families").resolve("1"));
        long a = AllocatedSpace.ofFile(written(dir.resolve("x.sst"), 300_000));
        long b = AllocatedSpace.ofFile(written(sub.resolve("y.sst"), 70_000));
        assertEquals(a + b, AllocatedSpace.ofTree(dir));
        long directories = du(dir) - du(dir.resolve("x.sst")) - du(sub.resolve("y.sst"));
        assertTrue(directories >= 0 && directories <= 3 * 4096 * 4, "du's directory blocks: " + directories);
    }
}
