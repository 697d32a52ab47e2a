package dev.strata.lsm.sstable;

import dev.strata.lsm.Compression;
import dev.strata.lsm.PrefixExtractor;
import dev.strata.lsm.io.PageFile;

import java.io.IOException;
import java.util.Arrays;

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
 * previous one ({@link BlockMergeWriter} does so and reuses the previous version's clean
 * leaves). The writer does not force the file: the caller decides durability.
 *
 * <p>Not thread safe: one thread adds entries.
 */
public final class SSTableWriter {
    private final PageFile file;
    private final TableOptions options;
    private final long previousFooterOffset;
    private final PageSink sink;
    private final TreeBuilder tree;

    /**
     * The bloom hashes of the distinct keys, in chunks of {@value #HASH_CHUNK} (the first one
     * grows to that size): a large table's hashes are never copied to grow.
     */
    private static final int HASH_CHUNK = 1 << 14;
    private long[][] keyHashes = {new long[1024]};
    private int keyHashCount;
    private boolean finished;
    /** The table's range tombstones, written into its range-tombstone extent at finish. */
    private RangeTombstones rangeTombstones = RangeTombstones.EMPTY;

    /** Starts a table with no previous version. */
    public SSTableWriter(PageFile file, TableOptions options) throws IOException {
        this(file, options, -1);
    }

    /**
     * Starts a table that records {@code previousFooterOffset} as the version it derives
     * from (-1 for none).
     */
    public SSTableWriter(PageFile file, TableOptions options, long previousFooterOffset) throws IOException {
        if (previousFooterOffset >= 0 && options.compression() != Compression.NONE) {
            // A packed version with a previous one has a spanning page map: only the reusing
            // writer (BlockMergeWriter) writes those.
            throw new IllegalArgumentException("a compressed table is written whole (no previous version); "
                    + "got previous footer offset " + previousFooterOffset + " for " + file.path());
        }
        this.file = file;
        this.options = options;
        this.previousFooterOffset = previousFooterOffset;
        this.sink = new PageSink(file, options.pageSize(), options.compression() == Compression.NONE ? null
                : PageCodec.of(options.compression(), options.compressionLevel(),
                        options.lz4Acceleration()), options.parallelCompression());
        this.tree = new TreeBuilder(sink, options);
    }

    /** The options this table is written with. */
    public TableOptions options() {
        return options;
    }

    /** Entries added so far. */
    public long entryCount() {
        return tree.entryCount();
    }

    /**
     * A copy of the user key of the last entry added (or the max key of the last leaf
     * referenced), or null before the first; for error messages, not for every entry's path.
     *
     * @return a fresh array holding the last user key, or null when nothing was added
     */
    public byte[] lastKey() {
        return tree.lastUserKey();
    }

    /**
     * Approximate bytes this table occupies in its file so far (compressed pages count with
     * their stored size), for cutting outputs at a target size.
     */
    public long estimatedBytes() {
        return sink.bytesWritten() + options.pageSize();
    }

    /** Tree pages written compressed so far (0 without a codec). */
    public long pagesCompressed() {
        return sink.pagesCompressed();
    }

    /** Tree pages written as they are because compressing them saved less than 1/8 (0 without a codec). */
    public long pagesStoredUncompressed() {
        return sink.pagesStored();
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
        add(key, seqno, type, value, 0, value == null ? 0 : value.length);
    }

    /**
     * Adds the next internal entry with its value given as {@code valueLength} bytes of
     * {@code value} from {@code valueOffset} (null for a tombstone), as a merge hands on a
     * value still in its input's page; see {@link #add(byte[], long, EntryType, byte[])}.
     */
    public void add(byte[] key, long seqno, EntryType type, byte[] value, int valueOffset, int valueLength)
            throws IOException {
        if (finished) {
            throw new IllegalStateException("SSTable writer for " + file.path() + " is already finished");
        }
        if (tree.add(key, seqno, type, value, valueOffset, valueLength) && options.bloomBitsPerKey() > 0) {
            addKeyHash(BloomFilter.hash(key));
            PrefixExtractor extractor = options.prefixExtractor();
            // Keys arrive sorted, so the keys sharing a prefix are adjacent: each distinct
            // prefix is added once.
            if (extractor != null && extractor.inDomain(key) && (lastPrefix == null
                    || !Arrays.equals(key, 0, extractor.length(), lastPrefix, 0, lastPrefix.length))) {
                lastPrefix = extractor.prefix(key);
                addKeyHash(BloomFilter.prefixHash(lastPrefix));
            }
        }
    }

    /** The last prefix added to the filter (null before the first). */
    private byte[] lastPrefix;

