package dev.strata.lsm.sstable;

import dev.strata.lsm.io.AlignedBuffers;
import dev.strata.lsm.io.PageFile;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.zip.CRC32C;

/**
 * Bulk-loads a B+-tree SSTable in one pass from internal entries given in order (user key
 * ascending, sequence number descending). Leaves are written as they fill; each interior
 * level keeps one open frontier page that is written when full; at {@link #finish()} the
 * frontier pages are closed bottom-up, then the bloom filter and the footer are written.
 * Every page starts at a multiple of the page size and every write is a whole number of
 * pages from an aligned direct buffer, so the output works unchanged with O_DIRECT.
 *
 * <p>The table is written starting at the first page boundary at or after the file's
 * current size, so a new version of a table can be appended to the file holding the
 * previous one. The writer does not force the file: the caller decides durability.
 *
 * <p>Not thread safe: one thread adds entries.
 */
public final class SSTableWriter {
    private static final int OUTPUT_BUFFER_BYTES = 1 << 20;
    private static final byte[] ZEROS = new byte[TableOptions.MAX_PAGE_SIZE];

    private final PageFile file;
    private final TableOptions options;
    private final int pageSize;
    private final int maxKeySize;
    private final int maxInlineCell;
    private final long previousFooterOffset;
    private final ByteBuffer out;
    private final int firstPage;
    private long writePosition;
    private int nextPage;

    private final SlottedPageBuilder leaf;
    private final List<InteriorLevel> levels = new ArrayList<>();

    private byte[] prevKey = new byte[64];
    private int prevKeyLength;
    private long prevSeqno;
    private boolean hasPrev;
    private byte[] firstKey;

    private long entryCount;
    private long tombstoneCount;
    private long minSeqno = Long.MAX_VALUE;
    private long maxSeqno = Long.MIN_VALUE;
    private long userBytes;
    private int leafCount;
    private int overflowPages;
    private long[] keyHashes = new long[1024];
    private int keyHashCount;
    private boolean finished;

    /** One interior level's open frontier page and how many pages it has written. */
    private static final class InteriorLevel {
        final SlottedPageBuilder page;
        int pagesWritten;

        InteriorLevel(int pageSize) {
            page = new SlottedPageBuilder(pageSize);
        }
    }

    /** Starts a table with no previous version. */
    public SSTableWriter(PageFile file, TableOptions options) throws IOException {
        this(file, options, -1);
    }

    /**
     * Starts a table that records {@code previousFooterOffset} as the version it derives
     * from (-1 for none).
     */
    public SSTableWriter(PageFile file, TableOptions options, long previousFooterOffset) throws IOException {
        this.file = file;
        this.options = options;
        this.pageSize = options.pageSize();
        this.maxKeySize = options.maxKeySize();
        this.maxInlineCell = SlottedPageBuilder.maxCellSize(pageSize) / 2;
        this.previousFooterOffset = previousFooterOffset;
        long start = (file.size() + pageSize - 1) / pageSize;
        if (start > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("file " + file.path() + " is too large to append a table to");
        }
        this.firstPage = (int) start;
        this.nextPage = firstPage;
        this.writePosition = start * pageSize;
        this.out = AlignedBuffers.allocate(Math.max(pageSize, OUTPUT_BUFFER_BYTES), AlignedBuffers.PAGE_ALIGNMENT);
        this.leaf = new SlottedPageBuilder(pageSize);
    }

    /** The options this table is written with. */
    public TableOptions options() {
        return options;
    }

    /** Entries added so far. */
    public long entryCount() {
        return entryCount;
    }

    /** Approximate bytes this table occupies so far, for cutting outputs at a target size. */
    public long estimatedBytes() {
        return (long) (nextPage - firstPage + 1) * pageSize;
    }

    /** Adds an entry; see {@link #add(byte[], long, EntryType, byte[])}. */
    public void add(InternalEntry entry) throws IOException {
        add(entry.key(), entry.seqno(), entry.type(), entry.value());
    }

