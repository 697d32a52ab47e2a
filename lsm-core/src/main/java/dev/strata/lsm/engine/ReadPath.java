package dev.strata.lsm.engine;

import dev.strata.lsm.Cursor;
import dev.strata.lsm.memtable.Memtable;
import dev.strata.lsm.merge.MergingIterator;
import dev.strata.lsm.sstable.InternalEntry;
import dev.strata.lsm.sstable.InternalIterator;
import dev.strata.lsm.version.Component;
import dev.strata.lsm.version.Run;
import dev.strata.lsm.version.Version;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads at a sequence number over a memtable set and a pinned version (LevelDB's
 * DBImpl::Get and NewIterator): newest source first — the active memtable, the immutable
 * ones, then each run of each level, where a run holds at most one component per key.
 */
final class ReadPath {
    private ReadPath() {
    }

    /** The newest entry of {@code key} at or below {@code seq} in the memtables, or null. */
    static InternalEntry fromMemtables(MemtableSet m, byte[] key, long seq) {
        InternalEntry e = m.active().get(key, seq);
        if (e == null) {
            for (Memtable imm : m.immutable()) {
                e = imm.get(key, seq);
                if (e != null) {
                    break;
                }
            }
        }
        return e;
    }

    /** The newest entry of {@code key} at or below {@code seq} in {@code v}, or null; counts reads per component. */
    static InternalEntry fromVersion(Version v, byte[] key, long seq) throws IOException {
        for (List<Run> level : v.levels()) {
            for (Run run : level) {
                Component c = run.find(key);
                if (c != null) {
                    c.recordRead();
                    InternalEntry e = c.reader().get(key, seq);
                    if (e != null) {
                        return e;
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
    static Cursor scan(MemtableSet m, Version v, long seq, byte[] from, byte[] to, Runnable release,
                       Runnable checkOpen) {
        List<InternalIterator> sources = new ArrayList<>();
        sources.add(m.active().iterator());
        for (Memtable imm : m.immutable()) {
            sources.add(imm.iterator());
        }
        for (List<Run> level : v.levels()) {
            for (Run run : level) {
                sources.add(new RunIterator(run));
            }
        }
        return new StoreCursor(new MergingIterator(sources), seq, from, to, release, checkOpen);
    }
}
