package dev.strata.lsm.io;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;

/**
 * An open file as Strata's storage layer sees it: positional reads and writes, appends,
 * durability barriers and space management.
 *
 * <p>Buffers passed to {@link #readFully} and {@link #write} for SSTable pages are direct
 * buffers allocated by {@link StorageIO#allocate}, positioned and sized at multiples of
 * {@link StorageIO#alignment()}, so that an O_DIRECT implementation can use them
 * unchanged. Implementations that do not need alignment accept any buffer.
 *
 * <p>Thread safety: positional reads may run concurrently with each other and with
 * appends. Writers (append, write, truncate) are serialized by the caller.
 *
 * <p>Interrupts: a file is shared by many threads, so an interrupt of one of them must not
 * break the file for the others (a {@link java.nio.channels.FileChannel} closes itself when
 * a thread using it is interrupted). Implementations complete the IO of an interrupted
 * thread as if it had not been interrupted and leave its interrupt status set.
 */
public interface PageFile extends Closeable {

    /**
     * The path this file was opened at; used in error messages.
     *
     * @return the path given when the file was opened
     */
    Path path();

    /**
     * Why this handle moves bytes; every byte through it is counted under this purpose.
     *
     * @return the purpose given when the file was opened
     */
    IoPurpose purpose();

    /**
     * Reads exactly {@code dst.remaining()} bytes starting at {@code position}.
     *
     * @param dst the buffer to fill; its position advances to its limit
     * @param position the file offset of the first byte to read, in bytes
     * @throws java.io.EOFException if the file ends first
     */
    void readFully(ByteBuffer dst, long position) throws IOException;

    /**
     * Writes all remaining bytes of {@code src} at {@code position}.
     *
     * @param src the bytes to write, from its position to its limit; its position advances to its
     *     limit
     *
     * @param position the file offset of the first byte written, in bytes
     * @throws java.io.IOException if the write fails
     */
    void write(ByteBuffer src, long position) throws IOException;

    /**
     * Writes all remaining bytes of {@code src} at {@code position}, possibly after returning,
     * and hands {@code src} to this file: the caller must not touch it again. Returns the
     * cleared buffer the caller fills next, of at least {@code src}'s capacity and alignment —
     * {@code src} itself when the write is done on return (this default, through
     * {@link #write}), or another one while {@code src} is written behind the caller (a
     * provider that writes table outputs on a thread of its own saves the copy {@link #write}
     * needs). A write behind the caller fails at the next call on the file ({@code
     * writeBehind}, {@link #write}, {@link #force}, {@link #close}, ...); as with {@link
     * #write}, nothing is durable before {@link #force}.
     *
     * @param src the bytes to write, from its position to its limit; owned by this file afterwards
     * @param position the file offset of the first byte written, in bytes
     * @return the cleared buffer to fill next ({@code src} itself, or another of at least its
     *     capacity and alignment)
     *
     * @throws java.io.IOException if this write fails, or an earlier write behind the caller failed
     */
    default ByteBuffer writeBehind(ByteBuffer src, long position) throws IOException {
        write(src, position);
        src.clear();
        return src;
    }

    /**
     * Writes all remaining bytes of {@code src} at the current end of the file.
     *
     * @param src the bytes to append, from its position to its limit; its position advances to its
     *     limit
     * @return the offset at which the bytes were written
     * @throws java.io.IOException if the write fails
     */
    long append(ByteBuffer src) throws IOException;

    /**
     * Makes all written bytes durable. With {@code metadata} false only the data and the
     * metadata needed to read it back (fdatasync) are forced.
     *
     * @param metadata true to also force metadata not needed to read the data back (fsync rather
     *     than fdatasync)
     *
     * @throws java.io.IOException if the sync fails; the written bytes may then not be durable
     */
    void force(boolean metadata) throws IOException;

    /**
     * Cuts the file to {@code size} bytes; later appends continue from there.
     *
     * @param size the new length in bytes, at most the current {@link #size()}
     * @throws java.io.IOException if the file cannot be truncated
     */
    void truncate(long size) throws IOException;

    /**
     * The current length of the file in bytes, including appends not yet forced.
     *
     * @return the length in bytes
     * @throws java.io.IOException if the length cannot be read
     */
    long size() throws IOException;

    /**
     * Switches {@link #append} to copying into a shared memory mapping of the file's tail
     * instead of making a system call per append, and returns whether it did. A mapped
     * append is in the kernel's page cache when it returns, so it survives a kill of the
     * process (not a crash of the machine, until {@link #force}). While appends are mapped the
     * file may be longer on disk than {@link #size()}, the tail past it reading as zeros (a
     * reader of a crashed file must treat a zero-filled tail as its end);
     * {@link #close()} cuts it back to {@link #size()}.
     *
     * <p>A copy into a page the file system cannot back (the disk is full) is not an error the
     * copy can report: the JVM raises an {@link InternalError} at some later point of the
     * thread, and the bytes are lost. So a mapped append only copies into space whose blocks
     * are allocated: a caller that must learn about a full disk before it acknowledges
     * anything {@linkplain #preallocate preallocates} ahead of its appends and gets the
     * {@link IOException} there; an implementation reserves space itself (failing the append)
     * for an append that runs past what was preallocated. The default does not map and
     * returns false.
     *
     * @return true when appends are now mapped; false when this file does not map them
     * @throws java.io.IOException if the mapping cannot be set up
     */
    default boolean mapAppends() throws IOException {
        return false;
    }

    /**
     * Reserves disk blocks for {@code [offset, offset + length)}, so that later writes (or
     * mapped appends) there cannot fail for lack of space. Data in the range is unchanged;
     * {@link #size()}, where appends continue, is unchanged; a range past the end of the
     * file may make the file longer on disk, reading as zeros, until {@link #close()}.
     *
     * @param offset the first byte of the range, in bytes from the start of the file
     * @param length the range's length in bytes
     * @throws IOException                   if the space cannot be reserved ("No space left
     *                                       on device")
     * @throws UnsupportedOperationException unless {@link StorageIO#supportsPreallocate()}
     */
    default void preallocate(long offset, long length) throws IOException {
        throw new UnsupportedOperationException("preallocate is not supported for " + path());
    }

    /**
     * Frees the disk blocks of {@code [offset, offset + length)}; reads of the range return
     * zeros afterwards and the file size is unchanged.
     *
     * @param offset the first byte of the range, in bytes from the start of the file
     * @param length the range's length in bytes
     * @throws UnsupportedOperationException unless {@link StorageIO#supportsPunchHole()}
     * @throws java.io.IOException if the file system fails to free the range
     */
    default void punchHole(long offset, long length) throws IOException {
        throw new UnsupportedOperationException("punchHole is not supported for " + path());
    }

    /**
     * Bytes of disk the file occupies (allocated blocks: less than {@link #size()} where
     * holes were punched, more where blocks were preallocated), or -1 when this
     * implementation cannot tell.
     *
     * @return the allocated bytes, or -1 when unknown
     * @throws java.io.IOException if the file's allocation cannot be read
     */
    default long allocatedBytes() throws IOException {
        return -1;
    }
}
