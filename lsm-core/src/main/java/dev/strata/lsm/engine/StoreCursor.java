package dev.strata.lsm.engine;

import dev.strata.lsm.Cursor;
import dev.strata.lsm.StoreClosedException;
import dev.strata.lsm.StoreException;
import dev.strata.lsm.mergeop.MergeOperator;
import dev.strata.lsm.sstable.InternalIterator;
import dev.strata.lsm.sstable.EntryType;
import dev.strata.lsm.sstable.InternalKeys;
import dev.strata.lsm.sstable.RangeTombstones;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;

/**
 * A {@link Cursor} over a merged internal stream (LevelDB's DBIter): for each user key in
 * range it yields the newest version visible at the read sequence number, skipping
 * tombstones, in both directions. It pins the version it reads until closed. Once its store
 * is closed it throws {@link StoreClosedException}, like every other call on the store.
 *
 * <p>Where the merged iterator stands depends on the direction of the last move, as in
 * DBIter. Going forward it is on the entry whose value is shown (the newest visible version
 * of {@link #key}), so the next key is found by skipping the rest of that key's versions.
 * Going backwards it stands before every entry of {@link #key} (on an entry of a smaller
 * user key, or invalid), because finding a key's newest visible version backwards means
 * passing all its versions: the key and value shown are copies saved on the way
 * ({@link #findPrevUserEntry}).
 */
final class StoreCursor implements Cursor {
    /** Where the cursor is: before the first entry, on one, or after the last. */
    private enum Position { BEFORE_FIRST, ON_ENTRY, AFTER_LAST }

    private final InternalIterator it;
    /** The store's merge operator (null: none, and an operand met is an error). */
    private final MergeOperator operator;
    private final long readSeq;
    /** The range tombstones of the read, at or below {@link #readSeq}; null when there are none. */
    private final RangeTombstones rangeTombstones;
    /** Tells whether a key range may hold entries newer than a sequence number; see {@link #skippable}. */
    private final NewerData newerData;
    /** The last fragment {@link #skippable} judged, and its answer. */
    private RangeTombstones.Fragment judged;
    private boolean judgedSkippable;

    /** Whether any source of the read may hold an entry in [from, to) with a sequence number above seqno. */
    @FunctionalInterface
    interface NewerData {
        boolean mayHold(byte[] from, byte[] to, long seqno);
    }
    private final byte[] from;
    private final byte[] to;
    private final Runnable onClose;
    private final Runnable checkStoreOpen;
    private boolean closed;
    private Position position = Position.BEFORE_FIRST;
    /** Whether the last move went backwards (meaningful on an entry): see the class comment. */
    private boolean reverse;
    private byte[] key;
    private byte[] value;

    /**
     * @param from smallest key included, null for none
     * @param to first key excluded, null for none
     * @param onClose runs once when the cursor is closed
     * @param checkStoreOpen throws {@link StoreClosedException} once the store is closed
     * @param rangeTombstones the range tombstones of every source at or below {@code readSeq}:
     *     an entry they cover reads as a tombstone
     * @param newerData whether a key range of the sources may hold entries newer than a
     *     sequence number: where none can, a covered fragment is skipped by one seek
     */
    StoreCursor(InternalIterator it, long readSeq, byte[] from, byte[] to, Runnable onClose, Runnable checkStoreOpen,
                MergeOperator operator, RangeTombstones rangeTombstones, NewerData newerData) {
        this.it = it;
        this.newerData = newerData;
        this.rangeTombstones = rangeTombstones.isEmpty() ? null : rangeTombstones;
        this.operator = operator;
        this.readSeq = readSeq;
        this.from = from == null ? null : from.clone();
        this.to = to == null ? null : to.clone();
        this.onClose = onClose;
        this.checkStoreOpen = checkStoreOpen;
    }

    private void checkUsable() {
        if (closed) {
            throw new StoreClosedException("cursor is closed");
        }
        checkStoreOpen.run();
    }

    /** A move of the merged iterator, which may read tables. */
    private interface Move {
        boolean run() throws IOException;
    }

    private boolean move(Move m) {
        checkUsable();
        try {
            return m.run();
        } catch (IOException e) {
            // The store may have closed the files under this cursor meanwhile.
            checkStoreOpen.run();
            throw new StoreException("scan failed: " + e, e);
        }
    }

