package dev.strata.lsm.io;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

class MappedAppendTest {

    private static long mappingsOf(Path file) throws IOException {
        String name = file.toRealPath().toString();
        try (var lines = Files.lines(Path.of("/proc/self/maps"))) {
            return lines.filter(l -> l.endsWith(name)).count();
        }
    }

    @Test
    void appendsLandInTheFileAndOldWindowsAreUnmapped(@TempDir Path dir) throws IOException {
        assumeTrue(Files.exists(Path.of("/proc/self/maps")), "needs /proc/self/maps");
        Path path = dir.resolve("log");
        Random random = new Random(5);
        byte[] all = new byte[5 * MappedTail.WINDOW_BYTES / 2];
        random.nextBytes(all);
        try (PageFile file = new FileChannelStorageIO().open(path, OpenMode.CREATE_NEW, IoPurpose.WAL)) {
            assertTrue(file.mapAppends());
            int at = 0;
            while (at < all.length) {
                int n = Math.min(all.length - at, 1 + random.nextInt(100_000));
                assertEquals(at, file.append(ByteBuffer.wrap(all, at, n)));
                at += n;
                assertEquals(at, file.size());
                assertTrue(mappingsOf(path) <= 1, "windows left behind are unmapped: " + mappingsOf(path));
            }
            ByteBuffer back = ByteBuffer.allocate(all.length);
            file.readFully(back, 0);
            assertArrayEquals(all, back.array(), "reads through the channel see mapped appends");
            assertTrue(Files.size(path) > all.length, "the mapping runs ahead of the appends");
            file.force(false);
        }
        assertEquals(0, mappingsOf(path), "close unmaps");
        assertEquals(all.length, Files.size(path), "close cuts the file to what was appended");
        assertArrayEquals(all, Files.readAllBytes(path));
    }
}
