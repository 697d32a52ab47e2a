package dev.strata.lsm.sstable;

import java.util.Arrays;

/**
 * Builds one slotted page (leaf or interior) in a reusable heap buffer: cells are appended
 * upward from the header, their offsets downward from the end of the page, so a page is
 * laid out in one pass without knowing its final cell count. With a restart interval N (a
 * prefix-compressed leaf, leaf encoding 1), only every N-th cell gets a slot and the page ends
 * with N as a u16 (docs/format.md). Not thread safe.
 */
final class SlottedPageBuilder {
    private final int pageSize;
    private final byte[] page;
    /** 0: a slot per cell; else the restart interval. */
    private final int restartInterval;
    /** Where the slot array ends: the page end, or before the restart interval's u16. */
    private final int slotBase;
    private int dataEnd = PageFormat.HEADER_SIZE;
    private int count;
    private int slots;
    private int cellStart = -1;

    SlottedPageBuilder(int pageSize) {
        this(pageSize, 0);
    }

    /** A page with a slot for every {@code restartInterval}-th cell only (0: for every cell). */
    SlottedPageBuilder(int pageSize, int restartInterval) {
        this.pageSize = pageSize;
        this.page = new byte[pageSize];
        this.restartInterval = restartInterval;
        this.slotBase = restartInterval == 0 ? pageSize : pageSize - PageFormat.RESTART_TAIL_SIZE;
    }

    int count() {
        return count;
    }

    boolean isEmpty() {
        return count == 0;
    }

    /** Whether the next cell gets a slot (always, without a restart interval). */
    boolean nextIsRestart() {
        return restartInterval == 0 || count % restartInterval == 0;
    }

    /** Whether a cell of {@code cellLength} bytes (plus its slot, if it gets one) still fits. */
    boolean fits(int cellLength) {
        int slotsAfter = slots + (nextIsRestart() ? 1 : 0);
        return dataEnd + cellLength + slotsAfter * PageFormat.SLOT_SIZE <= slotBase;
    }

    /** Largest cell that fits in an empty page. */
    static int maxCellSize(int pageSize) {
        return pageSize - PageFormat.HEADER_SIZE - PageFormat.SLOT_SIZE;
    }

    /** Offset of the first byte after the last cell. */
    int dataEnd() {
        return dataEnd;
    }

    /** Bytes the cells, slots and restart tail take. */
    int bytesUsed() {
        return dataEnd - PageFormat.HEADER_SIZE + slots * PageFormat.SLOT_SIZE + (pageSize - slotBase);
    }

    /** Offset of the cell in slot {@code i} (cell i, or restart i with a restart interval). */
    int cellOffset(int i) {
        return PageFormat.getShort(page, slotBase - PageFormat.SLOT_SIZE * (i + 1));
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

    void putVarlong(long v) {
        while ((v & ~0x7FL) != 0) {
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

    /** Ends the cell begun by {@link #beginCell()}, writing its slot if it gets one. */
    void endCell() {
        if (nextIsRestart()) {
            slots++;
            PageFormat.putShort(page, slotBase - PageFormat.SLOT_SIZE * slots, cellStart);
        }
        count++;
        cellStart = -1;
    }

    /**
     * Writes the header, zeroes the free space and computes the checksum. The returned
     * array is this builder's buffer: copy it out before {@link #reset()}.
     */
    byte[] finish(byte type, int level, int formatVersion) {
        Arrays.fill(page, dataEnd, slotBase - PageFormat.SLOT_SIZE * slots, (byte) 0);
        if (restartInterval != 0) {
            PageFormat.putShort(page, slotBase, restartInterval);
        }
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
        slots = 0;
        cellStart = -1;
    }
}
