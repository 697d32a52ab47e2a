package dev.strata.lsm.sstable;

import dev.strata.lsm.Compression;
import dev.strata.lsm.ParallelCompression;
import dev.strata.lsm.io.AlignedBuffers;
import dev.strata.lsm.io.PageFile;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.zip.CRC32C;

/**
 * Appends a table version to a file through an aligned direct buffer, starting at the first
 * page boundary at or after the file's current size, so a new table version never writes
 * over a page of an earlier one. Every write is a whole number of 4 KiB blocks at a
 * block-aligned offset (usable with O_DIRECT). Not thread safe.
 *
 * <p>Pages are numbered from the sink's first page. Without a codec each page is written at
 * byte {@code pageNo·P} (formats 1 to 3, uncompressed). With a codec ({@linkplain #packed()
 * packed}, format 3) a page number is <em>logical</em>: each tree page is compressed into a
 * frame (or stored as is when it would not shrink by 1/8), frames and extents are packed
 * back to back, and a page map, written by {@link #writePageMap()} before the footer, gives
 * each logical page's byte offset and stored length. Logical numbers advance exactly as the
 * unpacked layout's page numbers would (one per page, an extent's pages for an extent), so
 * page counts (overflow pages before a leaf, live pages) mean the same in both layouts.
 * Packed, pages are compressed on the writer's thread as they are handed in, or, as
 * {@link ParallelCompression} says, on the shared {@link CompressorPool},
 * {@value #BYTES_PER_TASK} bytes of pages a task, while the writer goes on building the next
 * ones (a writer that finds a task no compressor has started runs it itself); their frames
 * are appended in page order, and all of them before an extent, a frame compressed on the
 * writer's thread, the page map, the footer or a flush, so the stream is exactly the one a
 * single-threaded sink writes. A page number is assigned when the page is handed in.
 */
final class PageSink {
    private static final int OUTPUT_BUFFER_BYTES = 1 << 20;
    private static final byte[] ZEROS = new byte[TableOptions.MAX_PAGE_SIZE];

    private final PageFile file;
    private final int pageSize;
    /** The buffer pages are gathered in; replaced by the file's at each flush ({@link PageFile#writeBehind}). */
    private ByteBuffer out;
    private final int firstPage;
    /**
     * The logical number of the first page this sink writes: {@link #firstPage} but for a
     * packed version merged in place, whose numbers continue after its base's (logical numbers
     * run ahead of physical pages in a packed file, and a number must never name two pages of
     * one file: the block cache is keyed by it).
     */
    private final int logicalFirst;
    /** Packed, merged in place: the page map spans the earlier versions' frames it references. */
    private final boolean spanning;
    /** Where the buffer's first byte goes in the file. */
    private long writePosition;
    private int nextPage;

    /**
     * Page bytes one compressor task encodes: {@value} (16 pages of 4 KiB). Each task costs a
     * queue hand-off and, when the compressor is asleep, a wake-up, which on a virtual machine
     * cost as much as compressing a page or two: with 4 pages a task a lone lz4 build made
     * 0.59-0.64 of the uncompressed build's MB/s, with 16 pages 0.66-0.75 (docs/benchmarks.md,
     * "Parallel compression, auto").
     */
    private static final int BYTES_PER_TASK = 64 * 1024;
    /** Tasks a sink may have handed to the compressors and not appended yet. */
    private static final int TASKS_IN_FLIGHT = 4;
    /** A page handed to the compressors: its frame is appended once {@link #task} completes. */
    private static final class PendingFrame {
        final int pageNo;
        final byte[] page;
        final byte[] frame;
        /** The task encoding this page's batch; null until the batch is handed over. */
        java.util.concurrent.FutureTask<Void> task;
        /** The frame's length, set by the task (read after {@link #task} completes). */
        int length;

        PendingFrame(int pageNo, byte[] page, byte[] frame) {
            this.pageNo = pageNo;
            this.page = page;
            this.frame = frame;
        }
    }

