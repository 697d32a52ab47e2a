package dev.strata.lsm.sstable;

import dev.strata.lsm.CorruptionException;

import java.io.IOException;
import java.util.Arrays;

/**
 * The check of a table's index without reading its leaves, for bulk ingest's lighter
 * verification of a file {@code TableWriter} wrote: every interior page is read from the file
 * (its checksum, type, level and slots verified as any page read is), and
 * <ul>
 *   <li>the level-1 fences (each leaf's min and max key) are in strictly increasing user-key
 *       order, one entry per key (a fence whose two keys are equal covers one entry), all of
 *       them puts or deletes with sequence number 0;</li>
 *   <li>every upper cell's key is the last key of the subtree under it, and every child is a
 *       page of this table version before its footer;</li>
 *   <li>the leaf summaries add up to the footer's counts (leaves, entries, tombstones,
 *       overflow pages, user bytes), all with sequence number 0, and the first and last fence
 *       keys are the footer's min and max key.</li>
 * </ul>
 * A one-leaf table has no interior page: its leaf is read and summarized instead. What is not
 * checked is the data inside the leaves (their checksums and the order of their cells): a
 * damaged leaf is found when it is read, as a {@link CorruptionException}. Stateless.
 *
 * @param leaves leaf pages under the index
 * @param entries entries the leaf summaries count
 */
public record IndexCheck(int leaves, long entries) {

    /**
     * Checks {@code reader}'s index as above.
     *
     * @throws CorruptionException naming the file and the first problem found
     */
    public static IndexCheck of(SSTableReader reader) throws IOException {
        Footer f = reader.footer();
        if (!f.hasLeafSummaries()) {
            throw new CorruptionException(reader.path(), reader.footerOffset(), "table " + reader.path()
                    + " of format version " + f.formatVersion() + " has no leaf summaries to check its index against");
        }
        Walk w = new Walk(reader);
        try {
            if (f.height() == 0) {
                throw w.corrupt("the table is empty");
            }
            if (f.height() == 1) {
                w.oneLeaf(f.rootPage());
            } else {
                w.visit(f.rootPage(), f.height() - 1);
            }
        } catch (IndexOutOfBoundsException | IllegalArgumentException e) {
            throw new CorruptionException(reader.path(), reader.footerOffset(), "malformed index of " + reader.path()
                    + ": " + e.getMessage(), e);
        }
        w.compare("leaf count", w.leaves, f.leafCount());
        w.compare("entry count", w.entries, f.entryCount());
        w.compare("tombstone count", w.tombstones, f.tombstoneCount());
        w.compare("overflow page count", w.overflowPages, f.overflowPageCount());
        w.compare("user bytes", w.userBytes, f.userBytes());
        if (!Arrays.equals(w.firstKey, f.minKey())) {
            throw w.corrupt("the first fence key " + InternalKeys.describe(w.firstKey) + " is not the footer's min key "
                    + InternalKeys.describe(f.minKey()));
        }
        if (!Arrays.equals(w.lastKey, f.maxKey())) {
            throw w.corrupt("the last fence key " + InternalKeys.describe(w.lastKey) + " is not the footer's max key "
                    + InternalKeys.describe(f.maxKey()));
        }
        if (f.minSeqno() != 0 || f.maxSeqno() != 0) {
            throw w.corrupt("its footer gives sequence numbers " + f.minSeqno() + " to " + f.maxSeqno()
                    + ", not the 0 TableWriter writes");
        }
        return new IndexCheck(w.leaves, w.entries);
    }

    /** The walk's state: fences in key order, counts summed. */
    private static final class Walk {
        private final SSTableReader reader;
        private final Footer footer;
        private final int pageLimit;
        private byte[] firstKey;
        private byte[] lastKey;
        private int leaves;
        private long entries;
        private long tombstones;
        private long overflowPages;
        private long userBytes;

        Walk(SSTableReader reader) {
            this.reader = reader;
            this.footer = reader.footer();
            this.pageLimit = (int) (reader.footerOffset() / footer.pageSize());
        }

        CorruptionException corrupt(String problem) {
            return new CorruptionException(reader.path(), reader.footerOffset(), "index of " + reader.path() + ": " + problem);
        }

        void compare(String what, long walked, long footerSays) {
            if (walked != footerSays) {
                throw corrupt("the index gives " + what + " " + walked + "; the footer says " + footerSays);
            }
        }

        private void checkChild(int child, int level, int pageNo) {
            if (child < footer.firstPage() || child >= pageLimit) {
                throw corrupt("interior page " + pageNo + " (level " + level + ") names child page " + child
                        + ", outside the table's pages " + footer.firstPage() + " to " + (pageLimit - 1));
            }
        }