    private void addKeyHash(long hash) {
        int chunk = keyHashCount / HASH_CHUNK;
        int at = keyHashCount % HASH_CHUNK;
        if (chunk == keyHashes.length) {
            keyHashes = Arrays.copyOf(keyHashes, chunk * 2);
        }
        long[] c = keyHashes[chunk];
        if (c == null) {
            c = keyHashes[chunk] = new long[HASH_CHUNK];
        } else if (at == c.length) {
            c = keyHashes[chunk] = Arrays.copyOf(c, c.length * 2); // the first chunk, still growing
        }
        c[at] = hash;
        keyHashCount++;
    }

    /**
     * Sets the range tombstones the table holds (replacing any set before), written at
     * {@link #finish} into its range-tombstone extent; its key bounds then cover them. Only
     * for tables of format 3 and later.
     */
    public void rangeTombstones(RangeTombstones tombstones) {
        if (finished) {
            throw new IllegalStateException("SSTable writer for " + file.path() + " is already finished");
        }
        rangeTombstones = tombstones;
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
     * Closes the tree, writes the bloom filter (sized for the distinct keys plus the
     * options' reserve) and the footer, and hands every byte to the file (without forcing it).
     */
    public FinishedTable finish() throws IOException {
        if (finished) {
            throw new IllegalStateException("SSTable writer for " + file.path() + " is already finished");
        }
        finished = true;
        TreeBuilder.Shape shape = tree.finish();
        int bloomPage = PageFormat.NO_PAGE;
        int bloomLength = 0;
        int bloomCrc = 0;
        long capacity = 0;
        if (options.bloomBitsPerKey() > 0 && keyHashCount > 0) {
            capacity = options.bloomCapacity(keyHashCount);
            byte[] bloom = BloomFilter.build(keyHashes, keyHashCount, capacity, options.bloomBitsPerKey()).encode();
            bloomPage = sink.nextPage();
            bloomLength = bloom.length;
            bloomCrc = sink.writeExtent(bloom, bloom.length);
        }
        int bloomPages = bloomPage == PageFormat.NO_PAGE ? 0 : sink.nextPage() - bloomPage;
        long rtOffset = 0;
        int rtLength = 0;
        int rtPages = 0;
        if (!rangeTombstones.isEmpty()) {
            byte[] extent = RangeTombstoneExtent.encode(rangeTombstones);
            int before = sink.nextPage();
            rtOffset = sink.writeUnmappedExtent(extent);
            rtPages = sink.nextPage() - before;
            rtLength = extent.length;
        }
        PageSink.PageMap map = sink.packed() ? sink.writePageMap() : null;
        long footerOffset = sink.alignForFooter();
        Footer footer = tree.footer(shape, bloomPage, bloomLength, bloomCrc, bloomPages,
                bloomPage == PageFormat.NO_PAGE ? 0 : keyHashCount, capacity, previousFooterOffset, map, footerOffset,
                bloomPage == PageFormat.NO_PAGE ? "" : options.prefixBloomName());
        if (rtLength > 0) {
            if (footer.formatVersion() < PageFormat.FORMAT_VERSION) {
                throw new IllegalStateException("a table of format " + footer.formatVersion()
                        + " cannot hold range tombstones: " + file.path());
            }
            footer = footer.withRangeTombstones(rangeTombstones, rtOffset, rtLength, rtPages);
        }
        int footerPage = sink.writeFooter(footer.encode());
        sink.flush();
        return new FinishedTable((long) footerPage * options.pageSize(), footer);
    }

    /**
     * Appends to {@code file}, a table file whose last footer is {@code footer}
     * ({@link Footer#acceptsGlobalSeqno()}), a format-4 copy of that footer giving every entry
     * sequence number {@code seq} (docs/format.md, "Footer page"), at the end of the file, and
     * forces the file. The table's other pages are left as they are; the old footer stays a
     * valid (older) version. Bulk ingest adopts a table written outside the store this way,
     * without reading or rewriting its entries.
     *
     * @throws IOException if the file does not end on a page boundary
     */
    public static FinishedTable appendGlobalSeqno(PageFile file, Footer footer, long seq) throws IOException {
        Footer f = footer.withGlobalSeqno(seq);
        long at = file.size();
        if (at % f.pageSize() != 0) {
            throw new IOException(file.path() + " is " + at + " bytes, not a whole number of " + f.pageSize()
                    + "-byte pages");
        }
        java.nio.ByteBuffer page = dev.strata.lsm.io.AlignedBuffers.allocate(f.pageSize(),
                dev.strata.lsm.io.AlignedBuffers.PAGE_ALIGNMENT);
        page.put(f.encode()).flip();
        file.write(page, at);
        file.force(true);
        return new FinishedTable(at, f);
    }
}