    // Packed layout only (codec != null).
    private final PageCodec codec;
    /**
     * Where pages are compressed: on the writer's thread, on {@link CompressorPool} always, or
     * on the pool while the process leaves a core idle ({@link CompressorPool#spareCore()},
     * decided again at each batch's first page).
     */
    private final ParallelCompression parallel;
    /** Auto: whether the current batch goes to the pool. */
    private boolean offload;
    /** Auto: pages handed in since the first decision (one decision per {@link #pagesPerTask}). */
    private long pagesSinceDecision;
    /**
     * A frame buffer of the largest size a page may take: the frame a page is compressed into
     * on the writer's thread (and the size of the pooled frame buffers of a parallel sink).
     */
    private final byte[] frame;
    private final java.util.ArrayDeque<PendingFrame> pending = new java.util.ArrayDeque<>();
    /** Pages one compressor task encodes ({@link #BYTES_PER_TASK} of them, at least one). */
    private final int pagesPerTask;
    /** The newest pending pages, not yet handed to the compressors (at most {@link #pagesPerTask}). */
    private final java.util.ArrayList<PendingFrame> batch = new java.util.ArrayList<>();
    private final java.util.ArrayDeque<byte[]> freePages = new java.util.ArrayDeque<>();
    private final java.util.ArrayDeque<byte[]> freeFrames = new java.util.ArrayDeque<>();
    private long[] mapOffsets;
    private int[] mapLengths;
    /** Spanning map: pages of earlier versions referenced in place, with their map entries. */
    private int[] reusedPages = new int[0];
    private long[] reusedOffsets = new long[0];
    private int[] reusedLengths = new int[0];
    private int reusedCount;
    private long pagesCompressed;
    private long pagesStored;
    private long logicalPageBytes;
    private long storedPageBytes;

    PageSink(PageFile file, int pageSize) throws IOException {
        this(file, pageSize, null, ParallelCompression.OFF);
    }

    /**
     * A sink that compresses tree pages with {@code codec} and packs them (null: unpacked
     * pages), on the shared compressor pool or on the writer's thread as {@code parallel} says.
     */
    PageSink(PageFile file, int pageSize, PageCodec codec, ParallelCompression parallel) throws IOException {
        this(file, pageSize, codec, parallel, 0, false);
    }

    /**
     * A packed sink for a version merged in place ({@code spanning}): its logical page numbers
     * start at {@code minLogicalFirst} or the first physical page, whichever is higher, and its
     * page map spans the pages of earlier versions {@linkplain #reference referenced}.
     */
    PageSink(PageFile file, int pageSize, PageCodec codec, ParallelCompression parallel, int minLogicalFirst,
             boolean spanning)
            throws IOException {
        if (spanning && codec == null) {
            throw new IllegalArgumentException("only a packed sink has a spanning page map");
        }
        this.file = file;
        this.pageSize = pageSize;
        long start = (file.size() + pageSize - 1) / pageSize;
        if (start > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("file " + file.path() + " is too large to append a table to");
        }
        this.firstPage = (int) start;
        this.logicalFirst = spanning ? Math.max(firstPage, minLogicalFirst) : firstPage;
        this.spanning = spanning;
        this.nextPage = logicalFirst;
        this.writePosition = start * pageSize;
        this.out = AlignedBuffers.allocate(Math.max(pageSize, OUTPUT_BUFFER_BYTES), AlignedBuffers.PAGE_ALIGNMENT);
        this.codec = codec;
        this.parallel = parallel;
        this.pagesPerTask = Math.max(1, BYTES_PER_TASK / pageSize);
        if (codec != null) {
            this.frame = new byte[PageFormat.FRAME_HEADER_SIZE + Math.max(pageSize, codec.maxCompressedLength(pageSize))];
            this.mapOffsets = new long[256];
            this.mapLengths = new int[256];
        } else {
            this.frame = null;
        }
    }

    PageFile file() {
        return file;
    }

    int pageSize() {
        return pageSize;
    }

    /** Whether pages are compressed and packed (a page map is written). */
    boolean packed() {
        return codec != null;
    }

    /** The codec pages are compressed with; {@link Compression#NONE} for an unpacked sink. */
    Compression compression() {
        return codec == null ? Compression.NONE : codec.compression();
    }

    /** The first (physical) page this sink writes. */
    int firstPage() {
        return firstPage;
    }

    /** The logical number of the first page this sink writes (its first physical page unless spanning). */
    int logicalFirstPage() {
        return logicalFirst;
    }

    /** Whether the page map spans referenced pages of earlier versions (a packed version merged in place). */
    boolean spanning() {
        return spanning;
    }

    /**
     * Spanning map: records that the version references logical page {@code pageNo} of an
     * earlier version, stored at {@code offset} with {@code length} bytes (0 and 0 for a
     * continuation page of an extent). Its bytes are neither read nor written.
     */
    void reference(int pageNo, long offset, int length) {
        if (!spanning || pageNo >= logicalFirst || pageNo < 0) {
            throw new IllegalArgumentException("cannot reference page " + pageNo + " of an earlier version (first "
                    + "new page " + logicalFirst + (spanning ? "" : ", not a spanning map") + ")");
        }
        if (reusedCount == reusedPages.length) {
            int n = Math.max(64, reusedCount * 2);
            reusedPages = Arrays.copyOf(reusedPages, n);
            reusedOffsets = Arrays.copyOf(reusedOffsets, n);
            reusedLengths = Arrays.copyOf(reusedLengths, n);
        }
        reusedPages[reusedCount] = pageNo;
        reusedOffsets[reusedCount] = offset;
        reusedLengths[reusedCount] = length;
        reusedCount++;
    }

