package dev.strata.lsm.sstable;

import dev.strata.lsm.LeafEncoding;
import dev.strata.lsm.Compression;
import dev.strata.lsm.CorruptionException;
import dev.strata.lsm.cache.BlockCache;
import dev.strata.lsm.io.AlignedBuffers;
import dev.strata.lsm.io.PageFile;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.zip.CRC32C;

/**
 * Reads one version of an SSTable, identified by the file and the offset of its footer.
 * Opening reads and verifies the footer and the bloom filter (kept in memory); a point
 * lookup then consults the filter and reads exactly {@code height} pages from root to
 * leaf when nothing is cached. Every page read from the file is checksum-verified before
 * use; a failed check is a {@link CorruptionException} naming the file and page. With a
 * block cache, interior pages above level 1 are kept by the reader once a lookup or an
 * iterator's seek has read them, and the other pages go through the cache: a lookup or seek
 * asks the cache for two pages (its level-1 page and its leaf) whatever the table's height.
 *
 * <p>Thread safe. The reader does not own the {@link PageFile}: the caller closes it.
 */
public final class SSTableReader {
    private static final int READ_CHUNK = 1 << 20;
    private static final ThreadLocal<ByteBuffer> PAGE_BUFFER = ThreadLocal.withInitial(
            () -> AlignedBuffers.allocate(TableOptions.MAX_PAGE_SIZE, AlignedBuffers.PAGE_ALIGNMENT));
    /**
     * Each thread's leaf for point lookups, one per page size (slot i holds pages of
     * {@code MIN_PAGE_SIZE << i} bytes): a lookup copies its leaf here from the cache or the
     * file and keeps nothing of it, so no lookup allocates a page.
     */
    private static final ThreadLocal<byte[][]> LOOKUP_LEAF = ThreadLocal.withInitial(() -> new byte[
            Integer.numberOfTrailingZeros(TableOptions.MAX_PAGE_SIZE / TableOptions.MIN_PAGE_SIZE) + 1][]);

    /**
     * Each thread's aligned buffer for reading a packed table's frames: a frame of up to a
     * page and its header, widened to whole 4 KiB blocks on both sides.
     */
    private static final int FRAME_READ_BYTES = TableOptions.MAX_PAGE_SIZE + 3 * PageFormat.BLOCK;
    private static final ThreadLocal<ByteBuffer> FRAME_BUFFER = ThreadLocal.withInitial(
            () -> AlignedBuffers.allocate(FRAME_READ_BYTES, AlignedBuffers.PAGE_ALIGNMENT));
    /** Each thread's copy of the frame being verified and decompressed. */
    private static final ThreadLocal<byte[]> FRAME_BYTES = ThreadLocal.withInitial(
            () -> new byte[TableOptions.MAX_PAGE_SIZE + PageFormat.FRAME_HEADER_SIZE]);

    private final PageFile file;
    private final long fileNumber;
    private final long footerOffset;
    private final BlockCache cache;
    private final Footer footer;
    private final BloomFilter bloom;
    /** The table's range tombstones, loaded whole at open (empty for tables without any). */
    private final RangeTombstones rangeTombstones;
    private final int pageSize;
    /**
     * The root, held by the reader from the first lookup; see {@link UpperPage}.
     * Null until then, while a level-1 root finds no pin budget, and without a block cache (a reader
     * with no cache keeps nothing, so each lookup reads {@code height} pages).
     */
    private volatile UpperPage upperRoot;
    /** The table's fences, read by the first {@link #fences()}; null until then. */
    private volatile TableFences fences;
    /** Packed (compressed) versions: byte offset and stored length of each logical page from the footer's firstPage; else null. */
    private final long[] mapOffsets;
    private final int[] mapLengths;
    /**
     * The logical page of the page map's first entry: the footer's firstPage, or for a
     * spanning map (a packed version merged in place) the page its header names.
     */
    private final int mapBase;
    /** The codec of a packed version's compressed frames; null when unpacked. */
    private final PageCodec codec;
    /** Byte end of the page numbers this version may reference: the footer offset, or the end of the mapped pages. */
    private final long pageLimitOffset;
    /** A scan reader's window that leaves are read through ({@link #openForScan}); null for other readers. */
    private final ReadAheadWindow window;

    /**
     * An interior page held by the reader instead of the block cache. Every lookup reads one
     * page per level; the interior pages are few (about 2% of a table's pages: each covers
     * dozens of leaves) and read by every lookup that reaches them, so asking the cache for
     * them each time costs a hash lookup and a policy update, and keeps them competing with
     * leaves for the cache. The pages above level 1 are held always (they are a fraction of a
     * percent of the table); level-1 pages are held while the cache's pin budget lasts
     * ({@link BlockCache#tryPin}, half its capacity, over every reader of the cache) and read
     * through the cache once it is spent, as RocksDB's table readers hold their index
     * blocks. Children are filled in as lookups first reach them. Immutable but for those
     * lazily filled slots.
     */
    private static final class UpperPage {
        final InteriorPage page;
        /** Slot i holds child i once read (and, at level 1, pinned); null when this page is at level 1. */
        final AtomicReferenceArray<UpperPage> children;
        /** Bytes of the pin budget this page holds: its weight at level 1, 0 above. */
        final long pinned;

        UpperPage(InteriorPage page, int level, long pinned) {
            this.page = page;
            this.children = level >= 2 ? new AtomicReferenceArray<>(page.count()) : null;
            this.pinned = pinned;
        }
    }

