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
 *
 * <p>With <em>balanced cuts</em> (in-place merges, whose runs of new leaves end wherever a
 * clean leaf follows), a full leaf is held back until the next one is full too; when a run is
 * cut with its last leaf less than half full, the cells of the held leaf and the last one are
 * split evenly between the two, like a B-tree split, instead of leaving a nearly empty leaf
 * that the next merge would split again. Leaves with overflow cells are never rebalanced (their
 * extents must stay right before them), and a held leaf is written before any overflow extent.
 */
final class TreeBuilder {
    private final PageSink sink;
    private final int pageSize;
    private final int maxKeySize;
    private final int maxInlineCell;
    private final boolean balancedCuts;
    /** The format version written into every page and the footer (3, or 2 for an in-place merge of a version-2 table). */
    private final int formatVersion;
    private SlottedPageBuilder leaf;
    /** A full leaf not yet written (balanced cuts only), or null. */
    private SlottedPageBuilder held;
    private SlottedPageBuilder spare;
    /** The running summaries of leaf, held and spare, moved with them. */
    private LeafTally leafTally = new LeafTally();
    private LeafTally heldTally;
    private LeafTally spareTally;
    private final List<InteriorLevel> levels = new ArrayList<>();
    private final byte[] summaryBytes = new byte[LeafSummary.SIZE];

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

    /**
     * The summary of a leaf's cells, kept as they are added so that writing the leaf does not
     * parse them again; not exact once cells moved between pages (a rebalance), when the
     * leaf is parsed instead.
     */
    private static final class LeafTally {
        int tombstones;
        long overflowPages;
        long userBytes;
        long minSeqno = Long.MAX_VALUE;
        long maxSeqno = Long.MIN_VALUE;
        boolean exact = true;

        void add(int keyLength, long valueLength, long valuePages, long seqno, boolean tombstone) {
            userBytes += keyLength + valueLength;
            overflowPages += valuePages;
            tombstones += tombstone ? 1 : 0;
            minSeqno = Math.min(minSeqno, seqno);
            maxSeqno = Math.max(maxSeqno, seqno);
        }

        LeafSummary summary(SlottedPageBuilder page, int pageSize) {
            if (!exact) {
                return LeafSummary.of(page.bytes(), page.count(), pageSize);
            }
            LeafSummary s = new LeafSummary(page.count(), tombstones, (int) overflowPages, userBytes, minSeqno,
                    maxSeqno);
            assert s.equals(LeafSummary.of(page.bytes(), page.count(), pageSize)) : s;
            return s;
        }

        /** Whether a cell of the leaf refers to an overflow extent (its extents must stay right before it). */
        boolean hasOverflow() {
            return overflowPages > 0;
        }

        void reset() {
            tombstones = 0;
            overflowPages = 0;
            userBytes = 0;
            minSeqno = Long.MAX_VALUE;
            maxSeqno = Long.MIN_VALUE;
            exact = true;
        }
    }

    /** Root page and height of a finished tree (-1 and 0 when it has no entries). */
    record Shape(int root, int height) {
    }

    /** A builder of the current format whose leaves are cut only when full (and at the end). */
    TreeBuilder(PageSink sink, TableOptions options) {
        this(sink, options, false, PageFormat.FORMAT_VERSION);
    }

    /** A builder with or without balanced cuts (see the class comment) writing format {@code formatVersion} (2 or 3). */
    TreeBuilder(PageSink sink, TableOptions options, boolean balancedCuts, int formatVersion) {
        if (formatVersion != PageFormat.FORMAT_VERSION && formatVersion != PageFormat.FORMAT_VERSION_2) {
            throw new IllegalArgumentException("cannot write format version " + formatVersion);
        }
        if (sink.packed() && formatVersion != PageFormat.FORMAT_VERSION) {
            throw new IllegalArgumentException("compressed pages need format version " + PageFormat.FORMAT_VERSION);
        }
        this.formatVersion = formatVersion;
        this.sink = sink;
        this.pageSize = options.pageSize();
        this.maxKeySize = options.maxKeySize();
        this.maxInlineCell = SlottedPageBuilder.maxCellSize(pageSize) / 2;
        this.balancedCuts = balancedCuts;
        this.leaf = new SlottedPageBuilder(pageSize);
    }