    /** The page the next write goes to. */
    int nextPage() {
        return nextPage;
    }

    /** Pages written (or buffered) so far (logical pages when packed). */
    int pagesWritten() {
        return nextPage - logicalFirst;
    }

    /** Bytes written (or buffered) so far, from the first page (with an estimate for frames still being compressed). */
    long bytesWritten() {
        long pendingBytes = 0;
        if (!pending.isEmpty()) {
            // Frames still being compressed: estimated at the stored share of the pages so far.
            long appended = logicalPageBytes - (long) pending.size() * pageSize;
            double share = appended <= 0 ? 1.0 : (double) storedPageBytes / appended;
            pendingBytes = (long) (pending.size() * pageSize * share);
        }
        return writePosition + out.position() - (long) firstPage * pageSize + pendingBytes;
    }

    /** Tree pages compressed (packed sink). */
    long pagesCompressed() {
        return pagesCompressed;
    }

    /** Tree pages stored as they are because they did not shrink by 1/8 (packed sink). */
    long pagesStored() {
        return pagesStored;
    }

    /** Buffers one page; returns its page number. */
    int writePage(byte[] page) throws IOException {
        if (codec != null) {
            return writeFrame(page);
        }
        if (out.remaining() < pageSize) {
            flushBuffer();
        }
        out.put(page, 0, pageSize);
        return nextPage++;
    }

    /**
     * Packed: compresses {@code page} into a frame, or stores it as is when the compressed
     * form is larger than 7/8 of the page, and appends the frame.
     */
    private int writeFrame(byte[] page) throws IOException {
        if (parallel == ParallelCompression.AUTO && pagesSinceDecision++ % pagesPerTask == 0) {
            offload = CompressorPool.spareCore(); // once a task's worth of pages, either way
        }
        if (parallel == ParallelCompression.OFF || parallel == ParallelCompression.AUTO && !offload) {
            drain(); // frames handed to the pool before this page go first
            int pageNo = nextPage++;
            logicalPageBytes += pageSize;
            appendFrame(pageNo, frame, encodeFrame(codec, pageSize, page, frame, pageNo));
            return pageNo;
        }
        int pageNo = nextPage++;
        // The caller reuses its page: compress a copy, off this thread (see CompressorPool).
        byte[] copy = freePages.isEmpty() ? new byte[pageSize] : freePages.pop();
        System.arraycopy(page, 0, copy, 0, pageSize);
        byte[] out = freeFrames.isEmpty() ? new byte[frame.length] : freeFrames.pop();
        PendingFrame p = new PendingFrame(pageNo, copy, out);
        pending.addLast(p);
        batch.add(p);
        logicalPageBytes += pageSize;
        if (batch.size() == pagesPerTask) {
            submitBatch();
        }
        if (pending.size() >= pagesPerTask * TASKS_IN_FLIGHT) {
            drainOne();
        }
        return pageNo;
    }

    /** Hands the pages of {@link #batch} to the compressors as one task. */
    private void submitBatch() {
        PendingFrame[] frames = batch.toArray(new PendingFrame[0]);
        batch.clear();
        PageCodec c = codec;
        int size = pageSize;
        java.util.concurrent.FutureTask<Void> task = new java.util.concurrent.FutureTask<>(() -> {
            for (PendingFrame f : frames) {
                f.length = encodeFrame(c, size, f.page, f.frame, f.pageNo);
            }
            return null;
        });
        for (PendingFrame f : frames) {
            f.task = task;
        }
        CompressorPool.EXECUTOR.execute(task);
    }