    /**
     * The pin budget this reader holds ({@link BlockCache#tryPin}), returned to the cache when
     * the reader's file is deleted ({@link BlockCache#releaseWhenInvalidated}) or by
     * {@link #CLEANER} once the reader is unreachable (a table version dropped by a merge),
     * whichever comes first ({@link #run} is idempotent). Refers to the cache, never to the reader.
     */
    private static final class Pins implements Runnable {
        final BlockCache cache;
        final java.util.concurrent.atomic.AtomicLong held = new java.util.concurrent.atomic.AtomicLong();

        Pins(BlockCache cache) {
            this.cache = cache;
        }

        boolean tryPin(long bytes) {
            if (!cache.tryPin(bytes)) {
                return false;
            }
            held.addAndGet(bytes);
            return true;
        }

        void unpin(long bytes) {
            held.addAndGet(-bytes);
            cache.unpin(bytes);
        }

        @Override
        public void run() {
            cache.unpin(held.getAndSet(0));
        }
    }

    private static final java.lang.ref.Cleaner CLEANER = java.lang.ref.Cleaner.create();

    /** Created with the first pinned page; null until then. */
    private volatile Pins pins;

    private SSTableReader(PageFile file, long fileNumber, long footerOffset, BlockCache cache, Footer footer,
                          BloomFilter bloom, long[] mapOffsets, int[] mapLengths, int mapBase, PageCodec codec,
                          RangeTombstones rangeTombstones, ReadAheadWindow window) {
        this.rangeTombstones = rangeTombstones;
        this.window = window;
        this.mapOffsets = mapOffsets;
        this.mapLengths = mapLengths;
        this.mapBase = mapBase;
        this.codec = codec;
        this.pageLimitOffset = mapOffsets == null ? footerOffset
                : ((long) mapBase + mapOffsets.length) * footer.pageSize();
        this.file = file;
        this.fileNumber = fileNumber;
        this.footerOffset = footerOffset;
        this.cache = cache;
        this.footer = footer;
        this.bloom = bloom;
        this.pageSize = footer.pageSize();
    }

    /**
     * Opens the table version whose footer is the file's last page, trying every legal page
     * size (for a file no manifest describes: repair, bulk ingest, and the check of a damaged
     * manifest's tail). Reads nothing from a block cache.
     *
     * @param fileNumber identifies the file in error messages
     * @throws IOException if no legal page size puts a valid footer at the end of the file
     *                     (a table still being written when its process died has none)
     */
    public static SSTableReader openAtLastFooter(PageFile f, long fileNumber) throws IOException {
        long size = f.size();
        IOException firstFailure = null;
        for (int pageSize = TableOptions.MIN_PAGE_SIZE; pageSize <= TableOptions.MAX_PAGE_SIZE; pageSize <<= 1) {
            if (size < pageSize || size % pageSize != 0) {
                continue;
            }
            try {
                SSTableReader r = open(f, size - pageSize, fileNumber, BlockCache.disabled());
                if (r.footer().pageSize() == pageSize) {
                    return r;
                }
            } catch (IOException | RuntimeException e) {
                if (firstFailure == null) {
                    firstFailure = e instanceof IOException io ? io : new IOException(e.getMessage(), e);
                }
            }
        }
        throw firstFailure != null ? firstFailure : new IOException("no footer at the end of a " + size + "-byte file");
    }