    /**
     * Adds the next internal entry. The arrays are not retained after the call returns.
     *
     * @throws IllegalArgumentException if the key is too large, the value is missing or too
     *     large, the sequence number is out of range, or the entry does not sort strictly
     *     after the previous one (the message names both keys)
     */
    public void add(byte[] key, long seqno, EntryType type, byte[] value) throws IOException {
        if (finished) {
            throw new IllegalStateException("SSTable writer for " + file.path() + " is already finished");
        }
        checkEntry(key, seqno, type, value);
        int order = hasPrev ? Arrays.compareUnsigned(prevKey, 0, prevKeyLength, key, 0, key.length) : -1;
        if (order > 0 || (order == 0 && prevSeqno <= seqno)) {
            throw new IllegalArgumentException("SSTable input out of order: key " + InternalKeys.describe(key)
                    + "@" + seqno + " after key " + InternalKeys.describe(Arrays.copyOf(prevKey, prevKeyLength))
                    + "@" + prevSeqno + " (entries must ascend by key, then descend by sequence number)");
        }
        if (order != 0) {
            addKeyHash(key);
        }

        int keyPart = PageFormat.varintSize(key.length) + key.length + 8;
        boolean tombstone = type == EntryType.DELETE;
        int inlineCell = tombstone ? keyPart : keyPart + 1 + PageFormat.varintSize(value.length) + value.length;
        boolean overflow = !tombstone && inlineCell > maxInlineCell;
        int cell = overflow ? keyPart + 1 + PageFormat.OVERFLOW_REF_SIZE : inlineCell;
        if (!leaf.fits(cell)) {
            writeLeaf();
        }
        int overflowPage = 0;
        int overflowCrc = 0;
        if (overflow) {
            overflowPage = nextPage;
            overflowCrc = writeExtent(value, value.length);
            overflowPages += nextPage - overflowPage;
        }
        leaf.beginCell();
        leaf.putVarint(key.length);
        leaf.putBytes(key, 0, key.length);
        leaf.putLong(InternalKeys.trailer(seqno, type));
        if (!tombstone) {
            if (overflow) {
                leaf.putByte(PageFormat.VALUE_OVERFLOW);
                leaf.putInt(overflowPage);
                leaf.putInt(value.length);
                leaf.putInt(overflowCrc);
            } else {
                leaf.putByte(PageFormat.VALUE_INLINE);
                leaf.putVarint(value.length);
                leaf.putBytes(value, 0, value.length);
            }
        }
        leaf.endCell();

        if (!hasPrev) {
            firstKey = key.clone();
        }
        if (prevKey.length < key.length) {
            prevKey = new byte[Math.max(key.length, prevKey.length * 2)];
        }
        System.arraycopy(key, 0, prevKey, 0, key.length);
        prevKeyLength = key.length;
        prevSeqno = seqno;
        hasPrev = true;
        entryCount++;
        if (tombstone) {
            tombstoneCount++;
        } else {
            userBytes += value.length;
        }
        userBytes += key.length;
        minSeqno = Math.min(minSeqno, seqno);
        maxSeqno = Math.max(maxSeqno, seqno);
    }

    private void checkEntry(byte[] key, long seqno, EntryType type, byte[] value) {
        if (key == null) {
            throw new IllegalArgumentException("key must not be null");
        }
        if (key.length > maxKeySize) {
            throw new IllegalArgumentException("key of " + key.length + " bytes exceeds the maximum key size of "
                    + maxKeySize + " bytes for " + pageSize + "-byte pages: " + InternalKeys.describe(key));
        }
        if (seqno < 0 || seqno > InternalKeys.MAX_SEQNO) {
            throw new IllegalArgumentException("sequence number " + seqno + " is outside 0.." + InternalKeys.MAX_SEQNO);
        }
        if (type == null) {
            throw new IllegalArgumentException("entry type must not be null");
        }
        if (type == EntryType.PUT) {
            if (value == null) {
                throw new IllegalArgumentException("PUT of key " + InternalKeys.describe(key) + " has a null value");
            }
            if (value.length > TableOptions.MAX_VALUE_SIZE) {
                throw new IllegalArgumentException("value of " + value.length + " bytes exceeds the maximum value size of "
                        + TableOptions.MAX_VALUE_SIZE + " bytes");
            }
        }
    }

    private void addKeyHash(byte[] key) {
        if (options.bloomBitsPerKey() == 0) {
            return;
        }
        if (keyHashCount == keyHashes.length) {
            keyHashes = Arrays.copyOf(keyHashes, keyHashCount * 2);
        }
        keyHashes[keyHashCount++] = BloomFilter.hash(key);
    }

    /** Writes the current leaf and records it (min and max key, page) in the lowest interior level. */
    private void writeLeaf() throws IOException {
        byte[] page = leaf.finish(PageFormat.TYPE_LEAF, 0);
        int pageNo = writePage(page);
        leafCount++;
        int minOff = leaf.cellOffset(0);
        int maxOff = leaf.cellOffset(leaf.count() - 1);
        addChild(0, page, minOff, TreePages.internalKeyLength(page, minOff), page, maxOff,
                TreePages.internalKeyLength(page, maxOff), pageNo);
        leaf.reset();
    }

