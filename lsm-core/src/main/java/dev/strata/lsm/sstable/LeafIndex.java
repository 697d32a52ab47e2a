package dev.strata.lsm.sstable;

import dev.strata.lsm.CorruptionException;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntConsumer;

/**
 * Walks a format-2 table version's interior pages (never its leaves) to list its leaves with
 * their summaries, in key order, and the interior pages themselves.
 */
final class LeafIndex {
    private LeafIndex() {
    }

    /**
     * The leaves of {@code table} in key order.
     *
     * @throws IllegalArgumentException if the table is of format version 1 (no summaries)
     * @throws CorruptionException if an interior page fails verification
     */
    static List<LeafRef> leaves(SSTableReader table) throws IOException {
        List<LeafRef> out = new ArrayList<>(table.footer().leafCount());
        walk(table, out, p -> { });
        return out;
    }

    /** Reports every interior page to {@code interior} and adds every leaf to {@code leaves}. */
    static void walk(SSTableReader table, List<LeafRef> leaves, IntConsumer interior) throws IOException {
        Footer f = table.footer();
        if (!f.hasLeafSummaries()) {
            throw new IllegalArgumentException("table " + table.path() + " at footer offset " + table.footerOffset()
                    + " has format version " + f.formatVersion() + ", whose leaves carry no summaries: it cannot be"
                    + " merged in place; rewrite it");
        }
        if (f.height() == 0) {
            return;
        }
        if (f.height() == 1) {
            leaves.add(singleLeaf(table));
            return;
        }
        descend(table, f.rootPage(), f.height() - 1, leaves, interior);
        if (leaves.size() != f.leafCount()) {
            throw new CorruptionException(table.path(), table.footerOffset(), "the tree of the table at footer offset "
                    + table.footerOffset() + " of " + table.path() + " reaches " + leaves.size()
                    + " leaves, its footer says " + f.leafCount());
        }
    }

    private static void descend(SSTableReader table, int pageNo, int level, List<LeafRef> leaves,
                                IntConsumer interior) throws IOException {
        interior.accept(pageNo);
        InteriorPage page = table.interiorPage(pageNo, level);
        byte[] bytes = page.bytes();
        for (int i = 0; i < page.count(); i++) {
            if (level == 1) {
                try {
                    leaves.add(LeafRef.fromCell(bytes, TreePages.cellOffset(bytes, i)));
                } catch (IndexOutOfBoundsException | IllegalArgumentException e) {
                    throw new CorruptionException(table.path(), (long) pageNo * table.footer().pageSize(),
                            "malformed leaf summary in cell " + i + " of interior page " + pageNo + " of "
                                    + table.path(), e);
                }
            } else {
                descend(table, page.child(i), level - 1, leaves, interior);
            }
        }
    }

    /** A one-leaf table has no interior page: its leaf's summary is the footer's counts. */
    private static LeafRef singleLeaf(SSTableReader table) throws IOException {
        Footer f = table.footer();
        byte[] leaf = table.leafPage(f.rootPage(), table.newPageBuffer());
        LeafDecoder d = table.newLeafDecoder().reset(leaf, f.rootPage());
        d.seekToFirst();
        byte[] minKey = d.currentKey();
        long minSeqno = d.cell().seqno();
        byte[] encodedMin = d.encodedInternalKey();
        d.seekToLast();
        LeafSummary s = new LeafSummary((int) f.entryCount(), (int) f.tombstoneCount(), f.overflowPageCount(),
                f.userBytes(), f.minSeqno(), f.maxSeqno());
        return new LeafRef(f.rootPage(), minKey, minSeqno, d.currentKey(), d.cell().seqno(), encodedMin,
                d.encodedInternalKey(), s);
    }
}