    @Override
    public boolean next() {
        return move(() -> switch (position) {
            case BEFORE_FIRST -> first();
            case AFTER_LAST -> false;
            case ON_ENTRY -> {
                if (reverse) {
                    // The merged iterator is before every entry of key: step onto them and past them.
                    if (it.valid()) {
                        it.next();
                    } else {
                        seekLowerBound();
                    }
                    while (it.valid() && InternalKeys.compareUserKeys(it.key(), key) <= 0) {
                        it.next();
                    }
                } else {
                    // Skip the remaining (older) versions of the key shown.
                    while (it.valid() && Arrays.equals(it.key(), key)) {
                        it.next();
                    }
                }
                yield findNextUserEntry();
            }
        });
    }

    @Override
    public boolean prev() {
        return move(() -> switch (position) {
            case BEFORE_FIRST -> false;
            case AFTER_LAST -> last();
            case ON_ENTRY -> {
                if (!reverse) {
                    // The merged iterator is on a version of key or past them (merge operands
                    // were read ahead): step back before all of them.
                    if (!it.valid()) {
                        it.seekToLast();
                    }
                    while (it.valid() && InternalKeys.compareUserKeys(it.key(), key) >= 0) {
                        it.prev();
                    }
                }
                yield findPrevUserEntry();
            }
        });
    }

    @Override
    public boolean seek(byte[] target) {
        byte[] t = target.clone();
        return move(() -> {
            if (from != null && InternalKeys.compareUserKeys(t, from) < 0) {
                return first();
            }
            if (to != null && InternalKeys.compareUserKeys(t, to) >= 0) {
                return off(Position.AFTER_LAST);
            }
            it.seek(t);
            return findNextUserEntry();
        });
    }

    @Override
    public boolean seekForPrev(byte[] target) {
        byte[] t = target.clone();
        return move(() -> {
            if (to != null && InternalKeys.compareUserKeys(t, to) >= 0) {
                return last();
            }
            if (from != null && InternalKeys.compareUserKeys(t, from) < 0) {
                return off(Position.BEFORE_FIRST);
            }
            it.seekForPrev(t);
            return findPrevUserEntry();
        });
    }

    @Override
    public boolean seekToFirst() {
        return move(this::first);
    }

    @Override
    public boolean seekToLast() {
        return move(this::last);
    }

    private boolean first() throws IOException {
        if (emptyRange()) {
            return off(Position.BEFORE_FIRST);
        }
        seekLowerBound();
        return findNextUserEntry();
    }

    private boolean last() throws IOException {
        if (emptyRange()) {
            return off(Position.AFTER_LAST);
        }
        if (to == null) {
            it.seekToLast();
        } else {
            // (to, MAX_SEQNO) is the smallest internal key of `to`: what lies at or before it is
            // below the bound (findPrevUserEntry skips an entry of `to` itself, had one that seqno).
            it.seekForPrev(to, InternalKeys.MAX_SEQNO);
        }
        return findPrevUserEntry();
    }

    private boolean emptyRange() {
        return from != null && to != null && InternalKeys.compareUserKeys(from, to) >= 0;
    }

    private void seekLowerBound() throws IOException {
        if (from == null) {
            it.seekToFirst();
        } else {
            it.seek(from);
        }
    }

    /**
     * The type of the merged iterator's entry as the read sees it: {@link EntryType#DELETE}
     * when a range tombstone of the read covers it.
     */
    private EntryType visibleType() {
        if (rangeTombstones != null && rangeTombstones.covers(it.key(), it.seqno(), readSeq)) {
            return EntryType.DELETE;
        }
        return it.type();
    }

    /**
     * The fragment of a range tombstone covering the merged iterator's entry when every entry
     * the read sees in the fragment is covered (no source may hold an entry newer than its
     * tombstone there), so the cursor may seek past it instead of stepping over each entry;
     * else null. The answer for the last fragment is kept: the entries of a fragment come one
     * after another.
     */
    private RangeTombstones.Fragment skippable() {
        if (rangeTombstones == null) {
            return null;
        }
        RangeTombstones.Fragment f = rangeTombstones.covering(it.key(), readSeq);
        if (f == null || it.seqno() >= f.seqno()) {
            return null;
        }
        if (judged == null || judged.seqno() != f.seqno() || !Arrays.equals(judged.start(), f.start())
                || !Arrays.equals(judged.end(), f.end())) {
            judged = f;
            judgedSkippable = !newerData.mayHold(f.start(), f.end(), f.seqno());
        }
        return judgedSkippable ? f : null;
    }