    /**
     * Adds a child reference to interior level {@code index} (0 is the lowest interior
     * level, whose cells also carry the child's min key; {@code minLength} is ignored above it).
     */
    private void addChild(int index, byte[] minSrc, int minOff, int minLength, byte[] maxSrc, int maxOff,
                          int maxLength, int child) throws IOException {
        if (index == levels.size()) {
            levels.add(new InteriorLevel(pageSize));
        }
        InteriorLevel level = levels.get(index);
        boolean lowest = index == 0;
        int cell = (lowest ? minLength : 0) + maxLength + 4;
        if (!level.page.fits(cell)) {
            writeInterior(index);
        }
        SlottedPageBuilder b = level.page;
        b.beginCell();
        if (lowest) {
            b.putBytes(minSrc, minOff, minLength);
        }
        b.putBytes(maxSrc, maxOff, maxLength);
        b.putInt(child);
        b.endCell();
    }

    /** Writes interior level {@code index}'s frontier page and records it in the level above. */
    private void writeInterior(int index) throws IOException {
        InteriorLevel level = levels.get(index);
        SlottedPageBuilder b = level.page;
        byte[] page = b.finish(PageFormat.TYPE_INTERIOR, index + 1);
        int pageNo = writePage(page);
        level.pagesWritten++;
        int maxOff = TreePages.maxKeyOffset(page, b.cellOffset(b.count() - 1), index + 1);
        addChild(index + 1, null, 0, 0, page, maxOff, TreePages.internalKeyLength(page, maxOff), pageNo);
        b.reset();
    }

    /**
     * {@link #finish()}, then forces the file to stable storage and closes it (closed even
     * when finishing or forcing fails).
     */
    public FinishedTable finishDurably() throws IOException {
        try {
            FinishedTable t = finish();
            file.force(true);
            return t;
        } finally {
            file.close();
        }
    }

    /**
     * Closes the tree, writes the bloom filter and the footer, and hands every byte to the
     * file (without forcing it).
     */
    public FinishedTable finish() throws IOException {
        if (finished) {
            throw new IllegalStateException("SSTable writer for " + file.path() + " is already finished");
        }
        finished = true;
        if (!leaf.isEmpty()) {
            writeLeaf();
        }
        int root = PageFormat.NO_PAGE;
        int height = 0;
        for (int index = 0; index < levels.size(); index++) {
            InteriorLevel level = levels.get(index);
            boolean top = index == levels.size() - 1;
            if (top && level.pagesWritten == 0 && level.page.count() == 1) {
                // A single child needs no parent: that child is the root.
                byte[] page = level.page.bytes();
                root = TreePages.child(page, level.page.cellOffset(0), index + 1);
                height = index + 1;
                break;
            }
            if (top && level.pagesWritten == 0) {
                root = writePage(level.page.finish(PageFormat.TYPE_INTERIOR, index + 1));
                height = index + 2;
                break;
            }
            writeInterior(index);
        }

        int bloomPage = PageFormat.NO_PAGE;
        int bloomLength = 0;
        int bloomCrc = 0;
        if (options.bloomBitsPerKey() > 0 && keyHashCount > 0) {
            byte[] bloom = BloomFilter.build(keyHashes, keyHashCount, options.bloomBitsPerKey()).encode();
            bloomPage = nextPage;
            bloomLength = bloom.length;
            bloomCrc = writeExtent(bloom, bloom.length);
        }
        byte[] noKey = new byte[0];
        Footer footer = new Footer(pageSize, root, height, leafCount, entryCount, tombstoneCount,
                entryCount == 0 ? 0 : minSeqno, entryCount == 0 ? 0 : maxSeqno, bloomPage, bloomLength, bloomCrc,
                overflowPages, userBytes, previousFooterOffset, firstPage,
                entryCount == 0 ? noKey : firstKey, entryCount == 0 ? noKey : Arrays.copyOf(prevKey, prevKeyLength));
        int footerPage = writePage(footer.encode());
        flushOutput();
        return new FinishedTable((long) footerPage * pageSize, footer);
    }

    private int writePage(byte[] page) throws IOException {
        if (out.remaining() < pageSize) {
            flushOutput();
        }
        out.put(page, 0, pageSize);
        return nextPage++;
    }

    /**
     * Writes {@code data[0, length)} to whole pages, zero padded, and returns the CRC32C of
     * the padded extent.
     */
    private int writeExtent(byte[] data, int length) throws IOException {
        CRC32C crc = new CRC32C();
        crc.update(data, 0, length);
        int off = 0;
        while (off < length) {
            if (!out.hasRemaining()) {
                flushOutput();
            }
            int n = Math.min(out.remaining(), length - off);
            out.put(data, off, n);
            off += n;
        }
        int pad = (pageSize - length % pageSize) % pageSize;
        crc.update(ZEROS, 0, pad);
        // The buffer holds whole pages, so the padding never crosses its end.
        out.put(ZEROS, 0, pad);
        nextPage += (length + pad) / pageSize;
        return (int) crc.getValue();
    }

    private void flushOutput() throws IOException {
        out.flip();
        int n = out.remaining();
        if (n > 0) {
            file.write(out, writePosition);
            writePosition += n;
        }
        out.clear();
    }
}
