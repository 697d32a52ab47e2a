package dev.strata.lsm.sstable;

import java.io.IOException;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;

/**
 * Page-level liveness of a table file that holds several versions of a table (in-place
 * merges, {@link BlockMergeWriter}): which pages the live versions reference, and which runs
 * of pages none of them does, so that the obsolete-files component can release them with
 * {@code PageFile.punchHole} without changing any page number. Computed from footers and
 * interior pages only (format 2 leaf summaries give each leaf's overflow pages); leaves are
 * never read.
 *
 * <p>Only pages up to the end of the newest live footer are considered: pages after it are
 * either a version being written right now or the torn tail of one that never became live,
 * and must not be punched by a liveness pass (recovery truncates a torn tail instead).
 */
public final class TableLiveness {
    private TableLiveness() {
    }

    /**
     * A run of whole pages.
     *
     * @param firstPage first page of the run
     * @param pageCount pages in the run, at least 1
     */
    public record PageRun(int firstPage, int pageCount) {
        /** Byte offset of the run for pages of {@code pageSize} bytes. */
        public long offset(int pageSize) {
            return (long) firstPage * pageSize;
        }

        /** Byte length of the run for pages of {@code pageSize} bytes. */
        public long length(int pageSize) {
            return (long) pageCount * pageSize;
        }
    }

    /**
     * The pages {@code version} references: its footer, bloom extent, interior pages, leaves
     * (including leaves of earlier versions) and the leaves' overflow extents. A version-1
     * table references exactly the pages from its first page to its footer.
     */
    public static BitSet referencedPages(SSTableReader version) throws IOException {
        Footer f = version.footer();
        int pageSize = f.pageSize();
        int footerPage = (int) (version.footerOffset() / pageSize);
        BitSet pages = new BitSet(footerPage + 1);
        if (!f.hasLeafSummaries() || (f.packed() && !f.spanningMap())) {
            // A version written whole (format 1, or packed and not merged in place) references
            // everything from its first page to its footer.
            pages.set(f.firstPage(), footerPage + 1);
            return pages;
        }
        if (f.spanningMap()) {
            // A packed version merged in place references the stored bytes its page map names
            // (its own frames and extents and those it reuses of earlier versions), the map and
            // its footer: every page any of those bytes touch is live, so only pages holding
            // nothing but dead frames are ever punched.
            pages.set(footerPage);
            setBytes(pages, f.pageMapOffset(), f.pageMapLength(), pageSize);
            int base = version.mapBase();
            for (int p = base; p < base + version.mappedPages(); p++) {
                int length = version.mappedLength(p);
                if (length > 0) {
                    setBytes(pages, version.mappedOffset(p), length, pageSize);
                }
            }
            return pages;
        }
        pages.set(footerPage);
        if (f.bloomPage() != PageFormat.NO_PAGE) {
            pages.set(f.bloomPage(), f.bloomPage() + (int) ((f.bloomLength() + (long) pageSize - 1) / pageSize));
        }
        if (f.rangeTombstoneLength() > 0) {
            int first = (int) (f.rangeTombstoneOffset() / pageSize);
            pages.set(first, first + (int) ((f.rangeTombstoneLength() + pageSize - 1) / pageSize));
        }
        List<LeafRef> leaves = new ArrayList<>(f.leafCount());
        LeafIndex.walk(version, leaves, pages::set);
        for (LeafRef leaf : leaves) {
            pages.set(leaf.firstReferencedPage(), leaf.page() + 1);
        }
        return pages;
    }

    /** Marks the pages that bytes {@code [offset, offset + length)} touch. */
    private static void setBytes(BitSet pages, long offset, long length, int pageSize) {
        pages.set((int) (offset / pageSize), (int) ((offset + length + pageSize - 1) / pageSize));
    }

    /**
     * Runs of pages of one file, below the end of the newest of {@code liveVersions} (all
     * opened on that file), that none of the live versions references, in page order.
     *
     * @throws IllegalArgumentException if no live version is given or their page sizes differ
     */
    public static List<PageRun> unreferencedPages(List<SSTableReader> liveVersions) throws IOException {
        if (liveVersions.isEmpty()) {
            throw new IllegalArgumentException("page liveness needs at least one live version"
                    + " (a file with none is deleted whole)");
        }
        int pageSize = liveVersions.get(0).footer().pageSize();
        BitSet live = new BitSet();
        int end = 0;
        for (SSTableReader v : liveVersions) {
            if (v.footer().pageSize() != pageSize) {
                throw new IllegalArgumentException("live versions of " + v.path() + " disagree on the page size: "
                        + pageSize + " and " + v.footer().pageSize());
            }
            live.or(referencedPages(v));
            end = Math.max(end, (int) (v.footerOffset() / pageSize) + 1);
        }
        List<PageRun> runs = new ArrayList<>();
        int page = live.nextClearBit(0);
        while (page < end) {
            int next = Math.min(end, live.nextSetBit(page) < 0 ? end : live.nextSetBit(page));
            runs.add(new PageRun(page, next - page));
            page = live.nextClearBit(next);
        }
        return runs;
    }
}
