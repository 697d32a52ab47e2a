package dev.strata.lsm.engine;

import dev.strata.lsm.io.StorageIO;
import dev.strata.lsm.memtable.Memtable;
import dev.strata.lsm.version.Component;
import dev.strata.lsm.version.VersionSet;
import dev.strata.lsm.wal.WalRecovery;
import dev.strata.lsm.wal.WalSegments;

import java.io.IOException;
import java.nio.file.Path;

/**
 * Opening a store's data (LevelDB's {@code DBImpl::Recover}): replays the WAL segments from
 * the manifest's log number on into a memtable, starts the memtable set with a new segment,
 * flushes what was replayed as the policy plans a flush (retiring the old segments), and
 * deletes orphan files. Records at or below the manifest's last sequence number are in
 * tables already and are skipped (normally there are none; after a repair, which sets the
 * log number to 0, every surviving segment is read).
 */
final class Recovery {
    private final StorageIO io;
    private final Path dir;
    private final VersionSet versions;
    private final Memtables memtables;
    private final FlushJob flushJob;
    private final ObsoleteFiles obsolete;
    private final EngineCounters counters;

    Recovery(StorageIO io, Path dir, VersionSet versions, Memtables memtables, FlushJob flushJob,
             ObsoleteFiles obsolete, EngineCounters counters) {
        this.io = io;
        this.dir = dir;
        this.versions = versions;
        this.memtables = memtables;
        this.flushJob = flushJob;
        this.obsolete = obsolete;
        this.counters = counters;
    }

    void run() throws IOException {
        long logNumber = versions.logNumber();
        Memtable recovered = new Memtable(logNumber);
        long durable = versions.lastSequence();
        long maxSeq = durable;
        for (Path segment : WalSegments.list(io, dir)) {
            long n = WalSegments.parseNumber(segment).orElse(-1);
            if (n < logNumber) {
                continue;
            }
            long[] last = {maxSeq};
            WalRecovery.recover(io, segment, rec ->
                    last[0] = Math.max(last[0], BatchCodec.replay(rec.payload(), recovered, durable, segment, rec.offset())));
            maxSeq = last[0];
        }
        long newSegment = versions.newFileNumber();
        memtables.start(newSegment, maxSeq);
        // Make the replayed writes a component (as the policy plans a flush) and retire the old segments.
        Component flushed = recovered.isEmpty() ? null : flushJob.write(recovered, new long[0], Long.MAX_VALUE);
        if (flushed == null) {
            flushJob.installNothing(newSegment, maxSeq);
        } else {
            try {
                flushJob.install(flushed, newSegment, maxSeq);
            } catch (RuntimeException | IOException e) {
                obsolete.deleteUninstalled(flushed.meta().fileNumber());
                throw e;
            }
            counters.flushes.incrementAndGet();
        }
        obsolete.deleteOrphans();
    }
}
