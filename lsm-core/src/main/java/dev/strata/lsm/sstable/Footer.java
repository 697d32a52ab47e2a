package dev.strata.lsm.sstable;

import dev.strata.lsm.LeafEncoding;
import dev.strata.lsm.Compression;
import dev.strata.lsm.CorruptionException;

import java.nio.file.Path;

/**
 * The last page of every table version: where the tree and the bloom filter are, and what
 * the table holds. A table is opened at the byte offset of its footer, so a file can hold
 * several versions of a table, each with its own footer. Layout in docs/format.md.
 *
 * @param pageSize bytes per page
 * @param rootPage page number of the root, -1 for an empty table
 * @param height pages from root to leaf inclusive; 0 for an empty table
 * @param leafCount number of leaf pages reachable from the root
 * @param entryCount internal entries (all versions, tombstones included)
 * @param tombstoneCount DELETE entries
 * @param minSeqno smallest sequence number (0 when empty)
 * @param maxSeqno largest sequence number (0 when empty)
 * @param bloomPage first page of the bloom filter extent, -1 without a filter
 * @param bloomLength bytes of the bloom filter extent before padding
 * @param bloomChecksum CRC32C of the bloom extent including its padding to a page
 * @param overflowPageCount pages of the overflow extents this version's leaves reference
 * @param userBytes sum of user key and value lengths of all entries
 * @param previousFooterOffset footer offset of the version this one was derived from, -1 if none
 * @param firstPage first page written for this version
 * @param minKey smallest user key (empty when the table is empty)
 * @param maxKey largest user key (empty when the table is empty)
 * @param formatVersion the table format version (1 to 3); this code writes 3, and 4 for a
 *     version-3 table given a global sequence number by ingest ({@link #globalSeqno()})
 * @param bloomKeys keys added to the bloom filter since it was built, counting only keys
 *     that set at least one bit (so an upper bound of the filter's effective load); 0 without
 *     a filter. For format 1, the number of distinct keys is not recorded: 0.
 * @param bloomCapacity keys the bloom filter is sized for at the table's bits per key
 *     (distinct keys at build time plus the reserve); 0 for format 1 or without a filter
 * @param livePages pages this version references: its tree (leaves of earlier versions
 *     included), their overflow extents, its bloom extent and its footer. Times the page
 *     size, the version's logical size; the file's physical size is larger when earlier
 *     versions' pages are still in it.
 * @param compression (v3) the codec of the version's pages; {@link Compression#NONE} before v3
 * @param pageMapOffset (v3) byte offset of the page map of a packed (compressed) version; 0
 *     when its pages lie at {@code pageNo·P}
 * @param pageMapLength (v3) bytes of the page map (12 per logical page); 0 without one
 * @param pageMapChecksum (v3) CRC32C of the page map's bytes
 * @param storedBytes bytes of the file this version references: {@code livePages·P} for an
 *     unpacked version, from its first page to the end of its footer for a packed one
 * @param rangeTombstoneOffset (v3) byte offset of the range-tombstone extent
 *     ({@link RangeTombstoneExtent}), 0 when the table has no range tombstones
 * @param rangeTombstoneLength (v3) bytes of the range-tombstone extent, 0 without one
 * @param leafEncoding (v3) how the version's leaf cells are encoded; {@link LeafEncoding#PLAIN}
 *     before v3. Every leaf a version references has its encoding (an in-place merge keeps its
 *     base's)
 * @param prefixBloom (v3, optional trailer) the name of the {@link dev.strata.lsm.PrefixExtractor}
 *     whose prefixes the bloom filter also holds ({@code fixed:N}), "" when it holds whole
 *     keys only; a prefix scan trusts the filter for a prefix only under the same name
 */