    /**
     * Adds the next internal entry; returns whether it starts a new user key. The arrays are
     * not retained.
     *
     * @throws IllegalArgumentException if the entry is invalid or out of order
     */
    boolean add(byte[] key, long seqno, EntryType type, byte[] value) throws IOException {
        return add(key, seqno, type, value, 0, value == null ? 0 : value.length);
    }

    /** {@link #add(byte[], long, EntryType, byte[])} with the value at {@code value[valueOffset, valueOffset + valueLength)}. */
    boolean add(byte[] key, long seqno, EntryType type, byte[] value, int valueOffset, int valueLength)
            throws IOException {
        checkEntry(key, seqno, type, value, valueOffset, valueLength);
        int order = hasLast ? Arrays.compareUnsigned(lastKey, 0, lastKeyLength, key, 0, key.length) : -1;
        if (order > 0 || (order == 0 && lastSeqno <= seqno)) {
            throw outOfOrder(key, seqno);
        }
        int keyPart = PageFormat.varintSize(key.length) + key.length + 8;
        boolean tombstone = type == EntryType.DELETE;
        int inlineCell = tombstone ? keyPart : keyPart + 1 + PageFormat.varintSize(valueLength) + valueLength;
        boolean overflow = !tombstone && inlineCell > maxInlineCell;
        int cell = overflow ? keyPart + 1 + PageFormat.OVERFLOW_REF_SIZE : inlineCell;
        if (!leaf.fits(cell) || leaf.count() == 0xffff) {
            leafFull();
        }
        int overflowPage = 0;
        int overflowCrc = 0;
        if (overflow) {
            if (held != null) {
                // The held leaf goes first, so that this extent lies right before its own leaf.
                writeHeld();
            }
            overflowPage = sink.nextPage();
            overflowCrc = sink.writeExtent(value, valueOffset, valueLength);
        }
        leaf.beginCell();
        leaf.putVarint(key.length);
        leaf.putBytes(key, 0, key.length);
        leaf.putLong(InternalKeys.trailer(seqno, type));
        if (!tombstone) {
            if (overflow) {
                leaf.putByte(PageFormat.VALUE_OVERFLOW);
                leaf.putInt(overflowPage);
                leaf.putInt(valueLength);
                leaf.putInt(overflowCrc);
            } else {
                leaf.putByte(PageFormat.VALUE_INLINE);
                leaf.putVarint(valueLength);
                leaf.putBytes(value, valueOffset, valueLength);
            }
        }
        leaf.endCell();
        leafTally.add(key.length, tombstone ? 0 : valueLength,
                overflow ? (valueLength + (long) pageSize - 1) / pageSize : 0, seqno, tombstone);
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

    /**
     * Writes the open leaf now, even if it is not full (nothing when it is empty), and the held
     * leaf before it, balancing the two when the open one is less than half full.
     */
    void cutLeaf() throws IOException {
        if (held != null) {
            if (!leaf.isEmpty() && !leafTally.hasOverflow() && !heldTally.hasOverflow()
                    && 2 * bytesOf(leaf) < SlottedPageBuilder.maxCellSize(pageSize)) {
                rebalance();
            }
            writeHeld();
        }
        if (!leaf.isEmpty()) {
            writeLeaf(leaf, leafTally);
        }
    }

    /** The open leaf is full: write it, or hold it back (balanced cuts) after writing the one held. */
    private void leafFull() throws IOException {
        if (!balancedCuts) {
            writeLeaf(leaf, leafTally);
            return;
        }
        if (held != null) {
            writeHeld();
        }
        SlottedPageBuilder next = spare != null ? spare : new SlottedPageBuilder(pageSize);
        LeafTally nextTally = spareTally != null ? spareTally : new LeafTally();
        spare = null;
        spareTally = null;
        held = leaf;
        heldTally = leafTally;
        leaf = next;
        leafTally = nextTally;
    }

    private void writeHeld() throws IOException {
        writeLeaf(held, heldTally);
        spare = held;
        spareTally = heldTally;
        held = null;
        heldTally = null;
    }

    /** Bytes a page's cells and slots take. */
    private static int bytesOf(SlottedPageBuilder b) {
        return b.dataEnd() - PageFormat.HEADER_SIZE + b.count() * PageFormat.SLOT_SIZE;
    }

    /** Splits the cells of the held leaf and the open one evenly between the two (neither has overflow cells). */
    private void rebalance() {
        List<byte[]> cells = new ArrayList<>(held.count() + leaf.count());
        for (SlottedPageBuilder b : List.of(held, leaf)) {
            for (int i = 0; i < b.count(); i++) {
                int end = i + 1 < b.count() ? b.cellOffset(i + 1) : b.dataEnd();
                cells.add(Arrays.copyOfRange(b.bytes(), b.cellOffset(i), end));
            }
        }
        int total = bytesOf(held) + bytesOf(leaf);
        held.reset();
        leaf.reset();
        heldTally.exact = false;
        leafTally.exact = false;
        int left = 0;
        for (byte[] c : cells) {
            // Fill the left page up to half the bytes, always leaving the right one a cell.
            boolean toLeft = (held.isEmpty() || 2 * (left + c.length + PageFormat.SLOT_SIZE) <= total)
                    && leaf.isEmpty() && held.fits(c.length);
            SlottedPageBuilder target = toLeft ? held : leaf;
            if (!target.fits(c.length)) {
                throw new IllegalStateException("rebalancing two leaves of " + total + " bytes overflowed a page");
            }
            target.beginCell();
            target.putBytes(c, 0, c.length);
            target.endCell();
            if (toLeft) {
                left += c.length + PageFormat.SLOT_SIZE;
            }
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

    private void checkEntry(byte[] key, long seqno, EntryType type, byte[] value, int valueOffset, int valueLength) {
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
        if (type != EntryType.DELETE) {
            if (value == null) {
                throw new IllegalArgumentException(type + " of key " + InternalKeys.describe(key) + " has a null value");
            }
            if (valueLength > TableOptions.MAX_VALUE_SIZE) {
                throw new IllegalArgumentException("value of " + valueLength + " bytes exceeds the maximum value size of "
                        + TableOptions.MAX_VALUE_SIZE + " bytes");
            }
            java.util.Objects.checkFromIndexSize(valueOffset, valueLength, value.length);
        }
    }

    /** Writes leaf {@code leaf} and records it (min and max key, page, summary) in the lowest interior level. */
    private void writeLeaf(SlottedPageBuilder leaf, LeafTally tally) throws IOException {
        LeafSummary s = tally.summary(leaf, pageSize);
        byte[] page = leaf.finish(PageFormat.TYPE_LEAF, 0, formatVersion);
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
        tally.reset();
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
        byte[] page = b.finish(PageFormat.TYPE_INTERIOR, index + 1, formatVersion);
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
                int root = sink.writePage(level.page.finish(PageFormat.TYPE_INTERIOR, index + 1, formatVersion));
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
     * A packed version gives its page map and the byte offset its footer goes to.
     */
    Footer footer(Shape shape, int bloomPage, int bloomLength, int bloomCrc, int bloomPages, long bloomKeys,
                  long bloomCapacity, long previousFooterOffset, PageSink.PageMap map, long footerOffset,
                  String prefixBloom) {
        boolean empty = entryCount == 0;
        byte[] noKey = new byte[0];
        long livePages = leafCount + overflowPages + interiorPages + bloomPages + 1;
        if (map != null && map.length() == 0) {
            map = null;
        }
        long storedBytes = map != null ? footerOffset + pageSize - (long) sink.firstPage() * pageSize
                : livePages * pageSize;
        return new Footer(pageSize, shape.root(), shape.height(), leafCount, entryCount, tombstoneCount,
                empty ? 0 : minSeqno, empty ? 0 : maxSeqno, bloomPage, bloomLength, bloomCrc,
                (int) Math.min(Integer.MAX_VALUE, overflowPages), userBytes, previousFooterOffset, sink.firstPage(),
                empty ? noKey : firstKey, empty ? noKey : Arrays.copyOf(lastKey, lastKeyLength),
                // An empty packed version maps no page: it is recorded as unpacked.
                formatVersion, bloomKeys, bloomCapacity, livePages,
                map != null && map.length() > 0 ? sink.compression() : Compression.NONE,
                map == null ? 0 : map.offset(), map == null ? 0 : map.length(), map == null ? 0 : map.crc(),
                storedBytes, 0, 0, prefixBloom);
    }

    long entryCount() {
        return entryCount + leaf.count() + (held == null ? 0 : held.count());
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
        return !leaf.isEmpty() || held != null;
    }
}
