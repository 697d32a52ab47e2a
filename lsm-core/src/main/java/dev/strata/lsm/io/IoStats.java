package dev.strata.lsm.io;

import java.util.Collections;
import java.util.EnumMap;
import java.util.Map;

/** An immutable snapshot of {@link IoCounters}. */
public final class IoStats {

    /** Counters of one purpose. */
    public record PurposeStats(long bytesRead, long reads, long bytesWritten, long writes, long forces) {
        static final PurposeStats ZERO = new PurposeStats(0, 0, 0, 0, 0);

        PurposeStats minus(PurposeStats o) {
            return new PurposeStats(bytesRead - o.bytesRead, reads - o.reads,
                    bytesWritten - o.bytesWritten, writes - o.writes, forces - o.forces);
        }
    }

    private final Map<IoPurpose, PurposeStats> byPurpose;

    IoStats(Map<IoPurpose, PurposeStats> byPurpose) {
        this.byPurpose = Collections.unmodifiableMap(new EnumMap<>(byPurpose));
    }

    /**
     * Counters of {@code purpose}.
     *
     * @param purpose the purpose asked about (not null)
     * @return that purpose's counters (zeros when it did no IO)
     */
    public PurposeStats of(IoPurpose purpose) {
        return byPurpose.getOrDefault(purpose, PurposeStats.ZERO);
    }

    /**
     * Bytes read for {@code purpose}.
     *
     * @param purpose the purpose asked about (not null)
     * @return bytes read through handles opened for {@code purpose}
     */
    public long bytesRead(IoPurpose purpose) {
        return of(purpose).bytesRead();
    }

    /**
     * Bytes written for {@code purpose}.
     *
     * @param purpose the purpose asked about (not null)
     * @return bytes written through handles opened for {@code purpose}
     */
    public long bytesWritten(IoPurpose purpose) {
        return of(purpose).bytesWritten();
    }

    /**
     * Read calls for {@code purpose}.
     *
     * @param purpose the purpose asked about (not null)
     * @return the number of read calls through handles opened for {@code purpose}
     */
    public long reads(IoPurpose purpose) {
        return of(purpose).reads();
    }

    /**
     * Write calls for {@code purpose}.
     *
     * @param purpose the purpose asked about (not null)
     * @return the number of write calls (appends included) through handles opened for {@code
     *     purpose}
     */
    public long writes(IoPurpose purpose) {
        return of(purpose).writes();
    }

    /**
     * Forces (fsync or fdatasync) for {@code purpose}.
     *
     * @param purpose the purpose asked about (not null)
     * @return the number of forces through handles opened for {@code purpose}
     */
    public long forces(IoPurpose purpose) {
        return of(purpose).forces();
    }

    /**
     * Bytes read over all purposes.
     *
     * @return the sum of bytes read for every purpose
     */
    public long totalBytesRead() {
        return byPurpose.values().stream().mapToLong(PurposeStats::bytesRead).sum();
    }

    /**
     * Bytes written over all purposes.
     *
     * @return the sum of bytes written for every purpose
     */
    public long totalBytesWritten() {
        return byPurpose.values().stream().mapToLong(PurposeStats::bytesWritten).sum();
    }

    /**
     * Read operations over all purposes.
     *
     * @return the sum of read calls for every purpose
     */
    public long totalReads() {
        return byPurpose.values().stream().mapToLong(PurposeStats::reads).sum();
    }

    /**
     * The counts that happened between {@code earlier} and this snapshot.
     *
     * @param earlier an earlier snapshot of the same counters
     * @return a new snapshot holding this one's counts less {@code earlier}'s, purpose by purpose
     */
    public IoStats minus(IoStats earlier) {
        Map<IoPurpose, PurposeStats> diff = new EnumMap<>(IoPurpose.class);
        for (IoPurpose p : IoPurpose.values()) {
            diff.put(p, of(p).minus(earlier.of(p)));
        }
        return new IoStats(diff);
    }

    @Override
    public String toString() {
        return "IoStats" + byPurpose;
    }
}
