package dev.strata.lsm.sstable;

import dev.strata.lsm.LeafEncoding;
import dev.strata.lsm.Compression;

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
    /** How leaf cells are encoded, and the restart interval of prefix-compressed leaves. */
    private final LeafEncoding encoding;
    private final int restartInterval;
    private OpenLeaf leaf;
    /** A full leaf not yet written (balanced cuts only), or null. */
    private OpenLeaf held;
    private OpenLeaf spare;
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
     * A leaf being filled: its page, the summary of its cells (kept as they are added, so that
     * writing the leaf does not parse them again), and its first and last internal keys (for
     * its level-1 cell, and the previous key a prefix-compressed cell shares a prefix with).
     */
    private final class OpenLeaf {
        final SlottedPageBuilder page = new SlottedPageBuilder(pageSize,
                encoding == LeafEncoding.PREFIX ? restartInterval : 0);
        int tombstones;
        long overflowPages;
        long userBytes;
        long minSeqno = Long.MAX_VALUE;
        long maxSeqno = Long.MIN_VALUE;
        /** The first cell's internal key, encoded as interior cells hold it. */
        byte[] firstKey;
        byte[] lastKey = new byte[64];
        int lastKeyLength;
        long lastTrailer;

        int count() {
            return page.count();
        }

        boolean isEmpty() {
            return page.isEmpty();
        }

        /** Bytes of the key that the next cell may leave out: the prefix it shares with the last key, 0 at a restart. */
        int shared(byte[] key) {
            if (page.nextIsRestart()) {
                return 0;
            }
            int m = Arrays.mismatch(lastKey, 0, lastKeyLength, key, 0, key.length);
            return m < 0 ? key.length : m;
        }

        /**
         * Bytes the cell of this entry would take appended now (without its slot), sharing
         * {@code shared} bytes ({@link #shared}; ignored by plain cells) with the last key.
         */
        int cellSize(byte[] key, int shared, long seqno, EntryType type, boolean overflow, int valueLength) {
            if (encoding == LeafEncoding.PLAIN) {
                int keyPart = PageFormat.varintSize(key.length) + key.length + 8;
                return type == EntryType.DELETE ? keyPart : keyPart + 1
                        + (overflow ? PageFormat.OVERFLOW_REF_SIZE : PageFormat.varintSize(valueLength) + valueLength);
            }
            int unshared = key.length - shared;
            int n = PageFormat.varintSize(shared) + PageFormat.varintSize(unshared) + unshared
                    + PageFormat.varlongSize(tag(seqno, type));
            if (type != EntryType.DELETE) {
                n += overflow ? 1 + PageFormat.OVERFLOW_REF_SIZE
                        : PageFormat.varintSize(valueLength << 1) + valueLength;
            }
            return n;
        }

        /**
         * Appends the entry's cell, sharing {@code shared} bytes ({@link #shared}, computed on
         * this leaf as it is now) with the last key; the caller has checked that it fits.
         */
        void add(byte[] key, int shared, long seqno, EntryType type, boolean overflow, byte[] value, int valueOffset,
                 int valueLength, int overflowPage, int overflowCrc) {
            boolean tombstone = type == EntryType.DELETE;
            SlottedPageBuilder b = page;
            if (encoding == LeafEncoding.PLAIN) {
                b.beginCell();
                b.putVarint(key.length);
                b.putBytes(key, 0, key.length);
                b.putLong(InternalKeys.trailer(seqno, type));
                if (!tombstone) {
                    if (overflow) {
                        b.putByte(PageFormat.VALUE_OVERFLOW);
                        b.putInt(overflowPage);
                        b.putInt(valueLength);
                        b.putInt(overflowCrc);
                    } else {
                        b.putByte(PageFormat.VALUE_INLINE);
                        b.putVarint(valueLength);
                        b.putBytes(value, valueOffset, valueLength);
                    }
                }
                b.endCell();
            } else {
                b.beginCell();
                b.putVarint(shared);
                b.putVarint(key.length - shared);
                b.putVarlong(tag(seqno, type));
                if (!tombstone) {
                    b.putVarint(overflow ? PageFormat.VALUE_HEADER_OVERFLOW : valueLength << 1);
                }
                b.putBytes(key, shared, key.length - shared);
                if (overflow) {
                    b.putInt(overflowPage);
                    b.putInt(valueLength);
                    b.putInt(overflowCrc);
                } else if (!tombstone) {
                    b.putBytes(value, valueOffset, valueLength);
                }
                b.endCell();
            }
            userBytes += key.length + (tombstone ? 0 : valueLength);
            overflowPages += overflow ? (valueLength + (long) pageSize - 1) / pageSize : 0;
            tombstones += tombstone ? 1 : 0;
            minSeqno = Math.min(minSeqno, seqno);
            maxSeqno = Math.max(maxSeqno, seqno);
            lastTrailer = InternalKeys.trailer(seqno, type);
            if (lastKey.length < key.length) {
                lastKey = new byte[Math.max(key.length, lastKey.length * 2)];
            }
            System.arraycopy(key, 0, lastKey, 0, key.length);
            lastKeyLength = key.length;
            if (firstKey == null) {
                firstKey = encodedLastKey();
            }
        }

        /** The last cell's internal key, encoded as interior cells hold it. */
        byte[] encodedLastKey() {
            return PageFormat.encodeInternalKey(lastKey, 0, lastKeyLength, lastTrailer);
        }

        LeafSummary summary() {
            return new LeafSummary(page.count(), tombstones, (int) overflowPages, userBytes, minSeqno, maxSeqno);
        }

        /** Whether a cell of the leaf refers to an overflow extent (its extents must stay right before it). */
        boolean hasOverflow() {
            return overflowPages > 0;
        }

        void reset() {
            page.reset();
            tombstones = 0;
            overflowPages = 0;
            userBytes = 0;
            minSeqno = Long.MAX_VALUE;
            maxSeqno = Long.MIN_VALUE;
            firstKey = null;
            lastKeyLength = 0;
        }
    }

    /** A prefix-compressed cell's tag: the sequence number above the entry type's two bits. */
    private static long tag(long seqno, EntryType type) {
        return (seqno << PageFormat.TAG_TYPE_BITS) | type.code();
    }

    /** Root page and height of a finished tree (-1 and 0 when it has no entries). */
    record Shape(int root, int height) {
    }

    /** A builder of the current format whose leaves are cut only when full (and at the end). */
    TreeBuilder(PageSink sink, TableOptions options) {
        this(sink, options, false, PageFormat.FORMAT_VERSION, options.leafEncoding());
    }

    /**
     * A builder with or without balanced cuts (see the class comment) writing format
     * {@code formatVersion} (2 or 3) with leaves of {@code encoding} (prefix-compressed ones,
     * at the options' restart interval, need format 3).
     */
    TreeBuilder(PageSink sink, TableOptions options, boolean balancedCuts, int formatVersion, LeafEncoding encoding) {
        if (formatVersion != PageFormat.FORMAT_VERSION && formatVersion != PageFormat.FORMAT_VERSION_2) {
            throw new IllegalArgumentException("cannot write format version " + formatVersion);
        }
        if (encoding != LeafEncoding.PLAIN && formatVersion != PageFormat.FORMAT_VERSION) {
            throw new IllegalArgumentException("leaf encoding " + encoding + " needs format version "
                    + PageFormat.FORMAT_VERSION);
        }
        this.encoding = encoding;
        this.restartInterval = options.restartInterval();
        if (sink.packed() && formatVersion != PageFormat.FORMAT_VERSION) {
            throw new IllegalArgumentException("compressed pages need format version " + PageFormat.FORMAT_VERSION);
        }
        this.formatVersion = formatVersion;
        this.sink = sink;
        this.pageSize = options.pageSize();
        this.maxKeySize = options.maxKeySize();
        this.maxInlineCell = SlottedPageBuilder.maxCellSize(pageSize) / 2;
        this.balancedCuts = balancedCuts;
        this.leaf = new OpenLeaf();
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
        // Whether the value goes to an overflow extent is decided on the plain cell's size in
        // every encoding, so that the decision does not depend on where the cell falls.
        int keyPart = PageFormat.varintSize(key.length) + key.length + 8;
        boolean tombstone = type == EntryType.DELETE;
        int inlineCell = tombstone ? keyPart : keyPart + 1 + PageFormat.varintSize(valueLength) + valueLength;
        boolean overflow = !tombstone && inlineCell > maxInlineCell;
        // The prefix shared with the leaf's last key is found once (a new leaf starts at a
        // restart: nothing shared).
        int shared = leaf.shared(key);
        int cell = leaf.cellSize(key, shared, seqno, type, overflow, valueLength);
        if (!leaf.page.fits(cell) || leaf.count() == 0xffff) {
            leafFull();
            shared = leaf.shared(key);
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
        leaf.add(key, shared, seqno, type, overflow, value, valueOffset, valueLength, overflowPage, overflowCrc);
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
            if (!leaf.isEmpty() && !leaf.hasOverflow() && !held.hasOverflow()
                    && 2 * leaf.page.bytesUsed() < SlottedPageBuilder.maxCellSize(pageSize)) {
                rebalance();
            }
            writeHeld();
        }
        if (!leaf.isEmpty()) {
            writeLeaf(leaf);
        }
    }

    /** The open leaf is full: write it, or hold it back (balanced cuts) after writing the one held. */
    private void leafFull() throws IOException {
        if (!balancedCuts) {
            writeLeaf(leaf);
            return;
        }
        if (held != null) {
            writeHeld();
        }
        OpenLeaf next = spare != null ? spare : new OpenLeaf();
        spare = null;
        held = leaf;
        leaf = next;
    }

    private void writeHeld() throws IOException {
        writeLeaf(held);
        spare = held;
        held = null;
    }

    /**
     * Splits the cells of the held leaf and the open one evenly between the two (neither has
     * overflow cells). The cells are decoded and written again, since a prefix-compressed cell
     * depends on the cell before it.
     */
    private void rebalance() {
        List<InternalEntry> cells = new ArrayList<>(held.count() + leaf.count());
        LeafDecoder decoder = new LeafDecoder(null, pageSize, Long.MAX_VALUE, encoding);
        for (OpenLeaf l : List.of(held, leaf)) {
            byte[] page = l.page.finish(PageFormat.TYPE_LEAF, 0, formatVersion);
            decoder.reset(page, -1);
            for (decoder.seekToFirst(); decoder.valid(); decoder.next()) {
                LeafCell c = decoder.cell();
                cells.add(new InternalEntry(decoder.currentKey(), c.seqno(), c.type, c.type == EntryType.DELETE
                        ? null : Arrays.copyOfRange(page, c.valueStart, c.valueStart + c.valueLength)));
            }
        }
        int total = held.page.bytesUsed() + leaf.page.bytesUsed();
        held.reset();
        leaf.reset();
        for (InternalEntry e : cells) {
            int valueLength = e.value() == null ? 0 : e.value().length;
            int shared = held.shared(e.key());
            int size = held.cellSize(e.key(), shared, e.seqno(), e.type(), false, valueLength);
            int slot = held.page.nextIsRestart() ? PageFormat.SLOT_SIZE : 0;
            // Fill the left page up to half the bytes, always leaving the right one a cell.
            boolean toLeft = (held.isEmpty() || 2 * (held.page.bytesUsed() + size + slot) <= total)
                    && leaf.isEmpty() && held.page.fits(size);
            OpenLeaf target = toLeft ? held : leaf;
            if (!toLeft) {
                shared = leaf.shared(e.key());
                size = leaf.cellSize(e.key(), shared, e.seqno(), e.type(), false, valueLength);
            }
            if (!target.page.fits(size)) {
                throw new IllegalStateException("rebalancing two leaves of " + total + " bytes overflowed a page");
            }
            target.add(e.key(), shared, e.seqno(), e.type(), false, e.value(), 0, valueLength, 0, 0);
        }
    }

    /** A copy of the last user key added (entry or referenced leaf's max key), or null before the first. */
    byte[] lastUserKey() {
        return hasLast ? Arrays.copyOf(lastKey, lastKeyLength) : null;
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
    private void writeLeaf(OpenLeaf leaf) throws IOException {
        LeafSummary s = leaf.summary();
        byte[] page = leaf.page.finish(PageFormat.TYPE_LEAF, 0, formatVersion);
        assert s.equals(LeafSummary.of(page, pageSize, encoding)) : s;
        int pageNo = sink.writePage(page);
        leafCount++;
        leavesWritten++;
        overflowPages += s.overflowPages();
        entryCount += s.entries();
        tombstoneCount += s.tombstones();
        userBytes += s.userBytes();
        minSeqno = Math.min(minSeqno, s.minSeqno());
        maxSeqno = Math.max(maxSeqno, s.maxSeqno());
        byte[] min = leaf.firstKey;
        byte[] max = leaf.encodedLastKey();
        addChild(0, min, 0, min.length, max, 0, max.length, pageNo, s);
        leaf.reset();
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
        // A spanning map (a packed version merged in place) references frames of earlier
        // versions: its stored bytes are those of the pages it maps, the map and the footer.
        long storedBytes = map == null ? livePages * pageSize
                : sink.spanning() ? map.referencedBytes() + map.length() + pageSize
                : footerOffset + pageSize - (long) sink.firstPage() * pageSize;
        return new Footer(pageSize, shape.root(), shape.height(), leafCount, entryCount, tombstoneCount,
                empty ? 0 : minSeqno, empty ? 0 : maxSeqno, bloomPage, bloomLength, bloomCrc,
                (int) Math.min(Integer.MAX_VALUE, overflowPages), userBytes, previousFooterOffset, sink.firstPage(),
                empty ? noKey : firstKey, empty ? noKey : Arrays.copyOf(lastKey, lastKeyLength),
                // An empty packed version maps no page: it is recorded as unpacked.
                formatVersion, bloomKeys, bloomCapacity, livePages,
                map != null && map.length() > 0 ? sink.compression() : Compression.NONE,
                map == null ? 0 : map.offset(), map == null ? 0 : map.length(), map == null ? 0 : map.crc(),
                storedBytes, 0, 0, formatVersion >= PageFormat.FORMAT_VERSION ? encoding : LeafEncoding.PLAIN, prefixBloom);
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