        /** Visits interior page {@code pageNo} at {@code level}; returns its last cell's max internal key bytes. */
        byte[] visit(int pageNo, int level) throws IOException {
            InteriorPage page = reader.interiorPage(pageNo, level);
            byte[] b = page.bytes();
            int n = page.count();
            if (n < 1) {
                throw corrupt("interior page " + pageNo + " (level " + level + ") has no cell");
            }
            byte[] last = null;
            for (int i = 0; i < n; i++) {
                int off = TreePages.cellOffset(b, i);
                int maxOff = TreePages.maxKeyOffset(b, off, level);
                int child = TreePages.child(b, off, level);
                checkChild(child, level, pageNo);
                if (level == 1) {
                    fence(b, off, maxOff, child, pageNo);
                    last = internalKey(b, maxOff);
                } else {
                    byte[] max = internalKey(b, maxOff);
                    byte[] below = visit(child, level - 1);
                    if (!Arrays.equals(max, below)) {
                        throw corrupt("cell " + i + " of interior page " + pageNo + " (level " + level
                                + ") has fence key " + InternalKeys.describe(TreePages.userKey(b, maxOff))
                                + " but its subtree ends at another key (fences out of order or damaged)");
                    }
                    last = max;
                }
            }
            return last;
        }

        /** A level-1 cell: the leaf's fence keys in order after the previous leaf's, and its summary. */
        private void fence(byte[] b, int off, int maxOff, int child, int pageNo) {
            byte[] min = TreePages.userKey(b, off);
            byte[] max = TreePages.userKey(b, maxOff);
            checkTrailer(TreePages.trailer(b, off), min, pageNo);
            checkTrailer(TreePages.trailer(b, maxOff), max, pageNo);
            int cmp = Arrays.compareUnsigned(min, max);
            if (cmp > 0 || (lastKey != null && Arrays.compareUnsigned(min, lastKey) <= 0)) {
                byte[] before = cmp > 0 ? min : lastKey;
                byte[] after = cmp > 0 ? max : min;
                throw corrupt("leaf fences out of order: key " + InternalKeys.describe(after) + " after "
                        + InternalKeys.describe(before) + " (interior page " + pageNo + ", leaf " + child + ")");
            }
            int summaryOff = maxOff + TreePages.internalKeyLength(b, maxOff) + 4;
            LeafSummary s = LeafSummary.decode(b, summaryOff);
            if (cmp == 0 && s.entries() != 1) {
                throw corrupt("leaf " + child + " spans the single key " + InternalKeys.describe(min) + " but holds "
                        + s.entries() + " entries (a duplicate key)");
            }
            leaf(s, min, max, child);
        }

        private void leaf(LeafSummary s, byte[] min, byte[] max, int child) {
            if (s.minSeqno() != 0 || s.maxSeqno() != 0) {
                throw corrupt("leaf " + child + " holds sequence numbers " + s.minSeqno() + " to " + s.maxSeqno()
                        + ", not the 0 TableWriter writes");
            }
            if (firstKey == null) {
                firstKey = min;
            }
            lastKey = max;
            leaves++;
            entries += s.entries();
            tombstones += s.tombstones();
            overflowPages += s.overflowPages();
            userBytes += s.userBytes();
        }

        private void checkTrailer(long trailer, byte[] key, int pageNo) {
            int type = (int) (trailer & 0xff);
            if ((trailer >>> 8) != 0 || (type != EntryType.PUT.code() && type != EntryType.DELETE.code())) {
                throw corrupt("fence key " + InternalKeys.describe(key) + " in interior page " + pageNo
                        + " has sequence number " + (trailer >>> 8) + " and type code " + type
                        + " (TableWriter writes puts and deletes at sequence number 0)");
            }
        }

        /** A table that is one leaf: the leaf is read (and verified) and summarized. */
        void oneLeaf(int pageNo) throws IOException {
            if (pageNo < footer.firstPage() || pageNo >= pageLimit) {
                throw corrupt("root page " + pageNo + " is outside the table's pages");
            }
            byte[] page = reader.leafPage(pageNo, reader.newPageBuffer());
            LeafSummary s = LeafSummary.of(page, footer.pageSize(), footer.leafEncoding());
            // The leaf's order is checked by reading it: one page.
            try (TableIterator it = reader.iterator()) {
                byte[] prev = null;
                for (it.seekToFirst(); it.valid(); it.next()) {
                    byte[] k = it.key();
                    if (prev != null && Arrays.compareUnsigned(k, prev) <= 0) {
                        throw corrupt("keys out of order: " + InternalKeys.describe(k) + " after " + InternalKeys.describe(prev));
                    }
                    if (it.seqno() != 0 || (it.type() != EntryType.PUT && it.type() != EntryType.DELETE)) {
                        throw corrupt("key " + InternalKeys.describe(k) + " is a " + it.type() + " at sequence number "
                                + it.seqno() + " (TableWriter writes puts and deletes at sequence number 0)");
                    }
                    if (firstKey == null) {
                        firstKey = k;
                    }
                    prev = k;
                }
                byte[] first = firstKey;
                firstKey = null;
                leaf(s, first == null ? new byte[0] : first, prev == null ? new byte[0] : prev, pageNo);
            }
        }

        private static byte[] internalKey(byte[] b, int off) {
            return Arrays.copyOfRange(b, off, off + TreePages.internalKeyLength(b, off));
        }
    }
}
