package dev.strata.lsm.engine;

import dev.strata.lsm.io.FileChannelStorageIO;
import dev.strata.lsm.io.IoPurpose;
import dev.strata.lsm.io.OpenMode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** {@link ReadAheadFile} answers every read with the file's bytes, in order or not, across chunk edges and past them. */
class ReadAheadFileTest {
    @TempDir
    Path tmp;

    @Test
    void readsAnywhereReturnTheFilesBytes() throws IOException {
        long seed = new Random().nextLong();
        Random rnd = new Random(seed);
        byte[] content = new byte[ReadAheadFile.CHUNK_BYTES * 2 + 3 * 4096];
        rnd.nextBytes(content);
        Path p = tmp.resolve("f");
        Files.write(p, content);
        try (ReadAheadFile f = new ReadAheadFile(new FileChannelStorageIO().open(p, OpenMode.READ, IoPurpose.READ))) {
            for (int i = 0; i < 2000; i++) {
                // Mostly pages in order with jumps back and forth, some odd offsets and sizes, some over a chunk.
                int length = switch (rnd.nextInt(10)) {
                    case 0 -> 1 + rnd.nextInt(ReadAheadFile.CHUNK_BYTES + 8192);
                    case 1 -> 1 + rnd.nextInt(100);
                    default -> 4096;
                };
                int position = rnd.nextInt(content.length - length + 1);
                if (length == 4096 && rnd.nextBoolean()) {
                    position -= position % 4096;
                }
                ByteBuffer dst = ByteBuffer.allocate(length);
                f.readFully(dst, position);
                assertArrayEquals(Arrays.copyOfRange(content, position, position + length), dst.array(),
                        "read of " + length + " at " + position + ", seed " + seed);
            }
            assertThrows(EOFException.class, () -> f.readFully(ByteBuffer.allocate(4096), content.length - 100));
        }
    }
}
