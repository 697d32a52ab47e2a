package dev.strata.lsm.sstable;

import dev.strata.lsm.LeafEncoding;
import dev.strata.lsm.CorruptionException;

import java.nio.file.Path;
import java.util.Arrays;

/**
 * Walks the cells of one verified leaf page of either leaf encoding (docs/format.md), one
 * position at a time, into a {@link LeafCell}. A plain leaf (encoding 0) has a slot per cell,
 * so any position is found directly. A prefix-compressed leaf (encoding 1) stores each key as
 * a suffix of the previous key's prefix, with a slot only at every N-th cell (a restart point,
 * whose key is whole): the decoder rebuilds keys into its own buffer, finds a position by
 * going to the restart before it and scanning forward (at most N − 1 cells), and steps back
 * the same way, the way RocksDB's block iterator does.
 *
 * <p>Every field of a cell is checked against the page before it is used: a shared prefix
 * longer than the previous key, a field or key running past the cell area, a restart cell that
 * shares a prefix or does not start where its slot says, an unknown entry type or value
 * header, or an overflow reference outside the table is a {@link CorruptionException} naming
 * the file and page. Mutable, reused from leaf to leaf; not thread safe.
 */
final class LeafDecoder {
    private final Path path;
    private final int pageSize;
    /** Byte end of the pages an overflow reference may name. */
    private final long pageLimitOffset;
    private final LeafEncoding encoding;
    private final LeafCell cell = new LeafCell();

    private byte[] page;
    private int pageNo;
    private int count;
    private int dataEnd;
    /** Encoding 1: the restart interval and the offset of the slot array's end. */
    private int interval;
    private int slotBase;
    private int index = -1;
    /** Offset of the current cell in the page. */
    private int cellStartOffset;
    /** Encoding 1: offset of the cell after the current one. */
    private int nextOffset;
    /** Encoding 1: the current key, rebuilt from the cells since the last restart. */
    private byte[] key;
    private int keyLength;
    /**
     * Encoding 1, for stepping back: the offsets and keys of the cells of one restart block
     * from its restart point up to the last one a backward step scanned to ({@link #seekBack}),
     * so that further steps back inside the block decode one cell instead of rescanning it.
     * {@code blockFirst} is the block's first cell, -1 when nothing is recorded.
     */
    private int blockFirst = -1;
    private int blockCount;
    private int[] blockOffsets;
    private int[] blockKeyEnds;
    private byte[] blockKeys;

    /**
     * @param path the table file, named in errors (null when decoding a page being built)
     * @param pageLimitOffset byte end of the pages overflow references may name
     */
    LeafDecoder(Path path, int pageSize, long pageLimitOffset, LeafEncoding encoding) {
        this.path = path;
        this.pageSize = pageSize;
        this.pageLimitOffset = pageLimitOffset;
        this.encoding = encoding;
    }

    /** Starts on leaf {@code pageNo}, whose header and slots (or restarts) the reader has verified; positions nowhere. */
    LeafDecoder reset(byte[] page, int pageNo) {
        this.page = page;
        this.pageNo = pageNo;
        this.count = TreePages.count(page);
        this.dataEnd = PageFormat.getInt(page, PageFormat.OFF_DATA_END);
        this.index = -1;
        this.blockFirst = -1;
        if (encoding == LeafEncoding.PREFIX) {
            this.slotBase = pageSize - PageFormat.RESTART_TAIL_SIZE;
            this.interval = PageFormat.getShort(page, slotBase);
            if (key == null) {
                key = new byte[64];
            }
            if (interval == 0) {
                throw corrupt("restart interval 0");
            }
        }
        return this;
    }

    int count() {
        return count;
    }

    /** Offset in the page of the current cell. */
    int cellOffset() {
        return cellStartOffset;
    }

    /** The leaf page being decoded (inline values lie in it). */
    byte[] page() {
        return page;
    }

    /** Index of the current cell; -1 before the first, {@link #count()} after the last. */
    int index() {
        return index;
    }

    boolean valid() {
        return index >= 0 && index < count;
    }

    /** The current cell's fields (valid until the decoder moves). */
    LeafCell cell() {
        return cell;
    }

    /** Positions at cell {@code i} (0 ≤ i < count). */
    void seek(int i) {
        if (encoding == LeafEncoding.PLAIN) {
            index = i;
            parsePlain(TreePages.cellOffset(page, i));
            return;
        }
        int r = i / interval;
        index = r * interval;
        keyLength = 0;
        parsePrefix(restartOffset(r));
        while (index < i) {
            next();
        }
    }