    /**
     * Opens the table version whose footer page starts at {@code footerOffset}.
     *
     * @param fileNumber identifies the file in the block cache
     * @param cache page cache shared between tables; {@link BlockCache#disabled()} for none
     * @throws CorruptionException if the footer or bloom filter fails verification
     */
    public static SSTableReader open(PageFile file, long footerOffset, long fileNumber, BlockCache cache)
            throws IOException {
        Path path = file.path();
        if (footerOffset < 0 || footerOffset % TableOptions.MIN_PAGE_SIZE != 0) {
            throw new IllegalArgumentException("footer offset " + footerOffset + " of " + path
                    + " is not a multiple of " + TableOptions.MIN_PAGE_SIZE);
        }
        byte[] head = readBytes(file, footerOffset, TableOptions.MIN_PAGE_SIZE, "footer");
        int pageSize = Footer.peekPageSize(head);
        if (pageSize < TableOptions.MIN_PAGE_SIZE || pageSize > TableOptions.MAX_PAGE_SIZE
                || Integer.bitCount(pageSize) != 1 || footerOffset % pageSize != 0) {
            // Verify the checksum first so that a damaged page is reported as such.
            Footer.decode(head, path, footerOffset);
            throw new CorruptionException(path, footerOffset, "bad page size " + pageSize
                    + " in footer at offset " + footerOffset + " of " + path);
        }
        byte[] page = pageSize == head.length ? head : readBytes(file, footerOffset, pageSize, "footer");
        Footer footer = Footer.decode(page, path, footerOffset);
        long[] mapOffsets = null;
        int[] mapLengths = null;
        int mapBase = footer.firstPage();
        PageCodec codec = null;
        if (footer.packed()) {
            try {
                codec = PageCodec.of(footer.compression(), Compression.DEFAULT_LEVEL);
            } catch (dev.strata.lsm.ConfigException e) {
                throw new dev.strata.lsm.ConfigException("cannot read " + path + ": " + e.getMessage(), e);
            }
            byte[] map = readRange(file, footer.pageMapOffset(), footer.pageMapLength(), "page map");
            CRC32C crc = new CRC32C();
            crc.update(map);
            if ((int) crc.getValue() != footer.pageMapChecksum()) {
                throw new CorruptionException(path, footer.pageMapOffset(), String.format(
                        "checksum mismatch in the page map at offset %d (%d bytes) of %s: expected 0x%08x, computed 0x%08x",
                        footer.pageMapOffset(), map.length, path, footer.pageMapChecksum(), (int) crc.getValue()));
            }
            int n = footer.mappedPages();
            mapOffsets = new long[n];
            mapLengths = new int[n];
            // A spanning map's entries may name frames of earlier versions, anywhere before it.
            long first = footer.spanningMap() ? 0 : footer.firstOffset();
            int header = 0;
            if (footer.spanningMap()) {
                header = PageFormat.MAP_HEADER_SIZE;
                mapBase = PageFormat.getInt(map, 0);
                if (mapBase < 0 || PageFormat.getInt(map, 4) != 0 || (long) mapBase + n > Integer.MAX_VALUE) {
                    throw new CorruptionException(path, footer.pageMapOffset(), "page map header of " + path
                            + " names first page " + mapBase + " with reserved word " + PageFormat.getInt(map, 4));
                }
            }
            for (int i = 0; i < n; i++) {
                long off = PageFormat.getLong(map, header + i * PageFormat.MAP_ENTRY_SIZE);
                int len = PageFormat.getInt(map, header + i * PageFormat.MAP_ENTRY_SIZE + 8);
                if ((off != 0 || len != 0) && (off < first || len <= 0 || off + len > footer.pageMapOffset())) {
                    throw new CorruptionException(path, footer.pageMapOffset(), "page map entry " + i + " (page "
                            + (mapBase + i) + ") of " + path + " points outside the table: offset " + off
                            + ", length " + len);
                }
                mapOffsets[i] = off;
                mapLengths[i] = len;
            }
        }
        BloomFilter bloom = null;
        if (footer.bloomPage() != PageFormat.NO_PAGE) {
            byte[] bytes = mapOffsets != null
                    ? readMappedExtent(file, footer, mapOffsets, mapLengths, mapBase, footer.bloomPage(), footer.bloomLength(),
                    footer.bloomChecksum(), "bloom filter")
                    : readExtent(file, footer.bloomPage(), footer.bloomLength(), footer.bloomChecksum(),
                    pageSize, "bloom filter");
            bloom = BloomFilter.decode(bytes);
            if (bloom == null) {
                throw new CorruptionException(path, (long) footer.bloomPage() * pageSize,
                        "malformed bloom filter at page " + footer.bloomPage() + " of " + path);
            }
        }
        RangeTombstones tombstones = RangeTombstones.EMPTY;
        if (footer.rangeTombstoneLength() > 0) {
            tombstones = RangeTombstoneExtent.decode(readRange(file, footer.rangeTombstoneOffset(),
                    (int) footer.rangeTombstoneLength(), "range-tombstone extent"), path, footer.rangeTombstoneOffset());
        }
        return new SSTableReader(file, fileNumber, footerOffset, cache, footer, bloom, mapOffsets, mapLengths, mapBase,
                codec, tombstones, null);
    }

    /**
     * Opens the table version whose footer page starts at {@code footerOffset} for one
     * thread's scan in key order, as a merge reads its inputs: no block cache, and leaves are
     * read through a window of the file ({@value ReadAheadWindow#WINDOW_BYTES} bytes a read)
     * rather than a page at a time. Verification is the same as {@link #open}'s (a compressed
     * page's checksum over its stored bytes before it is decompressed). The reader is not
     * thread safe.
     *
     * @param file the table file
     * @param footerOffset where the version's footer page starts
     * @param fileNumber identifies the file in error messages
     * @return the reader
     * @throws IOException if the footer, page map or bloom filter cannot be read
     * @throws CorruptionException if the footer, page map or bloom filter fails verification
     */
    public static SSTableReader openForScan(PageFile file, long footerOffset, long fileNumber) throws IOException {
        return openForScan(file, footerOffset, fileNumber, 1);
    }

    /**
     * {@link #openForScan(PageFile, long, long)} for one of {@code inputs} tables a merge reads
     * at once: the window shrinks (to no less than 16 KiB) so that the inputs' windows together
     * stay within 16 MiB.
     *
     * @param file the table file
     * @param footerOffset where the version's footer page starts
     * @param fileNumber identifies the file in error messages
     * @param inputs how many tables the caller scans at once (at least 1)
     * @return the reader
     * @throws IOException if the footer, page map or bloom filter cannot be read
     * @throws CorruptionException if the footer, page map or bloom filter fails verification
     */
    public static SSTableReader openForScan(PageFile file, long footerOffset, long fileNumber, int inputs)
            throws IOException {
        SSTableReader r = open(file, footerOffset, fileNumber, BlockCache.disabled());
        // The tree's pages end where the bloom filter, written at finish, begins (or the page map, or
        // the footer): the window reads no further, as open() has read what follows already.
        Footer f = r.footer;
        long treeEnd = f.packed() ? f.pageMapOffset() : footerOffset;
        int bloom = f.bloomPage() - r.mapBase;
        if (f.bloomPage() != PageFormat.NO_PAGE) {
            treeEnd = f.packed() ? (bloom >= 0 && bloom < r.mapOffsets.length ? r.mapOffsets[bloom] : treeEnd)
                    : Math.min(treeEnd, (long) f.bloomPage() * r.pageSize);
        }
        return new SSTableReader(file, fileNumber, footerOffset, r.cache, r.footer, r.bloom, r.mapOffsets,
                r.mapLengths, r.mapBase, r.codec, r.rangeTombstones,
                new ReadAheadWindow(file, treeEnd, ReadAheadWindow.forInputs(inputs)));
    }

