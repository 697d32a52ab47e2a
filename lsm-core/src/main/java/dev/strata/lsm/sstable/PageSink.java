package dev.strata.lsm.sstable;

import dev.strata.lsm.io.AlignedBuffers;
import dev.strata.lsm.io.PageFile;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/**
 * Appends whole pages to a table file through an aligned direct buffer, starting at the
 * first page boundary at or after the file's current size, so a new table version never
 * writes over a page of an earlier one. Every write is a whole number of pages at a
 * page-aligned offset (usable with O_DIRECT). Not thread safe.
 */
final class PageSink {
    private static final int OUTPUT_BUFFER_BYTES = 1 << 20;
    private static final byte[] ZEROS = new byte[TableOptions.MAX_PAGE_SIZE];

    private final PageFile file;
    private final int pageSize;
    /** The buffer pages are gathered in; replaced by the file's at each flush ({@link PageFile#writeBehind}). */
    private ByteBuffer out;
    private final int firstPage;
    private long writePosition;
    private int nextPage;

    PageSink(PageFile file, int pageSize) throws IOException {
        this.file = file;
        this.pageSize = pageSize;
        long start = (file.size() + pageSize - 1) / pageSize;
        if (start > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("file " + file.path() + " is too large to append a table to");
        }
        this.firstPage = (int) start;
        this.nextPage = firstPage;
        this.writePosition = start * pageSize;
        this.out = AlignedBuffers.allocate(Math.max(pageSize, OUTPUT_BUFFER_BYTES), AlignedBuffers.PAGE_ALIGNMENT);
    }

    PageFile file() {
        return file;
    }

    int pageSize() {
        return pageSize;
    }

    /** The first page this sink writes. */
    int firstPage() {
        return firstPage;
    }

    /** The page the next write goes to. */
    int nextPage() {
        return nextPage;
    }

    /** Pages written (or buffered) so far. */
    int pagesWritten() {
        return nextPage - firstPage;
    }

    /** Buffers one page; returns its page number. */
    int writePage(byte[] page) throws IOException {
        if (out.remaining() < pageSize) {
            flush();
        }
        out.put(page, 0, pageSize);
        return nextPage++;
    }

    /**
     * Buffers {@code data[0, length)} as whole pages, zero padded, and returns the CRC32C of
     * the padded extent.
     */
    int writeExtent(byte[] data, int length) throws IOException {
        return writeExtent(data, 0, length);
    }

    /** {@link #writeExtent(byte[], int)} of the {@code length} bytes of {@code data} from {@code offset}. */
    int writeExtent(byte[] data, int offset, int length) throws IOException {
        CRC32C crc = new CRC32C();
        crc.update(data, offset, length);
        int done = 0;
        while (done < length) {
            if (!out.hasRemaining()) {
                flush();
            }
            int n = Math.min(out.remaining(), length - done);
            out.put(data, offset + done, n);
            done += n;
        }
        int pad = (pageSize - length % pageSize) % pageSize;
        crc.update(ZEROS, 0, pad);
        // The buffer holds whole pages, so the padding never crosses its end.
        out.put(ZEROS, 0, pad);
        nextPage += (length + pad) / pageSize;
        return (int) crc.getValue();
    }

    /**
     * Hands the buffered pages to the file (without forcing it), which may write them behind
     * this sink and give it another buffer to fill.
     */
    void flush() throws IOException {
        out.flip();
        int n = out.remaining();
        if (n > 0) {
            out = file.writeBehind(out, writePosition);
            writePosition += n;
        } else {
            out.clear();
        }
    }
}
