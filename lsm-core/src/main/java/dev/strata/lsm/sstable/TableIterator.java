package dev.strata.lsm.sstable;

import java.io.IOException;
import java.util.NoSuchElementException;

/**
 * A cursor over one table's internal entries in internal-key order, both ways. It keeps the
 * path from the root to the current leaf (one page per level) and moves to the next or the
 * previous leaf through that path, so it needs no sibling links. Start with
 * {@link #seekToFirst()}, {@link #seekToLast()} or a seek; then {@link #valid()}, the
 * accessors, {@link #next()} and {@link #prev()}. Not thread safe.
 */
public final class TableIterator implements InternalIterator {
    private final SSTableReader reader;
    private final int height;
    /** pages[0] is the current leaf, pages[height - 1] the root. */
    private final byte[][] pages;
    private final int[] pageNumbers;
    private final int[] positions;
    private boolean valid;
    /** Walks the current leaf's cells (pages[0]); its position is the iterator's. */
    private final LeafDecoder leafCells;
    /** The user key at the current position, copied out once; merges compare it many times. */
    private byte[] currentKey;
    /** The current overflow value, read once per position. */
    private byte[] overflowValue;
    /** Holds pages[0]: the leaf is copied here, from the cache or the file, so moving on allocates nothing. */
    private byte[] leaf;

    TableIterator(SSTableReader reader) {
        this.reader = reader;
        this.height = reader.footer().height();
        this.pages = new byte[Math.max(height, 1)][];
        this.pageNumbers = new int[Math.max(height, 1)];
        this.positions = new int[Math.max(height, 1)];
        this.leafCells = reader.newLeafDecoder();
    }

    /** Positions at the first entry of the table. */
    @Override
    public void seekToFirst() throws IOException {
        seek(new byte[0], InternalKeys.MAX_SEQNO);
    }

    /** Positions at the last entry of the table. */
    @Override
    public void seekToLast() throws IOException {
        moved();
        valid = false;
        if (height == 0) {
            return;
        }
        int pageNo = reader.footer().rootPage();
        for (int level = height - 1; level >= 1; level--) {
            InteriorPage page = reader.interiorPage(pageNo, level);
            int i = page.count() - 1;
            pages[level] = page.bytes();
            pageNumbers[level] = pageNo;
            positions[level] = i;
            pageNo = page.child(i);
        }
        pages[0] = loadLeaf(pageNo);
        pageNumbers[0] = pageNo;
        try {
            leafCells.seekToLast();
        } catch (RuntimeException e) {
            throw lost(e);
        }
        valid = true;
    }

    /** Positions at the first entry whose internal key is >= (userKey, seqno). */
    @Override
    public void seek(byte[] userKey, long seqno) throws IOException {
        long global = reader.footer().globalSeqno();
        seekCells(userKey, global != Footer.NO_GLOBAL_SEQNO ? InternalKeys.MAX_SEQNO : seqno);
        // Under a global sequence number the seek went to userKey's one entry (a table with one
        // holds one per key) whatever its cell's number: it is passed when newer than seqno.
        if (valid && seqno < global && java.util.Arrays.equals(key(), userKey)) {
            next();
        }
    }

    private void seekCells(byte[] userKey, long seqno) throws IOException {
        moved();
        valid = false;
        if (height == 0) {
            return;
        }
        int pageNo = reader.descend(userKey, seqno, pages, pageNumbers, positions);
        if (pageNo < 0) {
            // Past every key of the table (a search runs off the end only at the root).
            return;
        }
        pages[0] = loadLeaf(pageNo);
        pageNumbers[0] = pageNo;
        int i;
        try {
            i = leafCells.search(userKey, seqno);
        } catch (RuntimeException e) {
            throw lost(e);
        }
        valid = true;
        if (i == leafCells.count()) {
            nextLeaf();
        }
    }

    /** Whether the iterator is positioned at an entry. */
    @Override
    public boolean valid() {
        return valid;
    }

    /** Moves to the next entry; {@link #valid()} turns false past the last one. */
    @Override
    public void next() throws IOException {
        checkValid();
        moved();
        try {
            leafCells.next();
        } catch (RuntimeException e) {
            throw lost(e);
        }
        if (!leafCells.valid()) {
            nextLeaf();
        }
    }

    /** Moves to the previous entry; {@link #valid()} turns false before the first one. */
    @Override
    public void prev() throws IOException {
        checkValid();
        moved();
        try {
            leafCells.prev();
        } catch (RuntimeException e) {
            throw lost(e);
        }
        if (!leafCells.valid()) {
            prevLeaf();
        }
    }

    /** Moves to the last entry of the leaf before the current one, through the path. */
    private void prevLeaf() throws IOException {
        int level = 1;
        while (level < height && positions[level] == 0) {
            level++;
        }
        if (level >= height) {
            valid = false;
            return;
        }
        positions[level]--;
        for (; level >= 1; level--) {
            int child = TreePages.child(pages[level], TreePages.cellOffset(pages[level], positions[level]), level);
            pageNumbers[level - 1] = child;
            if (level > 1) {
                pages[level - 1] = reader.interiorPage(child, level - 1).bytes();
                positions[level - 1] = TreePages.count(pages[level - 1]) - 1;
            } else {
                pages[0] = loadLeaf(child);
                try {
                    leafCells.seekToLast();
                } catch (RuntimeException e) {
                    throw lost(e);
                }
            }
        }
    }