    /** The table's range tombstones ({@link RangeTombstones#EMPTY} when it has none); never modified. */
    public RangeTombstones rangeTombstones() {
        return rangeTombstones;
    }

    public Footer footer() {
        return footer;
    }

    public long footerOffset() {
        return footerOffset;
    }

    public long fileNumber() {
        return fileNumber;
    }

    public Path path() {
        return file.path();
    }

    /** The bloom filter, null when the table has none; never modified. */
    BloomFilter bloomFilter() {
        return bloom;
    }

    /**
     * Whether the table may hold a key starting with {@code prefix}, as far as its prefix
     * bloom tells: false only when the table's filter was built with {@code extractor} (same
     * name) and says the first {@link dev.strata.lsm.PrefixExtractor#length()} bytes of
     * {@code prefix} are absent. True without an extractor, for a table without a prefix bloom
     * or with another extractor's, and for a prefix shorter than the extractor's length.
     */
    public boolean mayHoldPrefix(dev.strata.lsm.PrefixExtractor extractor, byte[] prefix) {
        if (extractor == null || bloom == null || !extractor.inDomain(prefix)
                || !footer.prefixBloom().equals(extractor.name())) {
            return true;
        }
        return bloom.mightContainPrefix(extractor.prefix(prefix));
    }

    /** Whether the bloom filter admits {@code userKey} (true when the table has no filter). */
    public boolean mightContain(byte[] userKey) {
        return bloom == null || bloom.mightContain(userKey);
    }

    /** The newest entry for {@code userKey}, tombstones included; null when the table has none. */
    public InternalEntry get(byte[] userKey) throws IOException {
        return get(userKey, InternalKeys.MAX_SEQNO);
    }

    /**
     * The newest entry for {@code userKey} whose sequence number is at most
     * {@code snapshotSeqno}, tombstones included; null when the table has none.
     */
    public InternalEntry get(byte[] userKey, long snapshotSeqno) throws IOException {
        return get(userKey, BloomFilter.hash(userKey), snapshotSeqno);
    }

    /**
     * {@link #get(byte[], long)} with the key's filter hash computed by the caller
     * ({@code keyHash} must be {@link BloomFilter#hash}{@code (userKey)}): a point read that
     * probes the filters of several tables hashes the key once.
     */
    public InternalEntry get(byte[] userKey, long keyHash, long snapshotSeqno) throws IOException {
        // Under a global sequence number every entry has it: above the snapshot none is visible;
        // else the key's one entry is, whatever its cell's own number (the search ignores that).
        if (footer.height() == 0 || snapshotSeqno < footer.globalSeqno()
                || (bloom != null && !bloom.mightContainHash(keyHash))) {
            return null;
        }
        if (footer.globalSeqno() != Footer.NO_GLOBAL_SEQNO) {
            snapshotSeqno = InternalKeys.MAX_SEQNO;
        }
        int pageNo = descend(userKey, snapshotSeqno, null, null, null);
        if (pageNo < 0) {
            return null;
        }
        byte[] leaf = leafPage(pageNo, lookupLeaf());
        LeafDecoder d = newLeafDecoder().reset(leaf, pageNo);
        if (d.search(userKey, snapshotSeqno) == d.count() || d.compareCurrentUserKey(userKey) != 0) {
            return null;
        }
        return entry(d);
    }

    /**
     * Walks from the root down to level 1 towards the first entry at or after
     * {@code (userKey, seqno)} and returns the number of the leaf it leads to, or -1 when every
     * entry of the table sorts before it. The pages above level 1 come from the reader's own
     * {@link UpperPage}s (no block-cache lookup), level 1 from the cache or the file. When
     * {@code pages} is not null, each interior level's page image, number and the index of the
     * cell taken are recorded in {@code pages}, {@code pageNumbers} and {@code positions}
     * (indexed by level), as a {@link TableIterator} keeps its path; on -1 the level whose
     * search ran off the end is recorded with the index {@code count}.
     */
    int descend(byte[] userKey, long seqno, byte[][] pages, int[] pageNumbers, int[] positions) throws IOException {
        int pageNo = footer.rootPage();
        int level = footer.height() - 1;
        UpperPage upper = level >= 1 && cache.enabled() ? upperRoot() : null;
        for (; level >= 1; level--) {
            InteriorPage page = upper != null ? upper.page : interiorPage(pageNo, level);
            int i = page.search(userKey, seqno);
            if (pages != null) {
                pages[level] = page.bytes();
                pageNumbers[level] = pageNo;
                positions[level] = i;
            }
            if (i == page.count()) {
                return -1;
            }
            pageNo = page.child(i);
            upper = upper != null && upper.children != null ? upperChild(upper, i, pageNo, level - 1) : null;
        }
        return pageNo;
    }

    /** A new iterator, positioned nowhere until a seek. */
    public TableIterator iterator() {
        return new TableIterator(this);
    }

    /**
     * Where the table's leaves lie in key space, from its interior pages (read once, then
     * kept; see {@link TableFences}).
     *
     * @throws CorruptionException if an interior page fails verification
     */
    public TableFences fences() throws IOException {
        TableFences f = fences;
        if (f == null) {
            f = TableFences.read(this, TableFences.DEFAULT_PAGE_BUDGET);
            fences = f; // a racing call may read them too: same content
        }
        return f;
    }

    // ---- page access (package-private for TableIterator) ----

