package dev.strata.lsm.io;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;

/**
 * The storage IO SPI: everything Strata does to files goes through one of these. The core
 * ships {@link FileChannelStorageIO}; {@code lsm-io-native} provides O_DIRECT, fallocate
 * and punch-hole through JNA. Wrap any implementation in {@link CountingStorageIO} to
 * attribute every byte to an {@link IoPurpose}.
 */
public interface StorageIO {

    /** Opens {@code path} for {@code purpose}. */
    PageFile open(Path path, OpenMode mode, IoPurpose purpose) throws IOException;

    /**
     * Alignment in bytes that buffers, offsets and lengths of page IO must respect
     * (1 when the implementation has no requirement).
     */
    int alignment();

    /**
     * Allocates a zeroed direct buffer of {@code capacity} bytes whose address is a
     * multiple of {@code max(alignment(), 4096)}, suitable for O_DIRECT page IO.
     */
    default ByteBuffer allocate(int capacity) {
        return AlignedBuffers.allocate(capacity, Math.max(alignment(), AlignedBuffers.PAGE_ALIGNMENT));
    }

    /** Whether {@link PageFile#preallocate} works on files of this implementation. */
    boolean supportsPreallocate();

    /** Whether {@link PageFile#punchHole} works on files of this implementation. */
    boolean supportsPunchHole();

    /** Whether {@code path} exists. */
    boolean exists(Path path);

    /** The regular files directly inside {@code dir}, sorted by name. */
    List<Path> list(Path dir) throws IOException;

    /** Creates {@code dir} and missing parents. */
    void createDirectories(Path dir) throws IOException;

    /** Deletes {@code path} if it exists. */
    void delete(Path path) throws IOException;

    /** Renames {@code source} to {@code target} atomically, replacing {@code target}. */
    void rename(Path source, Path target) throws IOException;

    /** Makes the directory's entries (creations, renames, deletions) durable. */
    void syncDirectory(Path dir) throws IOException;
}