public record Footer(int pageSize, int rootPage, int height, int leafCount, long entryCount,
                     long tombstoneCount, long minSeqno, long maxSeqno, int bloomPage, int bloomLength,
                     int bloomChecksum, int overflowPageCount, long userBytes, long previousFooterOffset,
                     int firstPage, byte[] minKey, byte[] maxKey, int formatVersion, long bloomKeys,
                     long bloomCapacity, long livePages, Compression compression, long pageMapOffset,
                     int pageMapLength, int pageMapChecksum, long storedBytes, long rangeTombstoneOffset,
                     long rangeTombstoneLength, LeafEncoding leafEncoding, String prefixBloom) {

    /** "STRATSST" in ASCII. */
    public static final long MAGIC = 0x5354524154535354L;
    /** The SSTable format version this code writes (it also reads version 1). */
    public static final int FORMAT_VERSION = PageFormat.FORMAT_VERSION;

    /** Version 4: the global sequence number, in the header's reserved bytes 8-15. */
    private static final int OFF_GLOBAL_SEQNO = 8;
    /** {@link #globalSeqno()} of a footer that has none. */
    public static final long NO_GLOBAL_SEQNO = -1;
    private static final int OFF_MAGIC = 16;
    private static final int OFF_PAGE_SIZE = 24;
    private static final int OFF_ROOT = 28;
    private static final int OFF_HEIGHT = 32;
    private static final int OFF_LEAVES = 36;
    private static final int OFF_ENTRIES = 40;
    private static final int OFF_TOMBSTONES = 48;
    private static final int OFF_MIN_SEQ = 56;
    private static final int OFF_MAX_SEQ = 64;
    private static final int OFF_BLOOM_PAGE = 72;
    private static final int OFF_BLOOM_LENGTH = 76;
    private static final int OFF_BLOOM_CRC = 80;
    private static final int OFF_OVERFLOW_PAGES = 84;
    private static final int OFF_USER_BYTES = 88;
    private static final int OFF_PREVIOUS = 96;
    private static final int OFF_FIRST_PAGE = 104;
    /** Version 1: the key bounds follow firstPage. */
    private static final int OFF_KEYS_V1 = 108;
    private static final int OFF_BLOOM_KEYS = 108;
    private static final int OFF_BLOOM_CAPACITY = 116;
    private static final int OFF_LIVE_PAGES = 124;
    /** Version 2: the key bounds follow the bloom counts and the live page count. */
    private static final int OFF_KEYS_V2 = 132;
    /** Version 3: codec, leaf encoding, page map, stored bytes and the reserved range-tombstone extent. */
    private static final int OFF_CODEC = 132;
    private static final int OFF_LEAF_ENCODING = 133;
    /** (v3) 0: the page map starts at firstPage; 1: a spanning map (header with its first page). */
    private static final int OFF_MAP_KIND = 134;
    private static final int OFF_MAP_OFFSET = 136;
    private static final int OFF_MAP_LENGTH = 144;
    private static final int OFF_MAP_CRC = 148;
    private static final int OFF_STORED_BYTES = 152;
    private static final int OFF_RANGE_TOMBSTONE_OFFSET = 160;
    private static final int OFF_RANGE_TOMBSTONE_LENGTH = 168;
    private static final int OFF_KEYS_V3 = 176;
    /**
     * "PFX1": tags the optional prefix-bloom trailer after the key bounds (u8 name length,
     * ASCII name). Older tables have zeros there; older readers ignore it.
     */
    private static final int PREFIX_BLOOM_TAG = 0x50465831;

    /**
     * The sequence number every entry of this version carries whatever its cell says (format
     * 4: a table written outside the store, ingested by linking or copying its file), or
     * {@link #NO_GLOBAL_SEQNO}.
     */
    public long globalSeqno() {
        return formatVersion == PageFormat.FORMAT_VERSION_GLOBAL_SEQNO ? maxSeqno : NO_GLOBAL_SEQNO;
    }

    /** The format version of the version's pages: its footer's, but 3 under a format-4 footer. */
    int pageFormatVersion() {
        return Math.min(formatVersion, PageFormat.FORMAT_VERSION);
    }

    /**
     * Whether {@link #withGlobalSeqno} applies: a version-3 (or 4) table written whole (no
     * earlier version's pages), unpacked, without range tombstones.
     */
    public boolean acceptsGlobalSeqno() {
        return formatVersion >= PageFormat.FORMAT_VERSION && !packed() && rangeTombstoneLength == 0
                && previousFooterOffset < 0;
    }

    /**
     * This footer as a format-4 footer giving every entry sequence number {@code seq} (its
     * sequence-number bounds both {@code seq}), for a copy of the footer page appended to the
     * file: the tree, bloom filter and counts are the same pages.
     */
    Footer withGlobalSeqno(long seq) {
        if (!acceptsGlobalSeqno() || seq <= 0) {
            throw new IllegalArgumentException("cannot give " + this + " global sequence number " + seq);
        }
        return new Footer(pageSize, rootPage, height, leafCount, entryCount, tombstoneCount, seq, seq,
                bloomPage, bloomLength, bloomChecksum, overflowPageCount, userBytes, previousFooterOffset, firstPage,
                minKey, maxKey, PageFormat.FORMAT_VERSION_GLOBAL_SEQNO, bloomKeys, bloomCapacity, livePages, compression,
                pageMapOffset, pageMapLength, pageMapChecksum, storedBytes, rangeTombstoneOffset, rangeTombstoneLength,
                leafEncoding, prefixBloom);
    }

    /** Bytes of the file this version references ({@link #livePages()} pages). */
    public long liveBytes() {
        return livePages * pageSize;
    }

    /** Byte offset of the first page written for this version. */
    public long firstOffset() {
        return (long) firstPage * pageSize;
    }

    /** Whether this version's leaves carry summaries (format 2 and later). */
    public boolean hasLeafSummaries() {
        return formatVersion >= PageFormat.FORMAT_VERSION_2;
    }

    /**
     * Whether this version can be merged in place (block compaction): its leaves carry
     * summaries (format 2 and later) and its cells carry their own sequence numbers. A
     * compressed (packed) version is merged in place too, keeping its codec, with a spanning
     * page map ({@link #spanningMap()}); one with a global sequence number (an ingested table,
     * whose reused leaves would lose it) is rewritten instead.
     */
    public boolean mergeableInPlace() {
        return hasLeafSummaries() && globalSeqno() == NO_GLOBAL_SEQNO;
    }

    /** Whether the version's pages are compressed and packed, located through a page map. */
    public boolean packed() {
        return pageMapLength > 0;
    }

    /** Logical pages the page map covers (0 when not packed). */
    public int mappedPages() {
        return (pageMapLength - (spanningMap() ? PageFormat.MAP_HEADER_SIZE : 0)) / PageFormat.MAP_ENTRY_SIZE;
    }

    /**
     * (v3) Whether the page map is a <em>spanning</em> one (footer byte 134 = 1): the map of a
     * packed version merged in place ({@link BlockMergeWriter}), which starts with a header
     * giving the logical page of its first entry, because the version references frames of
     * earlier versions below its own first page. Exactly the packed versions that derive from
     * a previous one have it.
     */
    public boolean spanningMap() {
        return packed() && previousFooterOffset >= 0;
    }

    private static int keysOffset(int formatVersion) {
        return switch (formatVersion) {
            case PageFormat.FORMAT_VERSION_1 -> OFF_KEYS_V1;
            case PageFormat.FORMAT_VERSION_2 -> OFF_KEYS_V2;
            default -> OFF_KEYS_V3;
        };
    }

    /** Whether the table has no entries. */
    public boolean isEmpty() {
        return entryCount == 0;
    }

    /** Encodes this footer as one page with its checksum. */
    byte[] encode() {
        byte[] p = new byte[pageSize];
        p[PageFormat.OFF_TYPE] = PageFormat.TYPE_FOOTER;
        PageFormat.putShort(p, PageFormat.OFF_VERSION, formatVersion);
        if (formatVersion == PageFormat.FORMAT_VERSION_GLOBAL_SEQNO) {
            PageFormat.putLong(p, OFF_GLOBAL_SEQNO, maxSeqno);
        }
        PageFormat.putLong(p, OFF_MAGIC, MAGIC);
        PageFormat.putInt(p, OFF_PAGE_SIZE, pageSize);
        PageFormat.putInt(p, OFF_ROOT, rootPage);
        PageFormat.putInt(p, OFF_HEIGHT, height);
        PageFormat.putInt(p, OFF_LEAVES, leafCount);
        PageFormat.putLong(p, OFF_ENTRIES, entryCount);
        PageFormat.putLong(p, OFF_TOMBSTONES, tombstoneCount);
        PageFormat.putLong(p, OFF_MIN_SEQ, minSeqno);
        PageFormat.putLong(p, OFF_MAX_SEQ, maxSeqno);
        PageFormat.putInt(p, OFF_BLOOM_PAGE, bloomPage);
        PageFormat.putInt(p, OFF_BLOOM_LENGTH, bloomLength);
        PageFormat.putInt(p, OFF_BLOOM_CRC, bloomChecksum);
        PageFormat.putInt(p, OFF_OVERFLOW_PAGES, overflowPageCount);
        PageFormat.putLong(p, OFF_USER_BYTES, userBytes);
        PageFormat.putLong(p, OFF_PREVIOUS, previousFooterOffset);
        PageFormat.putInt(p, OFF_FIRST_PAGE, firstPage);
        if (formatVersion != PageFormat.FORMAT_VERSION_1) {
            PageFormat.putLong(p, OFF_BLOOM_KEYS, bloomKeys);
            PageFormat.putLong(p, OFF_BLOOM_CAPACITY, bloomCapacity);
            PageFormat.putLong(p, OFF_LIVE_PAGES, livePages);
        }
        if (formatVersion >= PageFormat.FORMAT_VERSION) {
            p[OFF_CODEC] = (byte) compression.id();
            p[OFF_LEAF_ENCODING] = (byte) leafEncoding.id();
            p[OFF_MAP_KIND] = (byte) (spanningMap() ? 1 : 0);
            PageFormat.putLong(p, OFF_MAP_OFFSET, pageMapOffset);
            PageFormat.putInt(p, OFF_MAP_LENGTH, pageMapLength);
            PageFormat.putInt(p, OFF_MAP_CRC, pageMapChecksum);
            PageFormat.putLong(p, OFF_STORED_BYTES, storedBytes);
            PageFormat.putLong(p, OFF_RANGE_TOMBSTONE_OFFSET, rangeTombstoneOffset);
            PageFormat.putLong(p, OFF_RANGE_TOMBSTONE_LENGTH, rangeTombstoneLength);
        }
        int off = keysOffset(formatVersion);
        PageFormat.putInt(p, off, minKey.length);
        System.arraycopy(minKey, 0, p, off + 4, minKey.length);
        off += 4 + minKey.length;
        PageFormat.putInt(p, off, maxKey.length);
        System.arraycopy(maxKey, 0, p, off + 4, maxKey.length);
        off += 4 + maxKey.length;
        if (!prefixBloom.isEmpty()) {
            byte[] name = prefixBloom.getBytes(java.nio.charset.StandardCharsets.US_ASCII);
            if (formatVersion < PageFormat.FORMAT_VERSION || name.length > 255 || off + 5 + name.length > pageSize) {
                throw new IllegalStateException("no room for prefix bloom " + prefixBloom + " in a format "
                        + formatVersion + " footer");
            }
            PageFormat.putInt(p, off, PREFIX_BLOOM_TAG);
            p[off + 4] = (byte) name.length;
            System.arraycopy(name, 0, p, off + 5, name.length);
        }
        PageFormat.putInt(p, PageFormat.OFF_CRC, PageFormat.pageChecksum(p, pageSize));
        return p;
    }

    /** Page size recorded in an encoded footer whose first bytes are {@code head}, or -1 if not a footer. */
    static int peekPageSize(byte[] head) {
        if (head.length < OFF_PAGE_SIZE + 4 || PageFormat.getLong(head, OFF_MAGIC) != MAGIC) {
            return -1;
        }
        return PageFormat.getInt(head, OFF_PAGE_SIZE);
    }

    /**
     * Decodes and verifies a footer page read from {@code file} at {@code offset}.
     *
     * @throws CorruptionException if the checksum, magic, version or any field is wrong
     */
    static Footer decode(byte[] p, Path file, long offset) {
        String where = "footer page at offset " + offset + " of " + file;
        int stored = PageFormat.getInt(p, PageFormat.OFF_CRC);
        int actual = PageFormat.pageChecksum(p, p.length);
        if (stored != actual) {
            throw new CorruptionException(file, offset, String.format(
                    "checksum mismatch in %s (page %d): stored 0x%08x, computed 0x%08x",
                    where, offset / p.length, stored, actual));
        }
        if (PageFormat.getLong(p, OFF_MAGIC) != MAGIC || p[PageFormat.OFF_TYPE] != PageFormat.TYPE_FOOTER) {
            throw new CorruptionException(file, offset, "no SSTable footer (bad magic or page type) in " + where);
        }
        int version = PageFormat.getShort(p, PageFormat.OFF_VERSION);
        if (!PageFormat.readable(version)) {
            throw new CorruptionException(file, offset, "unsupported SSTable format version " + version
                    + " in " + where + " (this build reads versions " + PageFormat.FORMAT_VERSION_1 + " to "
                    + PageFormat.FORMAT_VERSION_GLOBAL_SEQNO + ")");
        }
        boolean v1 = version == PageFormat.FORMAT_VERSION_1;
        boolean v3 = version >= PageFormat.FORMAT_VERSION;
        int pageSize = PageFormat.getInt(p, OFF_PAGE_SIZE);
        if (pageSize != p.length) {
            throw new CorruptionException(file, offset, "page size " + pageSize + " in " + where
                    + " does not match the " + p.length + " bytes read");
        }
        try {
            Compression codec = Compression.NONE;
            long mapOffset = 0;
            int mapLength = 0;
            int mapCrc = 0;
            long rtOffset = 0;
            long rtLength = 0;
            long storedSize = -1;
            LeafEncoding leaves = LeafEncoding.PLAIN;
            int mapKind = 0;
            if (v3) {
                codec = Compression.fromId(p[OFF_CODEC] & 0xff);
                if (codec == null) {
                    throw new CorruptionException(file, offset, "unknown page codec " + (p[OFF_CODEC] & 0xff)
                            + " in " + where);
                }
                leaves = LeafEncoding.fromId(p[OFF_LEAF_ENCODING] & 0xff);
                mapKind = p[OFF_MAP_KIND] & 0xff;
                if (leaves == null || mapKind > 1 || p[OFF_MAP_KIND + 1] != 0) {
                    throw new CorruptionException(file, offset, "unsupported leaf encoding "
                            + (p[OFF_LEAF_ENCODING] & 0xff) + ", page map kind " + mapKind
                            + " or non-zero reserved byte 135 in " + where
                            + " (this build reads leaf encodings 0 and 1, page map kinds 0 and 1)");
                }
                mapOffset = PageFormat.getLong(p, OFF_MAP_OFFSET);
                mapLength = PageFormat.getInt(p, OFF_MAP_LENGTH);
                mapCrc = PageFormat.getInt(p, OFF_MAP_CRC);
                storedSize = PageFormat.getLong(p, OFF_STORED_BYTES);
                rtOffset = PageFormat.getLong(p, OFF_RANGE_TOMBSTONE_OFFSET);
                rtLength = PageFormat.getLong(p, OFF_RANGE_TOMBSTONE_LENGTH);
                // A table of range tombstones alone has its extent at offset 0: the length says
                // whether there is one.
                if (rtLength < 0 || rtLength > Integer.MAX_VALUE || (rtLength == 0 && rtOffset != 0)
                        || (rtLength > 0 && (rtOffset < 0 || rtOffset + rtLength > offset))) {
                    throw new CorruptionException(file, offset, "a range-tombstone extent (offset " + rtOffset
                            + ", length " + rtLength + ") that does not lie before the footer in " + where);
                }
                boolean packed = mapLength != 0;
                boolean spanning = packed && PageFormat.getLong(p, OFF_PREVIOUS) >= 0;
                int header = spanning ? PageFormat.MAP_HEADER_SIZE : 0;
                if (packed != (codec != Compression.NONE) || mapLength < 0 || (mapKind == 1) != spanning
                        || mapLength < header
                        || (mapLength - header) % PageFormat.MAP_ENTRY_SIZE != 0 || (packed ? mapOffset <= 0 : mapOffset != 0)
                        || mapOffset + mapLength > offset || storedSize <= 0 || storedSize > offset + pageSize) {
                    throw new CorruptionException(file, offset, "inconsistent codec " + codec + ", page map ("
                            + mapOffset + ", " + mapLength + ") or stored size " + storedSize + " in " + where);
                }
            }
            int off = keysOffset(version);
            int minLen = PageFormat.getInt(p, off);
            byte[] minKey = java.util.Arrays.copyOfRange(p, off + 4, off + 4 + checkLength(minLen, p.length));
            off += 4 + minLen;
            int maxLen = PageFormat.getInt(p, off);
            byte[] maxKey = java.util.Arrays.copyOfRange(p, off + 4, off + 4 + checkLength(maxLen, p.length));
            off += 4 + maxLen;
            String prefixBloom = "";
            if (v3 && off + 5 <= p.length && PageFormat.getInt(p, off) == PREFIX_BLOOM_TAG) {
                int len = p[off + 4] & 0xff;
                prefixBloom = new String(p, off + 5, checkLength(len, p.length - off - 5),
                        java.nio.charset.StandardCharsets.US_ASCII);
            }
            Footer f = new Footer(pageSize, PageFormat.getInt(p, OFF_ROOT), PageFormat.getInt(p, OFF_HEIGHT),
                    PageFormat.getInt(p, OFF_LEAVES), PageFormat.getLong(p, OFF_ENTRIES),
                    PageFormat.getLong(p, OFF_TOMBSTONES), PageFormat.getLong(p, OFF_MIN_SEQ),
                    PageFormat.getLong(p, OFF_MAX_SEQ), PageFormat.getInt(p, OFF_BLOOM_PAGE),
                    PageFormat.getInt(p, OFF_BLOOM_LENGTH), PageFormat.getInt(p, OFF_BLOOM_CRC),
                    PageFormat.getInt(p, OFF_OVERFLOW_PAGES), PageFormat.getLong(p, OFF_USER_BYTES),
                    PageFormat.getLong(p, OFF_PREVIOUS), PageFormat.getInt(p, OFF_FIRST_PAGE), minKey, maxKey,
                    version, v1 ? 0 : PageFormat.getLong(p, OFF_BLOOM_KEYS),
                    v1 ? 0 : PageFormat.getLong(p, OFF_BLOOM_CAPACITY),
                    // A version-1 table never references an earlier version's pages.
                    v1 ? offset / pageSize + 1 - PageFormat.getInt(p, OFF_FIRST_PAGE)
                            : PageFormat.getLong(p, OFF_LIVE_PAGES),
                    codec, mapOffset, mapLength, mapCrc, 0, rtOffset, rtLength, leaves, prefixBloom);
            f = f.withStoredBytes(storedSize >= 0 ? storedSize : f.livePages * pageSize);
            if (version == PageFormat.FORMAT_VERSION_GLOBAL_SEQNO) {
                long global = PageFormat.getLong(p, OFF_GLOBAL_SEQNO);
                if (global <= 0 || global != f.minSeqno || global != f.maxSeqno || f.packed()
                        || f.rangeTombstoneLength != 0) {
                    throw new CorruptionException(file, offset, "global sequence number " + global + " with sequence "
                            + "numbers " + f.minSeqno + ".." + f.maxSeqno + (f.packed() ? " in a packed table" : "")
                            + (f.rangeTombstoneLength != 0 ? " beside range tombstones" : "") + " in " + where);
                }
            }
            if (f.height < 0 || f.height > 64 || (f.height == 0) != (f.rootPage == PageFormat.NO_PAGE)) {
                throw new CorruptionException(file, offset, "inconsistent root " + f.rootPage
                        + " and height " + f.height + " in " + where);
            }
            long pageLimit = f.packed() ? f.mappedPages() + 1 : offset / pageSize + 1;
            if (f.livePages < 1 || f.livePages > pageLimit || f.bloomKeys < 0 || f.bloomCapacity < 0
                    || (f.packed() && !f.spanningMap() && (f.storedBytes % pageSize != 0
                            || f.firstPage != offset / pageSize + 1 - f.storedBytes / pageSize))
                    || (f.spanningMap() && (f.firstPage < 0 || f.firstOffset() > f.pageMapOffset))) {
                throw new CorruptionException(file, offset, "impossible live page count " + f.livePages
                        + " or bloom counts " + f.bloomKeys + "/" + f.bloomCapacity + " in " + where);
            }
            return f;
        } catch (IndexOutOfBoundsException | IllegalArgumentException e) {
            throw new CorruptionException(file, offset, "malformed key bounds in " + where, e);
        }
    }

    /**
     * This footer with a range-tombstone extent of {@code length} bytes at {@code offset}
     * taking {@code pages} more live pages, its key and sequence-number bounds widened to
     * cover {@code tombstones}.
     */
    Footer withRangeTombstones(RangeTombstones tombstones, long offset, long length, int pages) {
        boolean empty = entryCount == 0;
        byte[] lo = empty || java.util.Arrays.compareUnsigned(tombstones.smallestKey(), minKey) < 0
                ? tombstones.smallestKey() : minKey;
        byte[] top = tombstones.largestKeyInclusive();
        byte[] hi = empty || java.util.Arrays.compareUnsigned(top, maxKey) > 0 ? top : maxKey;
        long minSeq = empty ? tombstones.minSeqno() : Math.min(minSeqno, tombstones.minSeqno());
        long maxSeq = Math.max(maxSeqno, tombstones.maxSeqno());
        long live = livePages + pages;
        return new Footer(pageSize, rootPage, height, leafCount, entryCount, tombstoneCount, minSeq, maxSeq,
                bloomPage, bloomLength, bloomChecksum, overflowPageCount, userBytes, previousFooterOffset, firstPage,
                lo, hi, formatVersion, bloomKeys, bloomCapacity, live, compression, pageMapOffset,
                pageMapLength, pageMapChecksum, packed() ? storedBytes : live * pageSize, offset, length, leafEncoding, prefixBloom);
    }

    /** This footer with {@code storedBytes} (decoding fills it in for versions before 3). */
    Footer withStoredBytes(long stored) {
        return new Footer(pageSize, rootPage, height, leafCount, entryCount, tombstoneCount, minSeqno, maxSeqno,
                bloomPage, bloomLength, bloomChecksum, overflowPageCount, userBytes, previousFooterOffset, firstPage,
                minKey, maxKey, formatVersion, bloomKeys, bloomCapacity, livePages, compression, pageMapOffset,
                pageMapLength, pageMapChecksum, stored, rangeTombstoneOffset, rangeTombstoneLength, leafEncoding, prefixBloom);
    }

    private static int checkLength(int len, int pageSize) {
        if (len < 0 || len > pageSize) {
            throw new IllegalArgumentException("key length " + len);
        }
        return len;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Footer f && java.util.Arrays.equals(f.encode(), encode());
    }

    @Override
    public int hashCode() {
        return java.util.Arrays.hashCode(encode());
    }

    @Override
    public String toString() {
        return "Footer[root=" + rootPage + ", height=" + height + ", leaves=" + leafCount + ", entries=" + entryCount
                + ", tombstones=" + tombstoneCount + ", seqno=" + minSeqno + ".." + maxSeqno + ", keys="
                + InternalKeys.describe(minKey) + ".." + InternalKeys.describe(maxKey) + ", pageSize=" + pageSize + ", format=" + formatVersion
                + (globalSeqno() != NO_GLOBAL_SEQNO ? ", globalSeqno=" + globalSeqno() : "") + ", livePages=" + livePages + ", bloomKeys=" + bloomKeys + "/" + bloomCapacity
                + (formatVersion >= PageFormat.FORMAT_VERSION ? ", codec=" + compression + ", leafEncoding=" + leafEncoding + ", storedBytes=" + storedBytes : "")
                + (prefixBloom.isEmpty() ? "" : ", prefixBloom=" + prefixBloom)
                + "]";
    }
}