    /**
     * The verified leaf page {@code pageNo}, from the cache or the file, copied into
     * {@code dest} (a page-sized array the caller owns); returns {@code dest}.
     */
    byte[] leafPage(int pageNo, byte[] dest) throws IOException {
        if (!cache.copyPage(fileNumber, pageNo, dest)) {
            readPage(pageNo, PageFormat.TYPE_LEAF, 0, dest);
            cache.offerPage(fileNumber, pageNo, dest);
        }
        return dest;
    }

    /** A new decoder of this version's leaves (of its leaf encoding). */
    LeafDecoder newLeafDecoder() {
        return new LeafDecoder(file.path(), pageSize, pageLimitOffset, footer.leafEncoding());
    }

    /** A new page-sized array, for a caller that keeps a leaf across calls. */
    byte[] newPageBuffer() {
        return new byte[pageSize];
    }

    private byte[] lookupLeaf() {
        byte[][] leaves = LOOKUP_LEAF.get();
        int i = Integer.numberOfTrailingZeros(pageSize / TableOptions.MIN_PAGE_SIZE);
        byte[] leaf = leaves[i];
        if (leaf == null) {
            leaf = new byte[pageSize];
            leaves[i] = leaf;
        }
        return leaf;
    }

    /**
     * The verified interior page {@code pageNo} at {@code level}, from the cache or the file.
     * Pages read for the cache are indexed for search (see {@link InteriorPage}); without a
     * cache the index would be built for a single search, so it is not.
     */
    InteriorPage interiorPage(int pageNo, int level) throws IOException {
        InteriorPage page = cache.getDecoded(fileNumber, pageNo, InteriorPage.class);
        if (page != null) {
            return page;
        }
        byte[] bytes = readPage(pageNo, PageFormat.TYPE_INTERIOR, level);
        if (!cache.enabled()) {
            return InteriorPage.unindexed(bytes, level);
        }
        page = index(bytes, pageNo, level);
        cache.putDecoded(fileNumber, pageNo, page);
        return page;
    }

    /** The held root, or null when it is a level-1 page the pin budget has no room for. */
    private UpperPage upperRoot() throws IOException {
        UpperPage root = upperRoot;
        if (root == null) {
            int level = footer.height() - 1;
            root = held(footer.rootPage(), level);
            if (root == null) {
                return null;
            }
            synchronized (this) {
                if (upperRoot == null) {
                    upperRoot = root;
                } else {
                    release(root);
                    root = upperRoot;
                }
            }
        }
        return root;
    }

    /** Child i of {@code parent}, held; null when it is a level-1 page the pin budget has no room for. */
    private UpperPage upperChild(UpperPage parent, int i, int pageNo, int level) throws IOException {
        UpperPage child = parent.children.get(i);
        if (child == null) {
            child = held(pageNo, level);
            if (child == null) {
                return null;
            }
            if (!parent.children.compareAndSet(i, null, child)) {
                release(child); // a racing lookup held it first
                child = parent.children.get(i);
            }
        }
        return child;
    }

    /**
     * Reads page {@code pageNo} to be held by this reader, or returns null when it is at level 1
     * and the pin budget has no room for it. A level-1 page is charged its own weight (its
     * image, search index and object headers, {@link InteriorPage#weightBytes()}), reserved
     * after it is read; the budget is first checked for the most a page can weigh (twice the
     * page size), without reserving, so a spent budget costs no read.
     */
    private UpperPage held(int pageNo, int level) throws IOException {
        if (level != 1) {
            return new UpperPage(upperPage(pageNo, level), level, 0);
        }
        if (!cache.pinBudgetHasRoom(2L * pageSize)) {
            return null;
        }
        InteriorPage page = upperPage(pageNo, level);
        long weight = page.weightBytes();
        return pins().tryPin(weight) ? new UpperPage(page, level, weight) : null;
    }

    private void release(UpperPage page) {
        if (page.pinned > 0) {
            pins().unpin(page.pinned);
        }
    }

    private Pins pins() {
        Pins p = pins;
        if (p == null) {
            synchronized (this) {
                p = pins;
                if (p == null) {
                    p = new Pins(cache);
                    CLEANER.register(this, p);
                    // Given back when the file is deleted, or by the cleaner, whichever comes first.
                    cache.releaseWhenInvalidated(fileNumber, p);
                    pins = p;
                }
            }
        }
        return p;
    }

    /** Bytes of level-1 pages this reader holds beside the cache (tests). */
    long pinnedBytes() {
        Pins p = pins;
        return p == null ? 0 : p.held.get();
    }

    /** Like {@link #interiorPage}, but a page read from the file is not put into the cache. */
    private InteriorPage upperPage(int pageNo, int level) throws IOException {
        InteriorPage page = cache.getDecoded(fileNumber, pageNo, InteriorPage.class);
        return page != null ? page : index(readPage(pageNo, PageFormat.TYPE_INTERIOR, level), pageNo, level);
    }

    private InteriorPage index(byte[] bytes, int pageNo, int level) {
        try {
            return InteriorPage.indexed(bytes, level);
        } catch (IndexOutOfBoundsException | IllegalArgumentException e) {
            throw new CorruptionException(file.path(), (long) pageNo * pageSize, "malformed cell in interior page "
                    + pageNo + " of " + file.path(), e);
        }
    }

    /** Reads page {@code pageNo} from the file and verifies its checksum, type, level and slots. */
    private byte[] readPage(int pageNo, byte type, int level) throws IOException {
        return readPage(pageNo, type, level, new byte[pageSize]);
    }

