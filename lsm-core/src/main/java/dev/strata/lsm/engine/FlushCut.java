package dev.strata.lsm.engine;

import dev.strata.lsm.memtable.Memtable;

/**
 * The cut a flush writes a memtable at, taken with the mutex held when the flush starts: the
 * live snapshots (ascending), at or below each of which the flush keeps a key's newest
 * version, and the visible sequence number, above which it leaves entries out (the part of
 * a write group that failed while it was being inserted; see {@link WriteQueue}). Shared by a
 * family's {@link FlushLane} and the store's {@link FlushGroups}. Immutable once taken (the
 * array is not handed out to change).
 *
 * @param snapshots the live snapshots' sequence numbers, ascending
 * @param visible the sequence number a new read sees
 */
record FlushCut(long[] snapshots, long visible) {

    /** The cut now: the store's live snapshots and visible sequence number. Mutex held. */
    static FlushCut take(Snapshots snapshots, WalLog log) {
        return new FlushCut(snapshots.live(), log.visibleSequence());
    }

    /**
     * The last sequence number a flush of {@code m} at this cut records: the memtable's newest,
     * but not above the visible sequence number: a group that failed while it was being
     * inserted left a part there that the flush leaves out; the WAL replays it whole, in this
     * family too (FailedWalAppendAcrossFamiliesTest).
     */
    long lastSequence(Memtable m) {
        return Math.min(m.maxSeqno(), visible);
    }
}