    /**
     * From the merged iterator's entry onwards, finds the first user key below the upper bound
     * whose newest visible version is a put, and stands on that version.
     */
    private boolean findNextUserEntry() throws IOException {
        while (it.valid()) {
            byte[] k = it.key();
            if (to != null && InternalKeys.compareUserKeys(k, to) >= 0) {
                break;
            }
            if (it.seqno() > readSeq) {
                it.next();
                continue;
            }
            EntryType type = visibleType();
            if (type == EntryType.DELETE) {
                RangeTombstones.Fragment skip = skippable();
                if (skip != null) {
                    it.seek(skip.end()); // every entry the read sees up to the fragment's end is covered
                    continue;
                }
                while (it.valid() && Arrays.equals(it.key(), k)) {
                    it.next();
                }
                continue;
            }
            if (type == EntryType.MERGE) {
                return on(k, mergeForward(k), false);
            }
            return on(k, it.value(), false);
        }
        return off(Position.AFTER_LAST);
    }

    /**
     * With the merged iterator on the newest visible version of {@code k}, an operand: reads
     * the visible operands down to the first put or tombstone and returns their full merge;
     * the iterator is left on a later version of {@code k} or past them.
     */
    private byte[] mergeForward(byte[] k) throws IOException {
        List<byte[]> operands = new ArrayList<>();
        byte[] base = null;
        while (it.valid() && Arrays.equals(it.key(), k)) {
            if (it.seqno() <= readSeq) {
                EntryType t = visibleType();
                if (t != EntryType.MERGE) {
                    base = t == EntryType.PUT ? it.value() : null;
                    break;
                }
                operands.add(it.value());
            }
            it.next();
        }
        Collections.reverse(operands);
        return MergeOperands.fullMerge(operator, k, base, operands);
    }

    /**
     * From the merged iterator's entry backwards, finds the last user key not below the lower
     * bound whose newest visible version is a put (LevelDB's DBIter::FindPrevUserEntry).
     * Backwards a key's versions come oldest first, so each visible version replaces the
     * candidate; the candidate is settled when a visible entry of a smaller key comes up,
     * and the merged iterator is left there, before every entry of the key shown.
     */
    private boolean findPrevUserEntry() throws IOException {
        byte[] current = null;       // the key whose versions are being read
        boolean present = false;     // whether its newest visible version so far leaves it present
        byte[] base = null;          // its newest visible put's value below the operands
        List<byte[]> operands = null; // visible operands above that, oldest first
        while (it.valid()) {
            byte[] k = it.key();
            if (from != null && InternalKeys.compareUserKeys(k, from) < 0) {
                break;
            }
            if (it.seqno() <= readSeq && (to == null || InternalKeys.compareUserKeys(k, to) < 0)) {
                if (current != null && InternalKeys.compareUserKeys(k, current) < 0) {
                    if (present) {
                        break;
                    }
                    operands = null;
                    base = null;
                }
                current = k;
                EntryType t = visibleType();
                RangeTombstones.Fragment skip = t == EntryType.DELETE ? skippable() : null;
                if (skip != null) {
                    // Every entry the read sees from the fragment's start to here is covered:
                    // land on the last entry before the fragment.
                    present = false;
                    base = null;
                    operands = null;
                    it.seekForPrev(skip.start(), InternalKeys.MAX_SEQNO);
                    continue;
                }
                if (t == EntryType.DELETE) {
                    present = false;
                    base = null;
                    operands = null;
                } else if (t == EntryType.MERGE) {
                    present = true;
                    if (operands == null) {
                        operands = new ArrayList<>();
                    }
                    operands.add(it.value());
                } else {
                    present = true;
                    base = it.value();
                    operands = null;
                }
            }
            it.prev();
        }
        if (current == null || !present) {
            return off(Position.BEFORE_FIRST);
        }
        return on(current, operands == null ? base : MergeOperands.fullMerge(operator, current, base, operands), true);
    }

    private boolean on(byte[] k, byte[] v, boolean backwards) {
        key = k;
        value = v;
        reverse = backwards;
        position = Position.ON_ENTRY;
        return true;
    }

    private boolean off(Position p) {
        key = null;
        value = null;
        position = p;
        return false;
    }

    @Override
    public byte[] key() {
        checkUsable();
        if (position != Position.ON_ENTRY) {
            throw new IllegalStateException("cursor is not positioned at a key");
        }
        return key;
    }

    @Override
    public byte[] value() {
        checkUsable();
        if (position != Position.ON_ENTRY) {
            throw new IllegalStateException("cursor is not positioned at a key");
        }
        return value;
    }

    @Override
    public void close() {
        if (!closed) {
            closed = true;
            onClose.run();
        }
    }
}