    /** Like {@link #readPage(int, byte, int)}, into {@code page}, a page-sized array; returns it. */
    private byte[] readPage(int pageNo, byte type, int level, byte[] page) throws IOException {
        // A scan reads its leaves through the window; interior pages, read out of file order, alone.
        ReadAheadWindow ahead = type == PageFormat.TYPE_LEAF ? window : null;
        if (mapOffsets != null) {
            readFrame(pageNo, page, ahead);
            verifyPage(page, pageNo, type, level);
            return page;
        }
        long offset = (long) pageNo * pageSize;
        if (pageNo < 0 || offset >= footerOffset) {
            throw new CorruptionException(file.path(), footerOffset, "reference to page " + pageNo
                    + " beyond the footer of " + file.path());
        }
        if (ahead != null && readAhead(ahead, offset, pageSize, page, "page " + pageNo)) {
            verifyPage(page, pageNo, type, level);
            return page;
        }
        ByteBuffer buf = PAGE_BUFFER.get();
        buf.clear().limit(pageSize);
        try {
            file.readFully(buf, offset);
        } catch (EOFException e) {
            throw new CorruptionException(file.path(), offset, "page " + pageNo + " of " + file.path()
                    + " lies beyond the end of the file", e);
        }
        buf.flip().get(page);
        verifyPage(page, pageNo, type, level);
        return page;
    }

    /**
     * Packed versions: reads logical page {@code pageNo}'s frame, verifies its checksum (over
     * the stored, compressed bytes) and header, and decompresses it into {@code page}.
     */
    private void readFrame(int pageNo, byte[] page, ReadAheadWindow ahead) throws IOException {
        int i = pageNo - mapBase;
        if (i < 0 || i >= mapOffsets.length || mapLengths[i] == 0) {
            throw new CorruptionException(file.path(), footerOffset, "reference to page " + pageNo
                    + ", which the page map of " + file.path() + " does not hold");
        }
        long offset = mapOffsets[i];
        int length = mapLengths[i];
        if (length < PageFormat.FRAME_HEADER_SIZE || length > PageFormat.FRAME_HEADER_SIZE + pageSize) {
            throw corruptFrame(pageNo, offset, "stored length " + length + " is impossible for a "
                    + pageSize + "-byte page");
        }
        byte[] frame = FRAME_BYTES.get();
        if (ahead == null || !readAhead(ahead, offset, length, frame, "page " + pageNo)) {
            readRange(file, offset, length, frame, "page " + pageNo);
        }
        int stored = PageFormat.getInt(frame, PageFormat.OFF_CRC);
        int actual = PageFormat.pageChecksum(frame, length);
        if (stored != actual) {
            throw corruptFrame(pageNo, offset, String.format("checksum mismatch over the %d stored bytes: stored "
                    + "0x%08x, computed 0x%08x", length, stored, actual));
        }
        int codecId = frame[PageFormat.FRAME_OFF_CODEC] & 0xff;
        int payload = PageFormat.getInt(frame, PageFormat.FRAME_OFF_LENGTH);
        if (PageFormat.getInt(frame, PageFormat.FRAME_OFF_PAGE) != pageNo
                || payload != length - PageFormat.FRAME_HEADER_SIZE
                || (codecId != Compression.NONE.id() && codecId != codec.compression().id())
                || (codecId == Compression.NONE.id() && payload != pageSize)) {
            throw corruptFrame(pageNo, offset, "frame header names page " + PageFormat.getInt(frame,
                    PageFormat.FRAME_OFF_PAGE) + ", codec " + codecId + ", " + payload + " payload bytes");
        }
        if (codecId == Compression.NONE.id()) {
            System.arraycopy(frame, PageFormat.FRAME_HEADER_SIZE, page, 0, pageSize);
            return;
        }
        long start = System.nanoTime();
        try {
            codec.decompress(frame, PageFormat.FRAME_HEADER_SIZE, payload, page, pageSize);
        } catch (Exception | LinkageError | AssertionError e) {
            throw corruptFrame(pageNo, offset, codec.compression() + " cannot decompress it (" + e + ")", e);
        } finally {
            cache.recordDecompression(System.nanoTime() - start);
        }
    }

    /** {@link ReadAheadWindow#read}, with a file that ends too soon reported as corruption. */
    private boolean readAhead(ReadAheadWindow ahead, long offset, int length, byte[] dest, String what)
            throws IOException {
        try {
            return ahead.read(offset, length, dest);
        } catch (EOFException e) {
            throw new CorruptionException(file.path(), offset, what + " at offset " + offset + " (" + length
                    + " bytes) of " + file.path() + " lies beyond the end of the file", e);
        }
    }

    private CorruptionException corruptFrame(int pageNo, long offset, String problem) {
        return corruptFrame(pageNo, offset, problem, null);
    }

    private CorruptionException corruptFrame(int pageNo, long offset, String problem, Throwable cause) {
        String message = "corrupt compressed page " + pageNo + " (offset " + offset + ") of " + file.path() + ": "
                + problem;
        return cause == null ? new CorruptionException(file.path(), offset, message)
                : new CorruptionException(file.path(), offset, message, cause);
    }

    /**
     * Reads {@code length} bytes at {@code offset} into a new array through whole aligned
     * 4 KiB blocks (so an O_DIRECT file reads them directly).
     */
    private static byte[] readRange(PageFile file, long offset, int length, String what) throws IOException {
        byte[] dest = new byte[length];
        readRange(file, offset, length, dest, what);
        return dest;
    }