    /**
     * Encodes logical page {@code pageNo} into {@code frame}: compressed, or as it is when the
     * compressed form is larger than 7/8 of the page; returns the frame's length. Thread safe
     * (codecs are); runs on a compressor thread.
     */
    private static int encodeFrame(PageCodec codec, int pageSize, byte[] page, byte[] frame, int pageNo) {
        int payload = codec.compress(page, 0, pageSize, frame, PageFormat.FRAME_HEADER_SIZE);
        int codecId = codec.compression().id();
        if (payload > pageSize - pageSize / 8) {
            System.arraycopy(page, 0, frame, PageFormat.FRAME_HEADER_SIZE, pageSize);
            payload = pageSize;
            codecId = Compression.NONE.id();
        }
        frame[PageFormat.FRAME_OFF_CODEC] = (byte) codecId;
        frame[5] = 0;
        PageFormat.putShort(frame, 6, 0);
        PageFormat.putInt(frame, PageFormat.FRAME_OFF_PAGE, pageNo);
        PageFormat.putInt(frame, PageFormat.FRAME_OFF_LENGTH, payload);
        int length = PageFormat.FRAME_HEADER_SIZE + payload;
        PageFormat.putInt(frame, PageFormat.OFF_CRC, PageFormat.pageChecksum(frame, length));
        return length;
    }

    /** Appends the oldest pending frame, once compressed, to the stream (in page order). */
    private void drainOne() throws IOException {
        if (pending.peekFirst().task == null) {
            submitBatch(); // the oldest page is still in the batch being gathered
        }
        PendingFrame p = pending.pollFirst();
        int length;
        try {
            if (!p.task.isDone()) {
                // Not compressed yet: if no compressor has started its batch (they are all busy,
                // or still waking up), encode it here rather than wait; a task already started
                // or done is not run again (FutureTask runs once), and its waiter just waits.
                p.task.run();
            }
            p.task.get();
            length = p.length;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            pending.clear();
            batch.clear();
            throw new java.io.InterruptedIOException("interrupted while compressing page " + p.pageNo + " of "
                    + file.path());
        } catch (java.util.concurrent.ExecutionException e) {
            pending.clear();
            batch.clear();
            Throwable cause = e.getCause();
            if (cause instanceof RuntimeException r) {
                throw r;
            }
            if (cause instanceof Error err) {
                throw err;
            }
            throw new IOException("compressing page " + p.pageNo + " of " + file.path() + " failed", cause);
        }
        appendFrame(p.pageNo, p.frame, length);
        freePages.push(p.page);
        freeFrames.push(p.frame);
    }

    /** Appends the encoded frame of logical page {@code pageNo} to the stream and maps the page to it. */
    private void appendFrame(int pageNo, byte[] encoded, int length) throws IOException {
        if (encoded[PageFormat.FRAME_OFF_CODEC] == Compression.NONE.id()) {
            pagesStored++;
        } else {
            pagesCompressed++;
        }
        mapEntry(pageNo, position(), length);
        put(encoded, 0, length);
        storedPageBytes += length;
    }

    /** Appends every pending frame: before anything whose position depends on them. */
    private void drain() throws IOException {
        while (!pending.isEmpty()) {
            drainOne();
        }
    }

    /**
     * Buffers {@code data[0, length)} as whole pages, zero padded, and returns the CRC32C of
     * the padded extent.
     */
    int writeExtent(byte[] data, int length) throws IOException {
        return writeExtent(data, 0, length);
    }

    /**
     * {@link #writeExtent(byte[], int)} of the {@code length} bytes of {@code data} from
     * {@code offset}. Packed, the extent is not padded (the CRC covers its bytes only) and
     * takes the logical pages the padded extent would.
     */
    int writeExtent(byte[] data, int offset, int length) throws IOException {
        CRC32C crc = new CRC32C();
        crc.update(data, offset, length);
        int pages = (int) (((long) length + pageSize - 1) / pageSize);
        if (codec != null) {
            drain();
            mapEntry(nextPage, position(), length);
            if (pages > 1) {
                // The continuation pages map to 0 and 0: the arrays must reach the last of them
                // (its entry written, those between are zero), or the page map reads past them.
                mapEntry(nextPage + pages - 1, 0, 0);
            }
            put(data, offset, length);
            nextPage += pages;
            return (int) crc.getValue();
        }
        put(data, offset, length);
        int pad = (pageSize - length % pageSize) % pageSize;
        crc.update(ZEROS, 0, pad);
        // The buffer holds whole pages, so the padding never crosses its end.
        out.put(ZEROS, 0, pad);
        nextPage += pages;
        return (int) crc.getValue();
    }

    /**
     * Appends an extent that no page number names (the range-tombstone extent: the footer
     * gives its byte offset and length) and returns its byte offset. Unpacked, it starts on a
     * page boundary and is padded to whole pages, which count as written pages; packed, its
     * bytes follow the stream's, unpadded and unmapped.
     */
    long writeUnmappedExtent(byte[] data) throws IOException {
        drain();
        long offset = position();
        if (codec == null) {
            writeExtent(data, data.length);
        } else {
            put(data, 0, data.length);
        }
        return offset;
    }

