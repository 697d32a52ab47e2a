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

    /**
     * Opens {@code path} for {@code purpose}.
     *
     * @param path the file to open
     * @param mode read-only or read-write, and whether the file must exist, may be created or must
     *     be new
     *
     * @param purpose why the handle moves bytes; its IO is counted under it
     * @return a new open handle, which the caller closes
     * @throws java.io.IOException if the file cannot be opened (missing, or already there for
     *     {@link OpenMode#CREATE_NEW})
     */
    PageFile open(Path path, OpenMode mode, IoPurpose purpose) throws IOException;

    /**
     * Alignment in bytes that buffers, offsets and lengths of page IO must respect
     * (1 when the implementation has no requirement).
     *
     * @return the required alignment in bytes, a power of two; 1 for none
     */
    int alignment();

    /**
     * Allocates a zeroed direct buffer of {@code capacity} bytes whose address is a
     * multiple of {@code max(alignment(), 4096)}, suitable for O_DIRECT page IO.
     *
     * @param capacity the buffer's size in bytes, a multiple of the alignment for page IO
     * @return a new zeroed, aligned direct buffer of {@code capacity} bytes
     */
    default ByteBuffer allocate(int capacity) {
        return AlignedBuffers.allocate(capacity, Math.max(alignment(), AlignedBuffers.PAGE_ALIGNMENT));
    }

    /**
     * Whether {@link PageFile#preallocate} works on files of this implementation.
     *
     * @return true when {@link PageFile#preallocate} reserves space; false when it throws {@link
     *     UnsupportedOperationException}
     */
    boolean supportsPreallocate();

    /**
     * Whether {@link PageFile#punchHole} works on files of this implementation.
     *
     * @return true when {@link PageFile#punchHole} frees blocks; false when it throws {@link
     *     UnsupportedOperationException}
     */
    boolean supportsPunchHole();

    /**
     * Whether {@code path} exists.
     *
     * @param path the file or directory to look for
     * @return true when something exists at {@code path}
     */
    boolean exists(Path path);

    /**
     * The regular files directly inside {@code dir}, sorted by name.
     *
     * @param dir the directory to list
     * @return the paths of its regular files (not subdirectories), sorted by file name
     * @throws java.io.IOException if the directory cannot be read
     */
    List<Path> list(Path dir) throws IOException;

    /**
     * Creates {@code dir} and missing parents.
     *
     * @param dir the directory to create; nothing happens when it exists
     * @throws java.io.IOException if a directory cannot be created
     */
    void createDirectories(Path dir) throws IOException;

    /**
     * Deletes {@code path} if it exists.
     *
     * @param path the file to delete; a missing file is not an error
     * @throws java.io.IOException if the file exists and cannot be deleted
     */
    void delete(Path path) throws IOException;

    /**
     * Renames {@code source} to {@code target} atomically, replacing {@code target}.
     *
     * @param source the file to rename
     * @param target its new path, in the same directory or file system
     * @throws java.io.IOException if the rename fails; {@code source} is then unchanged
     */
    void rename(Path source, Path target) throws IOException;

    /**
     * Makes the directory's entries (creations, renames, deletions) durable.
     *
     * @param dir the directory whose entries to make durable
     * @throws java.io.IOException if the directory cannot be opened or synced
     */
    void syncDirectory(Path dir) throws IOException;
}
