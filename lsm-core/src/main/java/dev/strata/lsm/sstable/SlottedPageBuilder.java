package dev.strata.lsm.sstable;

import java.util.Arrays;

/**
 * Builds one slotted page (leaf or interior) in a reusable heap buffer: cells are appended
 * upward from the header, their offsets downward from the end of the page, so a page is
 * laid out in one pass without knowing its final cell count. Not thread safe.
 */
final class SlottedPageBuilder {
    private final int pageSize;
    private final byte[] page;
    private int dataEnd = PageFormat.HEADER_SIZE;
    private int count;
    private int cellStart = -1;

    SlottedPageBuilder(int pageSize) {
        this.pageSize = pageSize;
        this.page = new byte[pageSize];
    }

    int count() {
        return count;
    }

    boolean isEmpty() {
        return count == 0;
    }

    /** Whether a cell of {@code cellLength} bytes (plus its slot) still fits. */
    boolean fits(int cellLength) {
        return dataEnd + cellLength + (count + 1) * PageFormat.SLOT_SIZE <= pageSize;
    }

    /** Largest cell that fits in an empty page. */
    static int maxCellSize(int pageSize) {
        return pageSize - PageFormat.HEADER_SIZE - PageFormat.SLOT_SIZE;
    }

    /** Offset of the first byte after the last cell. */
    int dataEnd() {
        return dataEnd;
    }

    /** Offset of cell {@code i} already added. */
    int cellOffset(int i) {
        return PageFormat.getShort(page, pageSize - PageFormat.SLOT_SIZE * (i + 1));
    }

    byte[] bytes() {
        return page;
    }

    /** Starts a cell at the current end of data; the caller has checked {@link #fits}. */
    void beginCell() {
        cellStart = dataEnd;
    }

    void putByte(int v) {
        page[dataEnd++] = (byte) v;
    }

    void putVarint(int v) {
        while ((v & ~0x7F) != 0) {
            page[dataEnd++] = (byte) ((v & 0x7F) | 0x80);
            v >>>= 7;
        }
        page[dataEnd++] = (byte) v;
    }

    void putBytes(byte[] src, int off, int len) {
        System.arraycopy(src, off, page, dataEnd, len);
        dataEnd += len;
    }

    void putInt(int v) {
        PageFormat.putInt(page, dataEnd, v);
        dataEnd += 4;
    }

    void putLong(long v) {
        PageFormat.putLong(page, dataEnd, v);
        dataEnd += 8;
    }

    /** Ends the cell begun by {@link #beginCell()} by writing its slot. */
    void endCell() {
        count++;
        PageFormat.putShort(page, pageSize - PageFormat.SLOT_SIZE * count, cellStart);
        cellStart = -1;
    }

    /**
     * Writes the header, zeroes the free space and computes the checksum. The returned
     * array is this builder's buffer: copy it out before {@link #reset()}.
     */
    byte[] finish(byte type, int level, int formatVersion) {
        Arrays.fill(page, dataEnd, pageSize - PageFormat.SLOT_SIZE * count, (byte) 0);
        page[PageFormat.OFF_TYPE] = type;
        page[PageFormat.OFF_LEVEL] = (byte) level;
        PageFormat.putShort(page, PageFormat.OFF_VERSION, formatVersion);
        PageFormat.putInt(page, PageFormat.OFF_COUNT, count);
        PageFormat.putInt(page, PageFormat.OFF_DATA_END, dataEnd);
        PageFormat.putInt(page, PageFormat.OFF_CRC, PageFormat.pageChecksum(page, pageSize));
        return page;
    }

    void reset() {
        dataEnd = PageFormat.HEADER_SIZE;
        count = 0;
        cellStart = -1;
    }
}