    void seekToFirst() {
        seek(0);
    }

    void seekToLast() {
        if (encoding == LeafEncoding.PLAIN) {
            seek(count - 1);
        } else {
            seekBack(count - 1);
        }
    }

    /** Moves to the next cell; {@link #valid()} turns false after the last. */
    void next() {
        index++;
        if (index >= count) {
            index = count;
            return;
        }
        if (encoding == LeafEncoding.PLAIN) {
            parsePlain(TreePages.cellOffset(page, index));
            return;
        }
        if (index % interval == 0) {
            int restart = restartOffset(index / interval);
            if (restart != nextOffset) {
                throw corrupt("restart " + index / interval + " at offset " + restart + " but cell " + index
                        + " starts at " + nextOffset);
            }
            keyLength = 0;
        }
        parsePrefix(nextOffset);
    }

    /** Moves to the previous cell (by a scan from its restart); {@link #valid()} turns false before the first. */
    void prev() {
        if (index <= 0) {
            index = -1;
            return;
        }
        int j = index - 1;
        if (encoding == LeafEncoding.PLAIN) {
            seek(j);
        } else if (blockFirst >= 0 && j >= blockFirst && j < blockFirst + blockCount) {
            // Recorded by the scan of this block: restore the key before cell j and decode cell j alone.
            int k = j - blockFirst;
            keyLength = 0;
            if (k > 0) {
                int start = k == 1 ? 0 : blockKeyEnds[k - 2];
                keyLength = blockKeyEnds[k - 1] - start;
                System.arraycopy(blockKeys, start, key, 0, keyLength);
            }
            index = j;
            parsePrefix(blockOffsets[k]);
        } else {
            seekBack(j);
        }
    }

    /** Positions at cell {@code i} by a scan from its restart point, recording the block's cells for {@link #prev}. */
    private void seekBack(int i) {
        int r = i / interval;
        blockFirst = r * interval;
        blockCount = 0;
        index = blockFirst;
        keyLength = 0;
        parsePrefix(restartOffset(r));
        record();
        while (index < i) {
            next();
            record();
        }
    }

    /** Records the current cell's offset and key as the next of the block. */
    private void record() {
        if (blockOffsets == null || blockCount == blockOffsets.length) {
            int n = blockOffsets == null ? Math.min(interval, 64) : blockCount * 2;
            blockOffsets = blockOffsets == null ? new int[n] : Arrays.copyOf(blockOffsets, n);
            blockKeyEnds = blockKeyEnds == null ? new int[n] : Arrays.copyOf(blockKeyEnds, n);
        }
        int start = blockCount == 0 ? 0 : blockKeyEnds[blockCount - 1];
        if (blockKeys == null || blockKeys.length < start + keyLength) {
            blockKeys = blockKeys == null ? new byte[Math.max(1024, keyLength)]
                    : Arrays.copyOf(blockKeys, Math.max(blockKeys.length * 2, start + keyLength));
        }
        System.arraycopy(key, 0, blockKeys, start, keyLength);
        blockOffsets[blockCount] = cellStartOffset;
        blockKeyEnds[blockCount] = start + keyLength;
        blockCount++;
    }

