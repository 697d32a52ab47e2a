package dev.strata.lsm.engine;

import dev.strata.lsm.memtable.Memtable;

import java.util.List;

/**
 * The memtables of a store at one moment: the active one that takes writes and the
 * immutable ones waiting to be flushed, newest first. Replaced as a whole when a memtable is
 * switched out or flushed, never mutated, so a reader that took one sees a consistent set.
 */
record MemtableSet(Memtable active, List<Memtable> immutable) {
    MemtableSet {
        immutable = List.copyOf(immutable);
    }
}