    /** {@link #readRange(PageFile, long, int, String)} into {@code dest} from index 0. */
    private static void readRange(PageFile file, long offset, int length, byte[] dest, String what)
            throws IOException {
        long start = offset / PageFormat.BLOCK * PageFormat.BLOCK;
        long end = (offset + length + PageFormat.BLOCK - 1) / PageFormat.BLOCK * PageFormat.BLOCK;
        ByteBuffer buf = end - start <= FRAME_READ_BYTES ? FRAME_BUFFER.get()
                : AlignedBuffers.allocate((int) Math.min(end - start, READ_CHUNK), AlignedBuffers.PAGE_ALIGNMENT);
        long pos = start;
        try {
            while (pos < end) {
                int n = (int) Math.min(buf.capacity(), end - pos);
                buf.clear().limit(n);
                file.readFully(buf, pos);
                long from = Math.max(pos, offset);
                long to = Math.min(pos + n, offset + length);
                if (to > from) {
                    buf.position((int) (from - pos));
                    buf.get(dest, (int) (from - offset), (int) (to - from));
                }
                pos += n;
            }
        } catch (EOFException e) {
            throw new CorruptionException(file.path(), offset, what + " at offset " + offset + " (" + length
                    + " bytes) of " + file.path() + " lies beyond the end of the file", e);
        }
    }

    /**
     * Packed versions: reads the unpadded extent of {@code length} bytes at logical page
     * {@code firstPage} and verifies its CRC32C.
     */
    private static byte[] readMappedExtent(PageFile file, Footer footer, long[] mapOffsets, int[] mapLengths,
                                           int mapBase, int firstPage, int length, int expectedCrc, String what)
            throws IOException {
        int i = firstPage - mapBase;
        if (i < 0 || i >= mapOffsets.length || mapLengths[i] != length) {
            throw new CorruptionException(file.path(), footer.pageMapOffset(), what + " at page " + firstPage
                    + " of " + file.path() + " (" + length + " bytes) is not in the page map");
        }
        byte[] value = readRange(file, mapOffsets[i], length, what);
        CRC32C crc = new CRC32C();
        crc.update(value);
        if ((int) crc.getValue() != expectedCrc) {
            throw new CorruptionException(file.path(), mapOffsets[i], String.format(
                    "checksum mismatch in %s at page %d (offset %d, %d bytes) of %s: expected 0x%08x, computed 0x%08x",
                    what, firstPage, mapOffsets[i], length, file.path(), expectedCrc, (int) crc.getValue()));
        }
        return value;
    }

    private void verifyPage(byte[] page, int pageNo, byte type, int level) {
        long offset = (long) pageNo * pageSize;
        int stored = PageFormat.getInt(page, PageFormat.OFF_CRC);
        int actual = PageFormat.pageChecksum(page, pageSize);
        if (stored != actual) {
            throw new CorruptionException(file.path(), offset, String.format(
                    "checksum mismatch in page %d (offset %d) of %s: stored 0x%08x, computed 0x%08x",
                    pageNo, offset, file.path(), stored, actual));
        }
        int actualType = page[PageFormat.OFF_TYPE];
        int actualLevel = page[PageFormat.OFF_LEVEL] & 0xff;
        int count = TreePages.count(page);
        int dataEnd = PageFormat.getInt(page, PageFormat.OFF_DATA_END);
        // A prefix-compressed leaf has a slot per restart only (checked by checkRestarts).
        boolean prefixLeaf = type == PageFormat.TYPE_LEAF && footer.leafEncoding() == LeafEncoding.PREFIX;
        String problem = null;
        if (actualType != type || actualLevel != level) {
            problem = "expected a " + PageFormat.typeName(type) + " page at level " + level + ", found a "
                    + PageFormat.typeName(actualType) + " page at level " + actualLevel;
        } else if (PageFormat.getShort(page, PageFormat.OFF_VERSION) != footer.pageFormatVersion()) {
            // Every page of a table version has its footer's format version (a version-1 file
            // is never merged in place, so no version references pages of another format).
            problem = "page format version " + PageFormat.getShort(page, PageFormat.OFF_VERSION)
                    + " in a table of format version " + footer.pageFormatVersion();
        } else if (count <= 0 || dataEnd < PageFormat.HEADER_SIZE
                || (long) dataEnd + (long) (prefixLeaf ? 0 : count) * PageFormat.SLOT_SIZE > pageSize) {
            problem = "bad cell count " + count + " or data end " + dataEnd;
        } else if (prefixLeaf) {
            problem = checkRestarts(page, count, dataEnd);
        } else {
            for (int i = 0; i < count; i++) {
                int off = TreePages.cellOffset(page, i);
                if (off < PageFormat.HEADER_SIZE || off >= dataEnd) {
                    problem = "slot " + i + " points to offset " + off + " outside the cell area";
                    break;
                }
            }
        }
        if (problem != null) {
            throw new CorruptionException(file.path(), offset, problem + " in page " + pageNo + " of " + file.path());
        }
    }

    /** The sequence number of {@code cell}: the footer's global one if it has one, else the cell's. */
    long seqno(LeafCell cell) {
        long global = footer.globalSeqno();
        return global != Footer.NO_GLOBAL_SEQNO ? global : cell.seqno();
    }