    private void nextLeaf() throws IOException {
        int level = 1;
        while (level < height && ++positions[level] == TreePages.count(pages[level])) {
            level++;
        }
        if (level >= height) {
            valid = false;
            return;
        }
        for (; level >= 1; level--) {
            int child = TreePages.child(pages[level], TreePages.cellOffset(pages[level], positions[level]), level);
            pageNumbers[level - 1] = child;
            if (level > 1) {
                pages[level - 1] = reader.interiorPage(child, level - 1).bytes();
                positions[level - 1] = 0;
            } else {
                pages[0] = loadLeaf(child);
                try {
                    leafCells.seekToFirst();
                } catch (RuntimeException e) {
                    throw lost(e);
                }
            }
        }
    }

    /** The user key at the current position. */
    @Override
    public byte[] key() {
        LeafCell c = cell();
        if (currentKey == null) {
            currentKey = java.util.Arrays.copyOfRange(c.keyArray, c.keyStart, c.keyStart + c.keyLength);
        }
        return currentKey;
    }

    /** Length of the user key at the current position (allocates nothing). */
    public int keyLength() {
        return cell().keyLength;
    }

    /**
     * Compares the user key at the current position with the first {@code length} bytes of
     * {@code other}, unsigned, as {@link java.util.Arrays#compareUnsigned} (allocates nothing).
     */
    public int compareKey(byte[] other, int length) {
        LeafCell c = cell();
        return java.util.Arrays.compareUnsigned(c.keyArray, c.keyStart, c.keyStart + c.keyLength, other, 0, length);
    }

    /** Copies the user key at the current position into {@code dest} from index 0 ({@link #keyLength()} bytes). */
    public void copyKey(byte[] dest) {
        LeafCell c = cell();
        System.arraycopy(c.keyArray, c.keyStart, dest, 0, c.keyLength);
    }

    /** The sequence number at the current position. */
    @Override
    public long seqno() {
        return reader.seqno(cell());
    }

    /** The entry type at the current position. */
    @Override
    public EntryType type() {
        return cell().type;
    }

    /** The value at the current position (null for a tombstone); reads overflow pages if needed. */
    @Override
    public byte[] value() throws IOException {
        LeafCell c = cell();
        if (c.type == EntryType.DELETE) {
            return null;
        }
        return c.inline() ? java.util.Arrays.copyOfRange(pages[0], c.valueStart, c.valueStart + c.valueLength)
                : overflowValue();
    }

    /**
     * The current leaf for an inline value (valid until the iterator moves), the overflow
     * value read once for an overflow one, null for a tombstone.
     */
    @Override
    public byte[] valueArray() throws IOException {
        LeafCell c = cell();
        if (c.type == EntryType.DELETE) {
            return null;
        }
        return c.inline() ? pages[0] : overflowValue();
    }

    @Override
    public int valueOffset() {
        LeafCell c = cell();
        return c.inline() ? c.valueStart : 0;
    }

    @Override
    public int valueLength() {
        return cell().valueLength;
    }

    /** The whole entry at the current position. */
    public InternalEntry entry() throws IOException {
        return new InternalEntry(key(), seqno(), type(), value());
    }

    private byte[] overflowValue() throws IOException {
        if (overflowValue == null) {
            overflowValue = reader.overflowValue(cell());
        }
        return overflowValue;
    }

    /** The current cell, decoded when the iterator moved there. */
    private LeafCell cell() {
        checkValid();
        return leafCells.cell();
    }

    /** Forgets what was found at the previous position. */
    private void moved() {
        currentKey = null;
        overflowValue = null;
    }

    /** Page number of the current leaf (for block-level tools and tests). */
    public int leafPageNumber() {
        checkValid();
        return pageNumbers[0];
    }

    private void checkValid() {
        if (!valid) {
            throw new NoSuchElementException("iterator over " + reader.path() + " is not positioned at an entry");
        }
    }

    /**
     * Copies leaf {@code pageNo} into this iterator's leaf array. A failed load may leave the
     * array half overwritten, so the iterator is then no longer positioned anywhere.
     */
    private byte[] loadLeaf(int pageNo) throws IOException {
        try {
            byte[] page = reader.leafPage(pageNo, leaf());
            leafCells.reset(page, pageNo);
            return page;
        } catch (IOException | RuntimeException e) {
            valid = false;
            moved();
            throw e;
        }
    }

    /** A leaf's cells failed to decode: the iterator is no longer positioned anywhere. */
    private RuntimeException lost(RuntimeException e) {
        valid = false;
        moved();
        return e;
    }

    private byte[] leaf() {
        if (leaf == null) {
            leaf = reader.newPageBuffer();
        }
        return leaf;
    }
}
