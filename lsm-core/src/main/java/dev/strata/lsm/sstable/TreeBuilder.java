package dev.strata.lsm.sstable;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Builds one table version's B+-tree bottom-up in a single pass: leaves fill from entries
 * given in internal-key order and are written as they fill; each interior level keeps one
 * open frontier page that is written when full; {@link #finish()} closes the frontier pages
 * bottom-up. A leaf of an earlier version can be referenced in place ({@link #addLeaf}): its
 * level-1 cell is copied, nothing of the leaf is read or written. Validates every entry and
 * the order of entries and referenced leaves. Not thread safe.
 */
final class TreeBuilder {
    private final PageSink sink;
    private final int pageSize;
    private final int maxKeySize;
    private final int maxInlineCell;
    private final SlottedPageBuilder leaf;
    private final List<InteriorLevel> levels = new ArrayList<>();
    private final byte[] summaryBytes = new byte[LeafSummary.SIZE];

    // The open leaf.
    private int leafTombstones;
    private int leafOverflowPages;
    private long leafUserBytes;
    private long leafMinSeqno = Long.MAX_VALUE;
    private long leafMaxSeqno = Long.MIN_VALUE;

    // The last internal key added (entry or referenced leaf's max key).
    private byte[] lastKey = new byte[64];
    private int lastKeyLength;
    private long lastSeqno;
    private boolean hasLast;
    private byte[] firstKey;

    // Totals over the version.
    private long entryCount;
    private long tombstoneCount;
    private long userBytes;
    private long minSeqno = Long.MAX_VALUE;
    private long maxSeqno = Long.MIN_VALUE;
    private int leafCount;
    private long overflowPages;
    private int interiorPages;
    private int leavesWritten;
    private int leavesReused;

    /** One interior level's open frontier page and how many pages it has written. */
    private static final class InteriorLevel {
        final SlottedPageBuilder page;
        int pagesWritten;

        InteriorLevel(int pageSize) {
            page = new SlottedPageBuilder(pageSize);
        }
    }

    /** Root page and height of a finished tree (-1 and 0 when it has no entries). */
    record Shape(int root, int height) {
    }

    TreeBuilder(PageSink sink, TableOptions options) {
        this.sink = sink;
        this.pageSize = options.pageSize();
        this.maxKeySize = options.maxKeySize();
        this.maxInlineCell = SlottedPageBuilder.maxCellSize(pageSize) / 2;
        this.leaf = new SlottedPageBuilder(pageSize);
    }

    /**
     * Adds the next internal entry; returns whether it starts a new user key. The arrays are
     * not retained.
     *
     * @throws IllegalArgumentException if the entry is invalid or out of order
     */
    boolean add(byte[] key, long seqno, EntryType type, byte[] value) throws IOException {
        checkEntry(key, seqno, type, value);
        int order = hasLast ? Arrays.compareUnsigned(lastKey, 0, lastKeyLength, key, 0, key.length) : -1;
        if (order > 0 || (order == 0 && lastSeqno <= seqno)) {
            throw outOfOrder(key, seqno);
        }
        int keyPart = PageFormat.varintSize(key.length) + key.length + 8;
        boolean tombstone = type == EntryType.DELETE;
        int inlineCell = tombstone ? keyPart : keyPart + 1 + PageFormat.varintSize(value.length) + value.length;
        boolean overflow = !tombstone && inlineCell > maxInlineCell;
        int cell = overflow ? keyPart + 1 + PageFormat.OVERFLOW_REF_SIZE : inlineCell;
        if (!leaf.fits(cell) || leaf.count() == 0xffff) {
            writeLeaf();
        }
        int overflowPage = 0;
        int overflowCrc = 0;
        if (overflow) {
            overflowPage = sink.nextPage();
            overflowCrc = sink.writeExtent(value, value.length);
            leafOverflowPages += sink.nextPage() - overflowPage;
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
        if (tombstone) {
            leafTombstones++;
        }
        leafUserBytes += key.length + (tombstone ? 0 : value.length);
        leafMinSeqno = Math.min(leafMinSeqno, seqno);
        leafMaxSeqno = Math.max(leafMaxSeqno, seqno);
        if (!hasLast) {
            firstKey = key.clone();
        }
        remember(key, key.length, seqno);
        return order != 0;
    }

    /**
     * References an existing leaf in place (after writing the open leaf, however full): its
     * level-1 cell is copied with its summary.
     *
     * @throws IllegalArgumentException if the leaf does not sort after everything added so far
     */
    void addLeaf(LeafRef ref) throws IOException {
        int order = hasLast ? Arrays.compareUnsigned(lastKey, 0, lastKeyLength, ref.minKey(), 0, ref.minKey().length) : -1;
        if (order > 0 || (order == 0 && lastSeqno <= ref.minKeySeqno())) {
            throw outOfOrder(ref.minKey(), ref.minKeySeqno());
        }
        cutLeaf();
        LeafSummary s = ref.summary();
        addChild(0, ref.encodedMinKey(), 0, ref.encodedMinKey().length, ref.encodedMaxKey(), 0,
                ref.encodedMaxKey().length, ref.page(), s);
        leafCount++;
        leavesReused++;
        overflowPages += s.overflowPages();
        entryCount += s.entries();
        tombstoneCount += s.tombstones();
        userBytes += s.userBytes();
        minSeqno = Math.min(minSeqno, s.minSeqno());
        maxSeqno = Math.max(maxSeqno, s.maxSeqno());
        if (!hasLast) {
            firstKey = ref.minKey().clone();
        }
        remember(ref.maxKey(), ref.maxKey().length, ref.maxKeySeqno());
    }

    /** Writes the open leaf now, even if it is not full (nothing when it is empty). */
    void cutLeaf() throws IOException {
        if (!leaf.isEmpty()) {
            writeLeaf();
        }
    }

    private void remember(byte[] key, int length, long seqno) {
        if (lastKey.length < length) {
            lastKey = new byte[Math.max(length, lastKey.length * 2)];
        }
        System.arraycopy(key, 0, lastKey, 0, length);
        lastKeyLength = length;
        lastSeqno = seqno;
        hasLast = true;
    }

    private IllegalArgumentException outOfOrder(byte[] key, long seqno) {
        return new IllegalArgumentException("SSTable input out of order: key " + InternalKeys.describe(key)
                + "@" + seqno + " after key " + InternalKeys.describe(Arrays.copyOf(lastKey, lastKeyLength))
                + "@" + lastSeqno + " (entries must ascend by key, then descend by sequence number)");
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

    /** Writes the open leaf and records it (min and max key, page, summary) in the lowest interior level. */
    private void writeLeaf() throws IOException {
        LeafSummary s = new LeafSummary(leaf.count(), leafTombstones, leafOverflowPages, leafUserBytes, leafMinSeqno,
                leafMaxSeqno);
        byte[] page = leaf.finish(PageFormat.TYPE_LEAF, 0);
        int pageNo = sink.writePage(page);
        leafCount++;
        leavesWritten++;
        overflowPages += s.overflowPages();
        entryCount += s.entries();
        tombstoneCount += s.tombstones();
        userBytes += s.userBytes();
        minSeqno = Math.min(minSeqno, s.minSeqno());
        maxSeqno = Math.max(maxSeqno, s.maxSeqno());
        int minOff = leaf.cellOffset(0);
        int maxOff = leaf.cellOffset(leaf.count() - 1);
        addChild(0, page, minOff, TreePages.internalKeyLength(page, minOff), page, maxOff,
                TreePages.internalKeyLength(page, maxOff), pageNo, s);
        leaf.reset();
        leafTombstones = 0;
        leafOverflowPages = 0;
        leafUserBytes = 0;
        leafMinSeqno = Long.MAX_VALUE;
        leafMaxSeqno = Long.MIN_VALUE;
    }

    /**
     * Adds a child reference to interior level {@code index} (0 is the lowest interior
     * level, whose cells also carry the child's min key and the leaf summary; {@code minLength}
     * and {@code summary} are ignored above it).
     */
    private void addChild(int index, byte[] minSrc, int minOff, int minLength, byte[] maxSrc, int maxOff,
                          int maxLength, int child, LeafSummary summary) throws IOException {
        if (index == levels.size()) {
            levels.add(new InteriorLevel(pageSize));
        }
        InteriorLevel level = levels.get(index);
        boolean lowest = index == 0;
        int cell = (lowest ? minLength + LeafSummary.SIZE : 0) + maxLength + 4;
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
        if (lowest) {
            summary.encode(summaryBytes, 0);
            b.putBytes(summaryBytes, 0, LeafSummary.SIZE);
        }
        b.endCell();
    }

    /** Writes interior level {@code index}'s frontier page and records it in the level above. */
    private void writeInterior(int index) throws IOException {
        InteriorLevel level = levels.get(index);
        SlottedPageBuilder b = level.page;
        byte[] page = b.finish(PageFormat.TYPE_INTERIOR, index + 1);
        int pageNo = sink.writePage(page);
        interiorPages++;
        level.pagesWritten++;
        int maxOff = TreePages.maxKeyOffset(page, b.cellOffset(b.count() - 1), index + 1);
        addChild(index + 1, null, 0, 0, page, maxOff, TreePages.internalKeyLength(page, maxOff), pageNo, null);
        b.reset();
    }

    /** Writes the open leaf and closes the frontier pages bottom-up; returns the root and height. */
    Shape finish() throws IOException {
        cutLeaf();
        for (int index = 0; index < levels.size(); index++) {
            InteriorLevel level = levels.get(index);
            boolean top = index == levels.size() - 1;
            if (top && level.pagesWritten == 0 && level.page.count() == 1) {
                // A single child needs no parent: that child is the root.
                byte[] page = level.page.bytes();
                return new Shape(TreePages.child(page, level.page.cellOffset(0), index + 1), index + 1);
            }
            if (top && level.pagesWritten == 0) {
                int root = sink.writePage(level.page.finish(PageFormat.TYPE_INTERIOR, index + 1));
                interiorPages++;
                return new Shape(root, index + 2);
            }
            writeInterior(index);
        }
        return new Shape(PageFormat.NO_PAGE, 0);
    }

    /**
     * The footer of the finished tree with the given bloom extent and counts; the live page
     * count covers the tree, the leaves' overflow extents, {@code bloomPages} and the footer.
     */
    Footer footer(Shape shape, int bloomPage, int bloomLength, int bloomCrc, int bloomPages, long bloomKeys,
                  long bloomCapacity, long previousFooterOffset) {
        boolean empty = entryCount == 0;
        byte[] noKey = new byte[0];
        long livePages = leafCount + overflowPages + interiorPages + bloomPages + 1;
        return new Footer(pageSize, shape.root(), shape.height(), leafCount, entryCount, tombstoneCount,
                empty ? 0 : minSeqno, empty ? 0 : maxSeqno, bloomPage, bloomLength, bloomCrc,
                (int) Math.min(Integer.MAX_VALUE, overflowPages), userBytes, previousFooterOffset, sink.firstPage(),
                empty ? noKey : firstKey, empty ? noKey : Arrays.copyOf(lastKey, lastKeyLength),
                PageFormat.FORMAT_VERSION, bloomKeys, bloomCapacity, livePages);
    }

    long entryCount() {
        return entryCount + leaf.count();
    }

    /** Leaf pages written by this builder (not referenced ones). */
    int leavesWritten() {
        return leavesWritten;
    }

    /** Leaves of earlier versions referenced in place. */
    int leavesReused() {
        return leavesReused;
    }

    /** Whether the open leaf holds entries not yet written. */
    boolean leafOpen() {
        return !leaf.isEmpty();
    }
}