    /** The entry at the decoder's position (key and value copied), reading an overflow value if it has one. */
    InternalEntry entry(LeafDecoder d) throws IOException {
        LeafCell cell = d.cell();
        byte[] key = d.currentKey();
        if (cell.type == EntryType.DELETE) {
            return new InternalEntry(key, seqno(cell), cell.type, null);
        }
        byte[] value = cell.inline()
                ? java.util.Arrays.copyOfRange(d.page(), cell.valueStart, cell.valueStart + cell.valueLength)
                : overflowValue(cell);
        return new InternalEntry(key, seqno(cell), cell.type, value);
    }

    /** Packed versions: the logical page of the page map's first entry. */
    int mapBase() {
        return mapBase;
    }

    /** Packed versions: logical pages the page map covers from {@link #mapBase()}. */
    int mappedPages() {
        return mapOffsets == null ? 0 : mapOffsets.length;
    }

    /**
     * Packed versions: the byte offset of logical page {@code pageNo}'s stored bytes (0 for an
     * extent's continuation page).
     *
     * @throws CorruptionException if the map does not cover the page
     */
    long mappedOffset(int pageNo) {
        return mapOffsets[mapIndex(pageNo)];
    }

    /** Packed versions: the stored length of logical page {@code pageNo} (0 for a continuation page). */
    int mappedLength(int pageNo) {
        return mapLengths[mapIndex(pageNo)];
    }

    private int mapIndex(int pageNo) {
        int i = pageNo - mapBase;
        if (mapOffsets == null || i < 0 || i >= mapOffsets.length) {
            throw new CorruptionException(file.path(), footerOffset, "reference to page " + pageNo
                    + ", which the page map of " + file.path() + " does not hold");
        }
        return i;
    }

    /** Reads and verifies the overflow value of a cell a {@link LeafDecoder} found. */
    byte[] overflowValue(LeafCell cell) throws IOException {
        if (mapOffsets != null) {
            return readMappedExtent(file, footer, mapOffsets, mapLengths, mapBase, cell.overflowPage, cell.valueLength,
                    cell.overflowCrc, "overflow value");
        }
        return readExtent(file, cell.overflowPage, cell.valueLength, cell.overflowCrc, pageSize, "overflow value");
    }

    /**
     * The restart array of a prefix-compressed leaf: the interval N (u16 at the page's end) is
     * at least 1, the {@code ceil(count / N)} restart offsets fit between the cells and the tail,
     * the first is the first cell, and they ascend inside the cell area. Null when all hold.
     */
    private String checkRestarts(byte[] page, int count, int dataEnd) {
        int slotBase = pageSize - PageFormat.RESTART_TAIL_SIZE;
        int interval = PageFormat.getShort(page, slotBase);
        if (interval == 0) {
            return "restart interval 0";
        }
        long restarts = ((long) count + interval - 1) / interval;
        if (dataEnd + restarts * PageFormat.SLOT_SIZE > slotBase) {
            return count + " cells at restart interval " + interval + " need " + restarts
                    + " restart slots, which overlap the cells ending at " + dataEnd;
        }
        int previous = -1;
        for (int r = 0; r < restarts; r++) {
            int off = PageFormat.getShort(page, slotBase - PageFormat.SLOT_SIZE * (r + 1));
            if (off <= previous || off >= dataEnd || (r == 0 && off != PageFormat.HEADER_SIZE)) {
                return "restart " + r + " points to offset " + off + " (previous " + previous
                        + ", cells end at " + dataEnd + ")";
            }
            previous = off;
        }
        return null;
    }

    private static byte[] readBytes(PageFile file, long offset, int length, String what) throws IOException {
        ByteBuffer buf = PAGE_BUFFER.get();
        buf.clear().limit(length);
        try {
            file.readFully(buf, offset);
        } catch (EOFException e) {
            throw new CorruptionException(file.path(), offset, what + " at offset " + offset + " of " + file.path()
                    + " lies beyond the end of the file", e);
        }
        byte[] bytes = new byte[length];
        buf.flip().get(bytes);
        return bytes;
    }

    /**
     * Reads the extent of {@code length} bytes at {@code firstPage} plus its padding to a
     * whole page, verifies its CRC32C and returns the unpadded bytes.
     */
    private static byte[] readExtent(PageFile file, int firstPage, int length, int expectedCrc, int pageSize,
                                     String what) throws IOException {
        long offset = (long) firstPage * pageSize;
        long padded = ((long) length + pageSize - 1) / pageSize * pageSize;
        byte[] value = new byte[length];
        CRC32C crc = new CRC32C();
        ByteBuffer buf = padded <= TableOptions.MAX_PAGE_SIZE ? PAGE_BUFFER.get()
                : AlignedBuffers.allocate((int) Math.min(padded, READ_CHUNK), AlignedBuffers.PAGE_ALIGNMENT);
        long done = 0;
        try {
            while (done < padded) {
                int n = (int) Math.min(buf.capacity(), padded - done);
                buf.clear().limit(n);
                file.readFully(buf, offset + done);
                buf.flip();
                crc.update(buf.duplicate());
                int useful = (int) Math.max(0, Math.min(n, length - done));
                buf.get(value, (int) done, useful);
                done += n;
            }
        } catch (EOFException e) {
            throw new CorruptionException(file.path(), offset, what + " at page " + firstPage + " of " + file.path()
                    + " lies beyond the end of the file", e);
        }
        int actual = (int) crc.getValue();
        if (actual != expectedCrc) {
            throw new CorruptionException(file.path(), offset, String.format(
                    "checksum mismatch in %s at page %d (offset %d, %d bytes) of %s: expected 0x%08x, computed 0x%08x",
                    what, firstPage, offset, length, file.path(), expectedCrc, actual));
        }
        return value;
    }
}
