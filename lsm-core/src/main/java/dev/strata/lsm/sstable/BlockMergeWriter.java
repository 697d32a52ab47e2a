package dev.strata.lsm.sstable;

import dev.strata.lsm.CorruptionException;
import dev.strata.lsm.io.PageFile;

import java.io.IOException;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Writes a new version of a table into the same file by merging sorted new entries into it
 * leaf by leaf (BlockDB's block compaction, seed 001; FAMILIES.md section 2.2). A leaf of the
 * previous version is <em>dirty</em> when some new entry's user key lies within its
 * [first, last] user keys, and <em>clean</em> otherwise (FAMILIES.md 2.2 step 2, the prose
 * reading). Clean leaves are referenced in place: their level-1 cells, summaries included,
 * are copied; their pages are neither read nor written. Dirty leaves are read, merged with
 * their new entries and written as one or more new leaves; new entries between, before or
 * after the old leaves go into a neighbouring leaf that has room for them, which is then
 * merged as a dirty one; otherwise they form new "gap" leaves (also after the last leaf,
 * which the paper's Alg. 1 forgets). {@link LeafWalk} decides, for the writer and for
 * {@link BlockMergePlan} alike. A leaf is cut short before a clean leaf, so new leaves may
 * be small.
 * Then new interior pages, a new bloom filter and a new footer are appended. Nothing is
 * written below the end of the file, so the previous version stays readable; the new one
 * becomes durable when the caller forces the file.
 *
 * <p>Versions of one user key may straddle two leaves. A leaf whose first user key equals the
 * last user key of a dirty leaf is merged too (in one merge with it), so the
 * {@link Retention} always sees every version of a key it may drop newer versions of; it sees
 * only a key's older versions when their newer ones sit in a clean leaf before, which keeps
 * every drop safe (a dropped tombstone or version is never newer than one left in place).
 *
 * <p>The merged entries (dirty leaves and new entries) pass through the retention rule
 * before they are written; entries in clean leaves stay as they are. Entries of a dirty
 * leaf with overflow values are written with new overflow extents (so every leaf's overflow
 * extents stay right before it, see {@link LeafSummary}).
 */
public final class BlockMergeWriter {

    /**
     * Which merged entries the new version keeps, fed in internal-key order;
     * {@code dev.strata.lsm.merge.VersionRetention::keep} fits.
     */
    @FunctionalInterface
    public interface Retention {
        boolean keep(byte[] key, long seqno, EntryType type);

        /** Keeps every entry. */
        static Retention keepAll() {
            return (key, seqno, type) -> true;
        }
    }

    private final PageFile file;
    private final SSTableReader base;
    private final TableOptions options;
    private final InternalIterator input;
    private final Retention retention;
    private final PageSink sink;
    private final TreeBuilder tree;
    private final List<LeafRef> leaves;
    private final BloomFilter bloom;
    /** Hashes of the distinct user keys written into new leaves. */
    private final KeyHashes newKeys = new KeyHashes();
    /** Pages of the previous version's leaves that were merged (not referenced in place). */
    private final Set<Integer> mergedPages = new HashSet<>();
    private long bloomKeys;
    private int dirtyLeavesMerged;
    private byte[] leafBuffer;
    private LeafDecoder leafDecoder;

    private BlockMergeWriter(PageFile file, SSTableReader base, TableOptions options, InternalIterator input,
                             Retention retention) throws IOException {
        this.file = file;
        this.base = base;
        this.options = options;
        this.input = input;
        this.retention = retention;
        this.leaves = LeafIndex.leaves(base);
        // A packed (compressed) base keeps its codec: new pages are compressed with it and
        // packed after the file's end, and the new page map spans the frames reused in place.
        this.sink = base.footer().packed()
                ? new PageSink(file, options.pageSize(), PageCodec.of(base.footer().compression(),
                        options.compressionLevel(), options.lz4Acceleration()), options.parallelCompression(), base.mapBase() + base.mappedPages(),
                        true)
                : new PageSink(file, options.pageSize());
        // The new version keeps its base's format: the leaves it reuses carry that version.
        // ... and its leaf encoding: every leaf of a version has its footer's encoding.
        this.tree = new TreeBuilder(sink, options, true, base.footer().formatVersion(), base.footer().leafEncoding());
        BloomFilter old = base.bloomFilter();
        this.bloom = old == null || base.footer().bloomCapacity() == 0 ? null : old.copyForAppend();
        this.bloomKeys = base.footer().bloomKeys();
        this.prefixes = base.footer().formatVersion() >= PageFormat.FORMAT_VERSION && options.bloomBitsPerKey() > 0
                ? options.prefixExtractor() : null;
    }

    /**
     * The extractor whose prefixes the new keys add to the filter (null for none): the
     * options', on a format that records it. The new version claims it only when every key
     * of the version had its prefix added: the filter was rebuilt, or its base claims the
     * same extractor.
     */
    private final dev.strata.lsm.PrefixExtractor prefixes;

    private void addHash(long h) {
        newKeys.add(h);
        if (bloom != null && !bloom.mightContainHash(h)) {
            bloom.add(h);
            bloomKeys++;
        }
    }

    /**
     * Merges {@code input} (positioned at its first entry; consumed to its end) into the table
     * version {@code base}, appending the new version to {@code file}, the file {@code base}
     * is read from, opened for writing. The new footer records {@code base}'s footer as its
     * previous one. On any failure the file is cut back to its size before the call.
     *
     * @throws IllegalArgumentException if {@code base} is of format version 1, the page sizes
     *     differ, the files differ, or the input is invalid or out of order (nothing is then
     *     left in the file)
     */
    public static BlockMergeResult merge(PageFile file, SSTableReader base, TableOptions options,
                                         InternalIterator input, Retention retention) throws IOException {
        if (!file.path().toAbsolutePath().normalize().equals(base.path().toAbsolutePath().normalize())) {
            throw new IllegalArgumentException("cannot merge in place: the table is read from " + base.path()
                    + " but the output file is " + file.path());
        }
        if (options.pageSize() != base.footer().pageSize()) {
            throw new IllegalArgumentException("cannot merge in place: " + base.path() + " has "
                    + base.footer().pageSize() + "-byte pages, the options say " + options.pageSize());
        }
        long sizeBefore = file.size();
        try {
            return new BlockMergeWriter(file, base, options, input, retention).run();
        } catch (IOException | RuntimeException | Error e) {
            try {
                file.truncate(sizeBefore);
            } catch (IOException | RuntimeException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        }
    }

    private BlockMergeResult run() throws IOException {
        LeafWalk.walk(leaves, input, options.pageSize(), base.footer().leafEncoding(), new LeafWalk.Steps() {
            @Override
            public void gapEntry() throws IOException {
                emitInput();
            }

            @Override
            public int merge(int first) throws IOException {
                return mergeDirty(first);
            }

            @Override
            public void keep(LeafRef leaf) throws IOException {
                if (sink.spanning()) {
                    reference(leaf);
                }
                tree.addLeaf(leaf);
            }
        });
        return finish();
    }

    /**
     * Packed base: the new page map names the clean leaf's frame and its overflow extents
     * (logical pages {@code [leaf − overflowPages, leaf]}) where they are; not a byte is read,
     * copied or recompressed.
     */
    private void reference(LeafRef leaf) {
        if (base.mappedLength(leaf.page()) <= 0) {
            throw new CorruptionException(base.path(), base.footerOffset(), "leaf " + leaf.page() + " of "
                    + base.path() + " has no frame in the page map of the version at " + base.footerOffset());
        }
        for (int p = leaf.firstReferencedPage(); p <= leaf.page(); p++) {
            sink.reference(p, base.mappedOffset(p), base.mappedLength(p));
        }
    }

    /**
     * Merges leaf {@code first} (dirty, or taking in a neighbouring gap's keys, see
     * {@link LeafWalk}), and every following leaf whose first user key equals the previous
     * one's last, with the new entries up to the last such leaf's last user key (and those
     * before {@code first}'s first key); returns the index of the next leaf.
     */
    private int mergeDirty(int first) throws IOException {
        int last = first;
        LeafCursor old = new LeafCursor(leaves.get(first));
        while (true) {
            if (!old.valid()) {
                if (last + 1 < leaves.size()
                        && Arrays.equals(leaves.get(last).maxKey(), leaves.get(last + 1).minKey())) {
                    old = new LeafCursor(leaves.get(++last));
                    continue;
                }
                byte[] bound = leaves.get(last).maxKey();
                while (input.valid() && InternalKeys.compareUserKeys(input.key(), bound) <= 0) {
                    emitInput();
                }
                return last + 1;
            }
            InternalEntry e = old.entry();
            int c = input.valid() ? InternalKeys.compare(input.key(), input.seqno(), e.key(), e.seqno()) : 1;
            if (c <= 0) {
                // On an equal internal key (which a correct tree never holds) the new entry wins.
                emitInput();
                if (c == 0) {
                    old.next();
                }
            } else {
                emit(e.key(), e.seqno(), e.type(), e.value());
                old.next();
            }
        }
    }

    private void emitInput() throws IOException {
        emit(input.key(), input.seqno(), input.type(), input.value());
        input.next();
    }

    private void emit(byte[] key, long seqno, EntryType type, byte[] value) throws IOException {
        if (!retention.keep(key, seqno, type)) {
            return;
        }
        if (tree.add(key, seqno, type, value) && options.bloomBitsPerKey() > 0) {
            addHash(BloomFilter.hash(key));
            if (prefixes != null && prefixes.inDomain(key)) {
                addHash(BloomFilter.prefixHash(prefixes.prefix(key)));
            }
        }
    }

    private BlockMergeResult finish() throws IOException {
        TreeBuilder.Shape shape = tree.finish();
        int bloomPage = PageFormat.NO_PAGE;
        int bloomLength = 0;
        int bloomCrc = 0;
        long keys = 0;
        long capacity = 0;
        boolean rebuilt = false;
        int leavesRead = 0;
        if (options.bloomBitsPerKey() > 0 && tree.entryCount() > 0) {
            BloomFilter filter = bloom;
            keys = bloomKeys;
            capacity = base.footer().bloomCapacity();
            if (filter == null || keys > capacity) {
                // The reserve is used up (or there was no filter): rebuild from every distinct
                // key of the new version, reading the clean leaves' keys.
                rebuilt = true;
                KeyHashes all = new KeyHashes();
                all.addAll(newKeys);
                for (LeafRef leaf : leaves) {
                    if (referencedAsClean(leaf)) {
                        LeafDecoder d = leafDecoder().reset(base.leafPage(leaf.page(), leafBuffer()), leaf.page());
                        for (d.seekToFirst(); d.valid(); d.next()) {
                            byte[] key = d.currentKey();
                            all.add(BloomFilter.hash(key));
                            if (prefixes != null && prefixes.inDomain(key)) {
                                all.add(BloomFilter.prefixHash(prefixes.prefix(key)));
                            }
                        }
                        leavesRead++;
                    }
                }
                int distinct = all.sortDistinct();
                keys = distinct;
                capacity = options.bloomCapacity(distinct);
                filter = BloomFilter.build(all.hashes(), distinct, capacity, options.bloomBitsPerKey());
            }
            byte[] encoded = filter.encode();
            bloomPage = sink.nextPage();
            bloomLength = encoded.length;
            bloomCrc = sink.writeExtent(encoded, encoded.length);
        }
        int bloomPages = bloomPage == PageFormat.NO_PAGE ? 0 : sink.nextPage() - bloomPage;
        String prefixBloom = prefixes == null || bloomPage == PageFormat.NO_PAGE ? ""
                : rebuilt || base.footer().prefixBloom().equals(prefixes.name()) ? prefixes.name() : "";
        PageSink.PageMap map = sink.packed() ? sink.writePageMap() : null;
        long footerOffset = sink.alignForFooter();
        Footer footer = tree.footer(shape, bloomPage, bloomLength, bloomCrc, bloomPages, keys, capacity,
                base.footerOffset(), map, footerOffset, prefixBloom);
        int footerPage = sink.writeFooter(footer.encode());
        sink.flush();
        FinishedTable table = new FinishedTable((long) footerPage * options.pageSize(), footer);
        return new BlockMergeResult(table, tree.leavesReused(), dirtyLeavesMerged, tree.leavesWritten(),
                sink.pagesWritten(), rebuilt, leavesRead, table.endOffset());
    }

    /** Whether the merge referenced {@code leaf} in place (it was neither dirty nor merged with a dirty leaf). */
    private boolean referencedAsClean(LeafRef leaf) {
        return !mergedPages.contains(leaf.page());
    }

    private LeafDecoder leafDecoder() {
        if (leafDecoder == null) {
            leafDecoder = base.newLeafDecoder();
        }
        return leafDecoder;
    }

    private byte[] leafBuffer() {
        if (leafBuffer == null) {
            leafBuffer = base.newPageBuffer();
        }
        return leafBuffer;
    }

    /** The entries of one leaf of the previous version, read once. */
    private final class LeafCursor {
        private final LeafDecoder cells;
        private InternalEntry current;

        LeafCursor(LeafRef leaf) throws IOException {
            int pageNo = leaf.page();
            this.cells = base.newLeafDecoder().reset(base.leafPage(pageNo, base.newPageBuffer()), pageNo);
            cells.seekToFirst();
            dirtyLeavesMerged++;
            mergedPages.add(pageNo);
        }

        boolean valid() {
            return cells.valid();
        }

        InternalEntry entry() throws IOException {
            if (current == null) {
                current = base.entry(cells);
            }
            return current;
        }

        void next() {
            cells.next();
            current = null;
        }
    }

    /** A growable list of 64-bit key hashes. */
    private static final class KeyHashes {
        private long[] hashes = new long[256];
        private int count;

        void add(long h) {
            if (count == hashes.length) {
                hashes = Arrays.copyOf(hashes, count * 2);
            }
            hashes[count++] = h;
        }

        void addAll(KeyHashes other) {
            for (int i = 0; i < other.count; i++) {
                add(other.hashes[i]);
            }
        }

        long[] hashes() {
            return hashes;
        }

        /** Sorts and removes duplicates (a key in two leaves); returns the distinct count. */
        int sortDistinct() {
            Arrays.sort(hashes, 0, count);
            int d = 0;
            for (int i = 0; i < count; i++) {
                if (d == 0 || hashes[d - 1] != hashes[i]) {
                    hashes[d++] = hashes[i];
                }
            }
            count = d;
            return d;
        }
    }
}
