package dev.strata.lsm.engine;

import dev.strata.lsm.merge.VersionRetention;
import dev.strata.lsm.sstable.ForwardingInternalIterator;
import dev.strata.lsm.sstable.InternalIterator;
import dev.strata.lsm.sstable.RangeTombstones;

import java.io.IOException;

/**
 * Leaves out of a flush's or merge's input the entries that its range tombstones delete for
 * every reader that can still come: an entry covered by a tombstone of the same snapshot
 * stripe ({@link VersionRetention#stripe}) is seen by no snapshot (each snapshot that sees the
 * entry sees the tombstone too), so it is dropped. An entry with a snapshot between it and
 * the lowest tombstone above it stays: that snapshot still reads it. Runs before
 * {@link MergeCollapsingIterator}, so merge operands never combine with a value a tombstone
 * deleted. Forward only; not thread safe.
 */
final class RangeTombstoneFilter extends ForwardingInternalIterator {
    private final InternalIterator in;
    private final RangeTombstones tombstones;
    private final VersionRetention stripes;

    RangeTombstoneFilter(InternalIterator in, RangeTombstones tombstones, VersionRetention stripes) {
        this.in = in;
        this.tombstones = tombstones;
        this.stripes = stripes;
    }

    /** A filtered view of {@code in}, starting where {@code in} is positioned now. */
    static InternalIterator atInput(InternalIterator in, RangeTombstones tombstones, VersionRetention stripes)
            throws IOException {
        RangeTombstoneFilter f = new RangeTombstoneFilter(in, tombstones, stripes);
        f.skipDeleted();
        return f;
    }

    @Override
    protected InternalIterator positioned() {
        return in;
    }

    @Override
    public void seekToFirst() throws IOException {
        in.seekToFirst();
        skipDeleted();
    }

    @Override
    public void seek(byte[] userKey, long seqno) throws IOException {
        in.seek(userKey, seqno);
        skipDeleted();
    }

    /** Not supported: a flush's or merge's input is read forward only. */
    @Override
    public void seekToLast() {
        throw new UnsupportedOperationException("a range-tombstone filter is read forward only");
    }

    /** Not supported: a flush's or merge's input is read forward only. */
    @Override
    public void prev() {
        throw new UnsupportedOperationException("a range-tombstone filter is read forward only");
    }

    @Override
    public boolean valid() {
        return in.valid();
    }

    @Override
    public void next() throws IOException {
        in.next();
        skipDeleted();
    }

    private void skipDeleted() throws IOException {
        while (in.valid() && deleted(in.key(), in.seqno())) {
            in.next();
        }
    }

    private boolean deleted(byte[] key, long seqno) {
        long t = tombstones.lowestCoveringAbove(key, seqno);
        return t >= 0 && stripes.stripe(t) == stripes.stripe(seqno);
    }

    @Override
    public void close() throws IOException {
        in.close();
    }
}
