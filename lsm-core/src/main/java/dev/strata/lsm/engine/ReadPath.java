package dev.strata.lsm.engine;

import dev.strata.lsm.sstable.BloomFilter;
import dev.strata.lsm.sstable.EntryType;
import dev.strata.lsm.Cursor;
import dev.strata.lsm.StoreException;
import dev.strata.lsm.memtable.Memtable;
import dev.strata.lsm.merge.MergingIterator;
import dev.strata.lsm.sstable.InternalEntry;
import dev.strata.lsm.sstable.InternalIterator;
import dev.strata.lsm.sstable.InternalKeys;
import dev.strata.lsm.sstable.RangeTombstones;
import dev.strata.lsm.version.Component;
import dev.strata.lsm.version.Run;
import dev.strata.lsm.version.Version;
import dev.strata.lsm.version.VersionSet;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads at a sequence number over a memtable set and a pinned version (LevelDB's
 * DBImpl::Get and NewIterator): newest source first — the active memtable, the immutable
 * ones, then each run of each level, where a run holds at most one component per key.
 * Takes no lock: reads the volatile memtable set, then pins the current version.
 *
 * <p>The read view (docs/engine.md, "Read path"): every read that touches a table reads one
 * view — a memtable set {@code m} taken first, a version {@code v} pinned after it, and a
 * sequence number at which {@code v}'s tables hold, for every key, its newest version:
 * <ul>
 *   <li>the sources are {@code v}'s runs and the memtables of {@code m} whose writes {@code v}
 *       does not hold ({@link #unflushed}: empty, or a first sequence number above
 *       {@code v.lastSequence()}) — the active one included, which may have been switched,
 *       flushed and installed since {@code m} was taken. A memtable read beside the table it
 *       went into shadows that table's entry for the same (key, sequence number), which a
 *       merge may have combined with older operands: they would be lost (or, without the
 *       duplicate drop, counted twice);
 *   <li>a read of the newest data takes its sequence number after its pin, or retakes it
 *       when {@code v.lastSequence()} is above the one it took: a flush or merge installed
 *       after a read took its sequence number may have combined versions at or below it
 *       into one above it (a plain read is no snapshot), and reading {@code v} below them
 *       would find neither. A snapshot's reads keep their sequence number: the snapshot is
 *       registered, so flushes and merges keep what it sees.
 * </ul>
 * A point read first probes every memtable of {@code m} without a pin; a value or tombstone
 * found there is the answer at any such view (the memtables of {@code m} are newer than every
 * table), so only misses and merge operands pin a version.
 */
final class ReadPath {
    private final Memtables memtables;
    private final VersionSet versions;
    private final EngineMutex mutex;
    /** The store's merge operator, or null. */
    private final dev.strata.lsm.mergeop.MergeOperator operator;

    /** The store's clock: a table's last access time. */
    private final java.time.InstantSource clock;

    /**
     * For tests: told {@code "memtables read"} on the reader's thread once a read has taken
     * its memtable set (and, for a point read, probed it) and before it pins a version — the
     * window in which a memtable switch, flush and install can happen.
     */
    private volatile java.util.function.Consumer<String> hook;

    ReadPath(Memtables memtables, VersionSet versions, EngineMutex mutex, dev.strata.lsm.mergeop.MergeOperator operator,
             dev.strata.lsm.PrefixExtractor prefixExtractor, java.util.concurrent.atomic.LongAdder prefixSkips,
             java.time.InstantSource clock) {
        this.clock = clock;
        this.prefixExtractor = prefixExtractor;
        this.prefixSkips = prefixSkips;
        this.memtables = memtables;
        this.versions = versions;
        this.mutex = mutex;
        this.operator = operator;
    }

    /** For tests: sets the read hook (null: none); see {@link #hook}. */
    void hook(java.util.function.Consumer<String> hook) {
        this.hook = hook;
    }

    private void tellHook() {
        java.util.function.Consumer<String> h = hook;
        if (h != null) {
            h.accept("memtables read");
        }
    }

    /** The value of {@code key} at {@code seq} (a snapshot's: registered), or null. */
    byte[] get(byte[] key, long seq) {
        return lookup(key, seq, false, memtables.set());
    }

    /**
     * The newest value of {@code key}, or null. The memtables are read before the visible
     * sequence number (a memtable switched out before it was taken is in the set), and the
     * sequence number is retaken if the version pinned later holds newer writes (see the
     * read view, above).
     */
    byte[] getLatest(byte[] key) {
        MemtableSet m = memtables.set();
        return lookup(key, memtables.visibleSequence(), true, m);
    }

    /**
     * The newest entry of {@code key} (a value or a tombstone) when the memtables hold one,
     * else null: then only the tables can answer. Merge operands whose put or tombstone is in
     * the memtables too come back combined, as a put (or a tombstone when they combine to
     * nothing, which the operator never gives); an operand whose value is below the
     * memtables comes back as it is (a {@link EntryType#MERGE} entry: the tables must be
     * read). When the memtables hold nothing of the key and no table of the current version
     * can (none's key range covers it), the key is absent: a tombstone at sequence number 0
     * ({@link #ABSENT_SEQNO}) says so. Touches memory only (no table, no IO).
     *
     * <p>The absence is read at the read view's order (the memtable set first, then the
     * version, unpinned, since only its components' key ranges are read): a flush installs its
     * table before its memtable leaves the set, so a write in neither the set nor the version
     * read after it is one that began after this read did.
     */
    InternalEntry latestInMemtables(byte[] key) {
        MemtableSet m = memtables.set();
        long seq = memtables.visibleSequence();
        InternalEntry e = fromMemtables(m, null, key, seq);
        long cover = memtableCover(m, null, key, seq);
        if (cover > 0 && (e == null || e.seqno() < cover)) {
            // A range tombstone in memory is newer than anything in the tables: the key is deleted.
            return new InternalEntry(key, cover, EntryType.DELETE, null);
        }
        if (e == null && !anyTableCovers(versions.current(), key)) {
            return new InternalEntry(key, ABSENT_SEQNO, EntryType.DELETE, null);
        }
        if (e != null && e.type() == EntryType.MERGE) {
            byte[][] combined = mergeInMemtables(m, null, key, seq, cover);
            if (combined != null) {
                return new InternalEntry(key, e.seqno(), combined[0] == null ? EntryType.DELETE : EntryType.PUT,
                        combined[0]);
            }
        }
        return e;
    }

    /** The sequence number of {@link #latestInMemtables}'s answer for a key no table can hold. */
    static final long ABSENT_SEQNO = 0;

    /** Whether some component of {@code v} has a key range that contains {@code key}. */
    private static boolean anyTableCovers(Version v, byte[] key) {
        for (List<Run> level : v.levels()) {
            for (Run run : level) {
                if (run.find(key) != null) {
                    return true;
                }
            }
        }
        return false;
    }

    /**
     * The newest values of {@code keys} (null where absent), in the order of {@code keys},
     * read in one pass at one read view: the memtable set, then the version, then the
     * sequence number, taken once (one pin per call, whatever the keys), and the keys looked
     * up in ascending order, so that neighbouring lookups share the memtable's upper levels
     * and the tables' index and data pages.
     */
    byte[][] getLatestAll(byte[][] keys) {
        MemtableSet m = memtables.set();
        tellHook();
        Version[] v = {versions.acquire()};
        long seq = memtables.visibleSequence();
        Integer[] order = new Integer[keys.length];
        for (int i = 0; i < keys.length; i++) {
            order[i] = i;
        }
        java.util.Arrays.sort(order, (a, b) -> java.util.Arrays.compareUnsigned(keys[a], keys[b]));
        byte[][] values = new byte[keys.length][];
        try {
            for (int i : order) {
                values[i] = lookup(keys[i], seq, false, m, v);
            }
        } finally {
            v[0].release();
        }
        return values;
    }

    private byte[] lookup(byte[] key, long seq, boolean latest, MemtableSet m) {
        Version[] v = {null};
        try {
            return lookup(key, seq, latest, m, v);
        } finally {
            if (v[0] != null) {
                v[0].release();
            }
        }
    }

    /**
     * The value of {@code key} at {@code seq}; pins the current version into {@code v[0]} if
     * the tables must be read or a merge operand resolved (the caller releases it). An entry
     * below the newest range tombstone covering the key (among the memtables', and the
     * tables' when they are read) is deleted: the memtables hold only data newer than the
     * tables. With {@code latest} (a read of the newest data, {@code seq} the visible sequence
     * number taken after {@code m}), a pin whose version holds writes above {@code seq}
     * retakes it and reads again from the memtables (the read view, above).
     */
    private byte[] lookup(byte[] key, long seq, boolean latest, MemtableSet m, Version[] v) {
        long cover = memtableCover(m, v[0], key, seq);
        InternalEntry e = fromMemtables(m, v[0], key, seq);
        tellHook();
        if (e == null && cover > 0) {
            // A range tombstone in a memtable is newer than every table entry (a table entry
            // newer than it would come from the same memtable, and be found there): deleted,
            // without reading a table.
            return null;
        }
        if (e != null && e.type() != EntryType.MERGE) {
            return e.seqno() < cover || e.isTombstone() ? null : e.value();
        }
        if (e != null && e.seqno() >= cover) {
            // An operand: combined from the memtables alone when its put or tombstone is there too.
            byte[][] combined = mergeInMemtables(m, v[0], key, seq, cover);
            if (combined != null) {
                return combined[0];
            }
        }
        if (v[0] == null) {
            v[0] = versions.acquire();
            if (latest && v[0].lastSequence() > seq) {
                // A flush installed after seq was taken: its tables may hold versions of the
                // key above seq that replaced (combined) those at or below it. Read at a
                // sequence number the version is complete at, memtables filtered by it.
                return lookup(key, memtables.visibleSequence(), false, m, v);
            }
        }
        if (e == null) {
            try {
                e = fromVersion(v[0], key, seq);
            } catch (IOException ex) {
                // A read racing close() finds the files closed: report it as what it is.
                mutex.checkOpen();
                throw new StoreException("read of " + InternalKeys.describe(key) + " failed: " + ex, ex);
            }
        }
        if (e == null || e.seqno() < cover) {
            return null;
        }
        if (e.type() == EntryType.MERGE) {
            return resolveMerge(key, seq, m, v[0]);
        }
        return e.isTombstone() ? null : e.value();
    }

    /**
     * Whether memtable {@code mt} of a read's set holds writes that version {@code v} does not
     * (null: no version pinned yet, every memtable counts): an empty one, or one whose first
     * sequence number is above every write {@code v} holds ({@code v.lastSequence()}: flushes
     * go oldest first and take a memtable whole, and an ingest flushes every memtable before
     * its sequence number). A memtable that a flush installed into {@code v} is read from its
     * table only — the active memtable of the set included, which may have been switched,
     * flushed and installed after the set was taken. (The first sequence number, not the
     * newest: a memtable holding part of a write group that failed while it was inserted is
     * flushed without that part, above the visible sequence number and the version's last.)
     */
    private static boolean unflushed(Memtable mt, Version v) {
        if (v == null) {
            return true;
        }
        long first = mt.minSeqno();
        return first == 0 || first > v.lastSequence();
    }

    /**
     * The newest range tombstone at or below {@code seq} covering {@code key} in the memtables
     * of {@code m} that {@code v} does not hold (0: none).
     */
    private static long memtableCover(MemtableSet m, Version v, byte[] key, long seq) {
        long cover = unflushed(m.active(), v) ? m.active().rangeTombstones().coveringSeqno(key, seq) : 0;
        for (Memtable imm : m.immutable()) {
            if (unflushed(imm, v)) {
                cover = Math.max(cover, imm.rangeTombstones().coveringSeqno(key, seq));
            }
        }
        return cover;
    }

    /**
     * The newest range tombstone at or below {@code seq} covering {@code key} in {@code v}'s
     * tables (0: none). A table's key bounds cover its tombstones, so each run's component
     * holding the key is the only one of the run to ask; a version without tombstones costs a
     * field read.
     */
    private static long versionCover(Version v, byte[] key, long seq) {
        if (!v.hasRangeTombstones()) {
            return 0;
        }
        long cover = 0;
        for (List<Run> level : v.levels()) {
            for (Run run : level) {
                Component c = run.find(key);
                if (c != null) {
                    cover = Math.max(cover, c.reader().rangeTombstones().coveringSeqno(key, seq));
                }
            }
        }
        return cover;
    }

    /**
     * The value of {@code key} whose newest visible version is a merge operand: every source
     * of the read view ({@code m}, {@code v}, {@code seq}; the caller's pin) merged from the
     * key on, the visible operands collected down to the first put or tombstone (or range
     * tombstone), combined by the operator.
     */
    private byte[] resolveMerge(byte[] key, long seq, MemtableSet m, Version v) {
        long cover = Math.max(memtableCover(m, v, key, seq), versionCover(v, key, seq));
        try (MergingIterator it = new MergingIterator(sources(m, v))) {
            it.seek(key);
            List<byte[]> operands = new ArrayList<>();
            byte[] base = null;
            while (it.valid() && java.util.Arrays.equals(it.key(), key)) {
                if (it.seqno() <= seq) {
                    if (it.seqno() < cover) {
                        break; // deleted by a range tombstone: the operands combine from no value
                    }
                    EntryType t = it.type();
                    if (t == EntryType.MERGE) {
                        operands.add(it.value());
                    } else {
                        if (t == EntryType.PUT) {
                            base = it.value();
                        }
                        break;
                    }
                }
                it.next();
            }
            java.util.Collections.reverse(operands);
            return MergeOperands.fullMerge(operator, key, base, operands);
        } catch (IOException ex) {
            mutex.checkOpen();
            throw new StoreException("read of " + InternalKeys.describe(key) + " failed: " + ex, ex);
        }
    }

    /**
     * The value of {@code key} at {@code seq} whose newest visible version, in a memtable of
     * {@code m} ({@code v} not null: one {@code v} does not hold), is a merge operand, when the
     * memtables also hold what ends its operands: a put, a tombstone, or an entry below
     * {@code cover} (the newest range tombstone covering the key in those memtables). Then the
     * tables hold only older versions, and no version need be pinned nor table read (as for a
     * value found in a memtable, see the read view above). The memtables are walked newest
     * first from the key at {@code seq}; a hot key's operands in a row are few with the
     * successive-merge bound, and its value is in the memtable below them.
     *
     * @return a one-element array holding the value (null: none), or null when the operands
     *     reach below the memtables and the tables must be read
     */
    private byte[][] mergeInMemtables(MemtableSet m, Version v, byte[] key, long seq, long cover) {
        List<byte[]> operands = new ArrayList<>();
        List<Memtable> all = new ArrayList<>(1 + m.immutable().size());
        all.add(m.active());
        all.addAll(m.immutable());
        for (Memtable mt : all) {
            if (!unflushed(mt, v)) {
                continue;
            }
            InternalIterator it = mt.iterator();
            try {
                it.seek(key, seq);
                while (it.valid() && java.util.Arrays.equals(it.key(), key)) {
                    EntryType t = it.type();
                    if (it.seqno() < cover || t != EntryType.MERGE) {
                        byte[] base = it.seqno() >= cover && t == EntryType.PUT ? it.value() : null;
                        java.util.Collections.reverse(operands);
                        return new byte[][] {MergeOperands.fullMerge(operator, key, base, operands)};
                    }
                    operands.add(it.value());
                    it.next();
                }
            } catch (IOException ex) {
                throw new java.io.UncheckedIOException(ex); // a memtable cursor reads memory only
            }
        }
        return null;
    }

    /**
     * The sources of a merged read, newest first: the memtables of {@code m} that {@code v}
     * does not hold ({@link #unflushed}), then the runs of {@code v}.
     */
    private static List<InternalIterator> sources(MemtableSet m, Version v) {
        List<InternalIterator> sources = memtableSources(m, v);
        for (List<Run> level : v.levels()) {
            for (Run run : level) {
                sources.add(new RunIterator(run));
            }
        }
        return sources;
    }

    /** The memtable sources of a merged read, newest first (see {@link #sources(MemtableSet, Version)}). */
    private static List<InternalIterator> memtableSources(MemtableSet m, Version v) {
        List<InternalIterator> sources = new ArrayList<>();
        if (unflushed(m.active(), v)) {
            sources.add(m.active().iterator());
        }
        for (Memtable imm : m.immutable()) {
            if (unflushed(imm, v)) {
                sources.add(imm.iterator());
            }
        }
        return sources;
    }

    /** The store's prefix extractor (null: none), whose prefix blooms a prefix scan trusts. */
    private final dev.strata.lsm.PrefixExtractor prefixExtractor;
    /** Tables prefix scans left out because their prefix bloom excluded the prefix (bounds aside). */
    private final java.util.concurrent.atomic.LongAdder prefixSkips;

    /**
     * A cursor over the live keys starting with {@code prefix} at {@code seq} (the newest data
     * when {@code seq} is negative): a scan of [prefix, successor of prefix) that leaves out
     * every table whose key bounds exclude the prefix or whose prefix bloom, built by the
     * store's extractor, says no key has it. A table left out holds no entry with the prefix,
     * so the result is the range scan's; its range tombstones still apply.
     */
    Cursor scanPrefix(byte[] prefix, long seq) {
        byte[] to = prefixSuccessor(prefix);
        MemtableSet m = memtables.set();
        tellHook();
        Version v = versions.acquire();
        long readSeq = seq < 0 ? memtables.visibleSequence() : seq;
        return new StoreCursor(new MergingIterator(sources(m, v, prefix, to)), readSeq, prefix, to, v::release,
                mutex::checkOpen, operator, rangeTombstones(m, v, readSeq),
                (lo, hi, above) -> mayHoldNewer(m, v, lo, hi, above));
    }

    /**
     * The first key after every key starting with {@code prefix}: the prefix with its last
     * byte below 0xff incremented and the 0xff bytes after it dropped; null (no upper bound)
     * when the prefix is empty or all 0xff.
     */
    static byte[] prefixSuccessor(byte[] prefix) {
        for (int i = prefix.length - 1; i >= 0; i--) {
            if (prefix[i] != (byte) 0xff) {
                byte[] to = java.util.Arrays.copyOf(prefix, i + 1);
                to[i]++;
                return to;
            }
        }
        return null;
    }

    /**
     * {@link #sources(MemtableSet, Version)} for a prefix scan of [prefix, to): each run
     * without the components whose bounds lie outside it or whose prefix bloom rules the
     * prefix out (the latter counted in {@link #prefixSkips}).
     */
    private List<InternalIterator> sources(MemtableSet m, Version v, byte[] prefix, byte[] to) {
        List<InternalIterator> sources = memtableSources(m, v);
        long skipped = 0;
        for (List<Run> level : v.levels()) {
            for (Run run : level) {
                List<Component> kept = new ArrayList<>(run.components().size());
                for (Component c : run.components()) {
                    boolean overlaps = java.util.Arrays.compareUnsigned(c.meta().maxKey(), prefix) >= 0
                            && (to == null || java.util.Arrays.compareUnsigned(c.meta().minKey(), to) < 0);
                    if (!overlaps) {
                        continue;
                    }
                    if (c.reader() == null || c.reader().mayHoldPrefix(prefixExtractor, prefix)) {
                        kept.add(c);
                    } else {
                        skipped++;
                    }
                }
                if (!kept.isEmpty()) {
                    sources.add(new RunIterator(kept.size() == run.components().size() ? run : new Run(run.id(), kept)));
                }
            }
        }
        prefixSkips.add(skipped);
        return sources;
    }

    /** A cursor over live keys in [from, to) at {@code seq}. */
    Cursor scan(byte[] from, byte[] to, long seq) {
        MemtableSet m = memtables.set();
        tellHook();
        Version v = versions.acquire();
        return scan(m, v, seq, from, to, v::release, mutex::checkOpen, operator);
    }

    /** A cursor over the newest data, read after the memtables and version (see {@link #getLatest}). */
    Cursor scanLatest(byte[] from, byte[] to) {
        MemtableSet m = memtables.set();
        tellHook();
        Version v = versions.acquire();
        return scan(m, v, memtables.visibleSequence(), from, to, v::release, mutex::checkOpen, operator);
    }

    /**
     * The newest entry of {@code key} at or below {@code seq} in the memtables of {@code m}
     * that {@code v} does not hold (null {@code v}: in every memtable of {@code m}), or null.
     */
    private static InternalEntry fromMemtables(MemtableSet m, Version v, byte[] key, long seq) {
        InternalEntry e = unflushed(m.active(), v) ? m.active().get(key, seq) : null;
        if (e == null) {
            for (Memtable imm : m.immutable()) {
                if (unflushed(imm, v)) {
                    e = imm.get(key, seq);
                    if (e != null) {
                        break;
                    }
                }
            }
        }
        return e;
    }

    /**
     * The newest entry of {@code key} at or below {@code seq} in {@code v}, or null; counts
     * reads per component. Runs are read newest first, and a table's range tombstones are
     * taken with it: an entry below the newest tombstone covering the key so far reads as a
     * tombstone, and once one covers the key the walk stops at the end of its run (by the
     * stability invariant, later runs hold only older data for any key inside a table's
     * bounds, and a table's bounds cover its tombstones).
     */
    private InternalEntry fromVersion(Version v, byte[] key, long seq) throws IOException {
        boolean rangeTombstones = v.hasRangeTombstones();
        long cover = 0;
        long keyHash = BloomFilter.hash(key); // once for every table's filter
        for (List<Run> level : v.levels()) {
            for (Run run : level) {
                Component c = run.find(key);
                if (c != null) {
                    if (rangeTombstones) {
                        cover = Math.max(cover, c.reader().rangeTombstones().coveringSeqno(key, seq));
                    }
                    c.recordRead(clock.millis());
                    InternalEntry e = c.reader().get(key, keyHash, seq);
                    if (e != null) {
                        return e.seqno() < cover ? InternalEntry.delete(key, cover) : e;
                    }
                    if (cover > 0) {
                        return InternalEntry.delete(key, cover);
                    }
                }
            }
        }
        return null;
    }

    /**
     * A cursor over live keys in [from, to) at {@code seq}, over {@code m} and {@code v};
     * {@code release} unpins {@code v} when the cursor closes, {@code checkOpen} fails reads
     * once the store is closed.
     */
    private static Cursor scan(MemtableSet m, Version v, long seq, byte[] from, byte[] to, Runnable release,
                       Runnable checkOpen, dev.strata.lsm.mergeop.MergeOperator operator) {
        return new StoreCursor(new MergingIterator(sources(m, v)), seq, from, to, release, checkOpen, operator,
                rangeTombstones(m, v, seq), (lo, hi, above) -> mayHoldNewer(m, v, lo, hi, above));
    }

    /**
     * Whether a memtable or table of the read may hold an entry in {@code [from, to)} with a
     * sequence number above {@code seqno}: a memtable whose largest sequence number is above
     * it and which has any entry there, or a table whose largest one is above it and whose
     * bounds overlap the range. Errs towards yes.
     */
    private static boolean mayHoldNewer(MemtableSet m, Version v, byte[] from, byte[] to, long seqno) {
        if (unflushed(m.active(), v) && m.active().maxSeqno() > seqno && m.active().hasEntryIn(from, to)) {
            return true;
        }
        for (Memtable imm : m.immutable()) {
            if (unflushed(imm, v) && imm.maxSeqno() > seqno && imm.hasEntryIn(from, to)) {
                return true;
            }
        }
        for (List<Run> level : v.levels()) {
            for (Run run : level) {
                for (Component c : run.components()) {
                    if (c.meta().maxSeqno() > seqno && java.util.Arrays.compareUnsigned(c.meta().minKey(), to) < 0
                            && java.util.Arrays.compareUnsigned(c.meta().maxKey(), from) >= 0) {
                        return true;
                    }
                }
            }
        }
        return false;
    }

    /**
     * The range tombstones at or below {@code seq} of every memtable and table of a read (one
     * fragmented set, for a cursor to test each entry against); empty without any.
     */
    private static RangeTombstones rangeTombstones(MemtableSet m, Version v, long seq) {
        List<RangeTombstones> sets = new ArrayList<>();
        if (unflushed(m.active(), v)) {
            sets.add(m.active().rangeTombstones());
        }
        for (Memtable imm : m.immutable()) {
            if (unflushed(imm, v)) {
                sets.add(imm.rangeTombstones());
            }
        }
        if (v.hasRangeTombstones()) {
            for (List<Run> level : v.levels()) {
                for (Run run : level) {
                    for (Component c : run.components()) {
                        sets.add(c.reader().rangeTombstones());
                    }
                }
            }
        }
        return RangeTombstones.union(sets).visibleAt(seq);
    }
}