    /**
     * Where a page map and its checksum were written.
     *
     * @param referencedBytes the stored bytes of every page the map names (frames and extents)
     */
    record PageMap(long offset, int length, int crc, long referencedBytes) {
    }

    /**
     * Packed: appends the page map (one {@value PageFormat#MAP_ENTRY_SIZE}-byte entry per
     * logical page from the first one to the last one written: u64 byte offset, u32 stored
     * length; 0 and 0 for the second and later pages of an extent).
     */
    PageMap writePageMap() throws IOException {
        drain();
        int own = nextPage - logicalFirst;
        int base = logicalFirst;
        for (int i = 0; i < reusedCount; i++) {
            base = Math.min(base, reusedPages[i]);
        }
        int header = spanning ? PageFormat.MAP_HEADER_SIZE : 0;
        int n = nextPage - base;
        byte[] map = new byte[header + n * PageFormat.MAP_ENTRY_SIZE];
        long referenced = 0;
        if (spanning) {
            PageFormat.putInt(map, 0, base);
            // A spanning map with no page is an empty version, which is written unpacked.
            for (int i = 0; i < reusedCount; i++) {
                int at = header + (reusedPages[i] - base) * PageFormat.MAP_ENTRY_SIZE;
                PageFormat.putLong(map, at, reusedOffsets[i]);
                PageFormat.putInt(map, at + 8, reusedLengths[i]);
                referenced += reusedLengths[i];
            }
        }
        for (int i = 0; i < own; i++) {
            int at = header + (logicalFirst - base + i) * PageFormat.MAP_ENTRY_SIZE;
            PageFormat.putLong(map, at, mapOffsets[i]);
            PageFormat.putInt(map, at + 8, mapLengths[i]);
            referenced += mapLengths[i];
        }
        if (n == 0) {
            return new PageMap(0, 0, 0, 0);
        }
        long offset = position();
        put(map, 0, map.length);
        CRC32C crc = new CRC32C();
        crc.update(map, 0, map.length);
        return new PageMap(offset, map.length, (int) crc.getValue(), referenced);
    }

    /**
     * Packed: pads the stream with zeros to the next page boundary, where the footer goes;
     * returns that byte offset. Unpacked: the next page's offset.
     */
    long alignForFooter() throws IOException {
        drain();
        long pos = position();
        int pad = (int) ((pageSize - pos % pageSize) % pageSize);
        put(ZEROS, 0, pad);
        return position();
    }

    /** Writes the footer page at a page boundary ({@link #alignForFooter()}); returns its physical page number. */
    int writeFooter(byte[] page) throws IOException {
        long pos = alignForFooter();
        put(page, 0, pageSize);
        if (codec == null) {
            nextPage++;
        }
        return (int) (pos / pageSize);
    }

    /** Logical bytes of the tree pages compressed or stored so far (packed). */
    long logicalPageBytes() {
        return logicalPageBytes;
    }

    /** Frame bytes of those pages (packed). */
    long storedPageBytes() {
        return storedPageBytes;
    }

    private long position() {
        return writePosition + out.position();
    }

    private void mapEntry(int pageNo, long offset, int length) {
        int i = pageNo - logicalFirst;
        if (i >= mapOffsets.length) {
            int n = Math.max(i + 1, mapOffsets.length * 2);
            mapOffsets = Arrays.copyOf(mapOffsets, n);
            mapLengths = Arrays.copyOf(mapLengths, n);
        }
        mapOffsets[i] = offset;
        mapLengths[i] = length;
    }

    /** Appends bytes to the stream, handing the buffer to the file each time it is full. */
    private void put(byte[] data, int offset, int length) throws IOException {
        int done = 0;
        while (done < length) {
            if (!out.hasRemaining()) {
                flushBuffer();
            }
            int n = Math.min(out.remaining(), length - done);
            out.put(data, offset + done, n);
            done += n;
        }
    }

    /**
     * Hands the buffered pages to the file (without forcing it), which may write them behind
     * this sink and give it another buffer to fill. The buffered bytes must end at a 4 KiB
     * boundary: a full buffer, or a stream that ends with a page (the footer).
     */
    void flush() throws IOException {
        drain();
        flushBuffer();
    }

    /** {@link #flush()} of what the buffer holds, without appending pending frames first. */
    private void flushBuffer() throws IOException {
        out.flip();
        int n = out.remaining();
        if (n % PageFormat.BLOCK != 0) {
            throw new IllegalStateException("internal error: flushing " + n + " bytes, not whole 4 KiB blocks, to "
                    + file.path());
        }
        if (n > 0) {
            out = file.writeBehind(out, writePosition);
            writePosition += n;
        } else {
            out.clear();
        }
    }
}