    /**
     * Positions at the first cell whose internal key is at least (key, seqno) and returns its
     * index; {@link #count()} (not valid) when every cell sorts before it.
     */
    int search(byte[] target, long seqno) {
        if (encoding == LeafEncoding.PLAIN) {
            int i = TreePages.searchLeaf(page, target, seqno);
            if (i < count) {
                seek(i);
            } else {
                index = count;
            }
            return index;
        }
        // The last restart whose key sorts before the target; the answer is after it, within N cells.
        int lo = 0;
        int hi = (count + interval - 1) / interval - 1;
        int from = -1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            if (compareRestart(mid, target, seqno) < 0) {
                from = mid;
                lo = mid + 1;
            } else {
                hi = mid - 1;
            }
        }
        if (from < 0) {
            seek(0);
            return 0;
        }
        index = from * interval;
        keyLength = 0;
        parsePrefix(restartOffset(from));
        // The restart sorts before the target (the search says so): the answer is after it.
        do {
            next();
        } while (valid() && compareCurrent(target, seqno) < 0);
        return index;
    }

    /** Compares the current cell's internal key with (target, seqno): negative when it sorts before. */
    int compareCurrent(byte[] target, long seqno) {
        int c = Arrays.compareUnsigned(cell.keyArray, cell.keyStart, cell.keyStart + cell.keyLength, target, 0,
                target.length);
        return c != 0 ? c : Long.compare(seqno, cell.seqno());
    }

    /** Compares only the current cell's user key with {@code target}. */
    int compareCurrentUserKey(byte[] target) {
        return Arrays.compareUnsigned(cell.keyArray, cell.keyStart, cell.keyStart + cell.keyLength, target, 0,
                target.length);
    }

    /** A copy of the current cell's user key. */
    byte[] currentKey() {
        return Arrays.copyOfRange(cell.keyArray, cell.keyStart, cell.keyStart + cell.keyLength);
    }

    /** The current cell's internal key as interior cells encode it: varint length, user key, u64 trailer. */
    byte[] encodedInternalKey() {
        return PageFormat.encodeInternalKey(cell.keyArray, cell.keyStart, cell.keyLength, cell.trailer);
    }

    private int restartOffset(int r) {
        return PageFormat.getShort(page, slotBase - PageFormat.SLOT_SIZE * (r + 1));
    }

    /** Compares restart {@code r}'s key, stored whole in the page, with the target. */
    private int compareRestart(int r, byte[] target, long seqno) {
        int off = restartOffset(r);
        try {
            int shared = TreePages.readVarint(page, off);
            off += PageFormat.varintSize(shared);
            int unshared = TreePages.readVarint(page, off);
            off += PageFormat.varintSize(unshared);
            long tag = readVarlong(page, off);
            off += PageFormat.varlongSize(tag);
            if (EntryType.fromCode((int) (tag & 3)) != EntryType.DELETE) {
                int vh = TreePages.readVarint(page, off);
                off += PageFormat.varintSize(vh);
            }
            if (shared != 0 || unshared < 0 || off + unshared > dataEnd) {
                throw corrupt("restart " + r + " has a shared prefix of " + shared + " or a key of " + unshared
                        + " bytes running past the cells");
            }
            int c = Arrays.compareUnsigned(page, off, off + unshared, target, 0, target.length);
            return c != 0 ? c : Long.compare(seqno, tag >>> PageFormat.TAG_TYPE_BITS);
        } catch (IndexOutOfBoundsException e) {
            throw malformed(off, e);
        }
    }

    /** Parses the plain cell at {@code off}. */
    private void parsePlain(int off) {
        cellStartOffset = off;
        try {
            int keyLen = TreePages.readVarint(page, off);
            if (keyLen < 0) {
                throw new IndexOutOfBoundsException("key length " + keyLen);
            }
            int keyStart = off + PageFormat.varintSize(keyLen);
            long trailer = PageFormat.getLong(page, keyStart + keyLen);
            EntryType type = EntryType.fromCode((int) (trailer & 0xff));
            if (type == null) {
                throw corrupt("unknown entry type " + (trailer & 0xff));
            }
            cell.keyArray = page;
            cell.keyStart = keyStart;
            cell.keyLength = keyLen;
            cell.trailer = trailer;
            cell.type = type;
            if (type == EntryType.DELETE) {
                cell.valueKind = -1;
                cell.valueLength = -1;
                return;
            }
            int v = keyStart + keyLen + 8;
            byte kind = page[v];
            if (kind == PageFormat.VALUE_INLINE) {
                int len = TreePages.readVarint(page, v + 1);
                int start = v + 1 + PageFormat.varintSize(len);
                if (len < 0 || start + len > page.length) {
                    throw new IndexOutOfBoundsException("inline value of " + len + " bytes at " + start);
                }
                cell.valueStart = start;
                cell.valueLength = len;
            } else if (kind == PageFormat.VALUE_OVERFLOW) {
                overflow(PageFormat.getInt(page, v + 1), PageFormat.getInt(page, v + 5), PageFormat.getInt(page, v + 9));
            } else {
                throw corrupt("unknown value kind " + kind);
            }
            cell.valueKind = kind;
        } catch (IndexOutOfBoundsException | NegativeArraySizeException e) {
            throw malformed(off, e);
        }
    }

    /** Parses the prefix-compressed cell at {@code off}, the key of the cell before it in {@link #key}. */
    private void parsePrefix(int off) {
        cellStartOffset = off;
        try {
            int p = off;
            int shared = TreePages.readVarint(page, p);
            p += PageFormat.varintSize(shared);
            int unshared = TreePages.readVarint(page, p);
            p += PageFormat.varintSize(unshared);
            long tag = readVarlong(page, p);
            p += PageFormat.varlongSize(tag);
            EntryType type = EntryType.fromCode((int) (tag & ((1 << PageFormat.TAG_TYPE_BITS) - 1)));
            if (type == null) {
                throw corrupt("unknown entry type " + (tag & 3) + " in cell " + index);
            }
            long seqno = tag >>> PageFormat.TAG_TYPE_BITS;
            if (seqno > InternalKeys.MAX_SEQNO) {
                throw corrupt("sequence number " + seqno + " out of range in cell " + index);
            }
            int valueHeader = 0;
            if (type != EntryType.DELETE) {
                valueHeader = TreePages.readVarint(page, p);
                p += PageFormat.varintSize(valueHeader);
            }
            if (shared < 0 || shared > keyLength) {
                throw corrupt("cell " + index + " shares " + shared + " key bytes with a previous key of "
                        + keyLength + (index % interval == 0 ? " (a restart point shares none)" : ""));
            }
            if (unshared < 0 || p + unshared > dataEnd) {
                throw corrupt("cell " + index + " has a key suffix of " + unshared + " bytes at offset " + p
                        + ", past the cells' end " + dataEnd);
            }
            int length = shared + unshared;
            if (length > key.length) {
                key = Arrays.copyOf(key, Math.max(length, key.length * 2));
            }
            System.arraycopy(page, p, key, shared, unshared);
            keyLength = length;
            p += unshared;
            cell.keyArray = key;
            cell.keyStart = 0;
            cell.keyLength = length;
            cell.trailer = (seqno << 8) | type.code();
            cell.type = type;
            if (type == EntryType.DELETE) {
                cell.valueKind = -1;
                cell.valueLength = -1;
            } else if ((valueHeader & 1) == 0) {
                int len = valueHeader >>> 1;
                if (p + len > dataEnd) {
                    throw corrupt("cell " + index + " has an inline value of " + len + " bytes at offset " + p
                            + ", past the cells' end " + dataEnd);
                }
                cell.valueKind = PageFormat.VALUE_INLINE;
                cell.valueStart = p;
                cell.valueLength = len;
                p += len;
            } else if (valueHeader == PageFormat.VALUE_HEADER_OVERFLOW) {
                if (p + PageFormat.OVERFLOW_REF_SIZE > dataEnd) {
                    throw corrupt("cell " + index + " has an overflow reference past the cells' end " + dataEnd);
                }
                overflow(PageFormat.getInt(page, p), PageFormat.getInt(page, p + 4), PageFormat.getInt(page, p + 8));
                cell.valueKind = PageFormat.VALUE_OVERFLOW;
                p += PageFormat.OVERFLOW_REF_SIZE;
            } else {
                throw corrupt("unknown value header " + valueHeader + " in cell " + index);
            }
            nextOffset = p;
        } catch (IndexOutOfBoundsException e) {
            throw malformed(off, e);
        }
    }

    private void overflow(int first, int len, int crc) {
        long end = (long) first * pageSize + len;
        if (first < 0 || len < 0 || end > pageLimitOffset) {
            throw corrupt("overflow reference to page " + first + " length " + len + " is out of range");
        }
        cell.overflowPage = first;
        cell.valueLength = len;
        cell.overflowCrc = crc;
    }

    /** An unsigned LEB128 integer of up to 9 bytes (63 bits) at {@code off}. */
    static long readVarlong(byte[] b, int off) {
        long v = 0;
        for (int shift = 0; shift <= 56; shift += 7) {
            int x = b[off++];
            v |= (long) (x & 0x7F) << shift;
            if (x >= 0) {
                return v;
            }
        }
        throw new IndexOutOfBoundsException("varint longer than 9 bytes");
    }

    private CorruptionException malformed(int off, RuntimeException cause) {
        return new CorruptionException(path, (long) pageNo * pageSize, "malformed cell at offset " + off
                + " in leaf page " + pageNo + " of " + path, cause);
    }

    private CorruptionException corrupt(String problem) {
        return new CorruptionException(path, (long) pageNo * pageSize,
                problem + " in leaf page " + pageNo + " of " + path);
    }
}
