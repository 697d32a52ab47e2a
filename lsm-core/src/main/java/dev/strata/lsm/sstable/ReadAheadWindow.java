package dev.strata.lsm.sstable;

import dev.strata.lsm.io.AlignedBuffers;
import dev.strata.lsm.io.PageFile;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * A window of a table file read in one call, from which a scan in file order takes its leaves
 * (a merge's inputs): one read of {@link #WINDOW_BYTES} serves the dozens of pages or
 * compressed frames it holds, where reading each page alone costs a system call per page
 * (and, for packed frames, which straddle 4 KiB blocks, reads most blocks twice). Reads are
 * whole aligned 4 KiB blocks (usable with O_DIRECT) and go past {@link #limit}, the end of the
 * table version's tree pages, only to the end of its 4 KiB block. Not thread safe: one scan owns it.
 */
final class ReadAheadWindow {
    /** Bytes one refill reads, at most. */
    static final int WINDOW_BYTES = 128 * 1024;
    /** The smallest window: four 4 KiB blocks, room for any page or frame of a 4 KiB-page table. */
    static final int MIN_WINDOW_BYTES = 4 * PageFormat.BLOCK;
    /**
     * The windows of one merge's inputs together, at most (beyond {@code MIN_WINDOW_BYTES}
     * each): a merge of thousands of small tables (a full-level merge of 1 MiB files) must not
     * hold a 128 KiB buffer per input in direct memory.
     */
    static final int MERGE_BUDGET_BYTES = 16 << 20;

    private final PageFile file;
    /** Bytes one refill reads, at most: a multiple of 4 KiB. */
    private final int windowBytes;
    /** Exclusive end of the bytes the window serves: the end of the version's tree pages. */
    private final long limit;
    private ByteBuffer buffer;
    /** File offset of the buffer's first byte, and how many bytes it holds (0: empty). */
    private long start;
    private int filled;

    ReadAheadWindow(PageFile file, long limit, int windowBytes) {
        if (windowBytes < MIN_WINDOW_BYTES || windowBytes % PageFormat.BLOCK != 0) {
            throw new IllegalArgumentException("read-ahead window of " + windowBytes
                    + " bytes: must be a multiple of 4096 and at least " + MIN_WINDOW_BYTES);
        }
        this.file = file;
        this.limit = limit;
        this.windowBytes = windowBytes;
    }

    /**
     * The window for each of {@code inputs} tables read at once: {@link #WINDOW_BYTES}, less
     * when that many windows would exceed {@link #MERGE_BUDGET_BYTES}, never below {@link
     * #MIN_WINDOW_BYTES}.
     */
    static int forInputs(int inputs) {
        long share = MERGE_BUDGET_BYTES / Math.max(1, inputs);
        long blocks = share / PageFormat.BLOCK * PageFormat.BLOCK;
        return (int) Math.max(MIN_WINDOW_BYTES, Math.min(WINDOW_BYTES, blocks));
    }

    /**
     * Copies {@code length} bytes at {@code offset} into {@code dest} from index 0, refilling
     * the window from the 4 KiB block holding {@code offset} when they are not all in it.
     * Returns false, copying nothing, when the range reaches past {@link #limit} or is longer
     * than a window (the caller then reads it alone, and reports it).
     *
     * @throws EOFException if the file ends before the window's bytes do
     */
    boolean read(long offset, int length, byte[] dest) throws IOException {
        long end = offset + length;
        if (offset < 0 || end > limit || length > windowBytes - PageFormat.BLOCK) {
            return false;
        }
        if (offset < start || end > start + filled) {
            refill(offset / PageFormat.BLOCK * PageFormat.BLOCK);
        }
        buffer.position((int) (offset - start));
        buffer.get(dest, 0, length);
        return true;
    }

    private void refill(long from) throws IOException {
        if (buffer == null) {
            buffer = AlignedBuffers.allocate(windowBytes, AlignedBuffers.PAGE_ALIGNMENT);
        }
        long to = Math.min(from + windowBytes, (limit + PageFormat.BLOCK - 1) / PageFormat.BLOCK * PageFormat.BLOCK);
        filled = 0;
        buffer.clear().limit((int) (to - from));
        file.readFully(buffer, from);
        start = from;
        filled = (int) (to - from);
    }
}
