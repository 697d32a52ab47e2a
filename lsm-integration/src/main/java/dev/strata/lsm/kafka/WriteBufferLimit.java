package dev.strata.lsm.kafka;

import dev.strata.lsm.SharedResources;
import dev.strata.lsm.StoreConfig;
import dev.strata.lsm.WriteBufferReservation;

/**
 * When a store's write buffer (its writes since the last commit: {@link UncommittedWrites},
 * {@link SegmentWriteBuffer}) is to be written into its Strata store before the next commit:
 * past the store's own cap ({@link StrataKeyValueStore#MAX_UNCOMMITTED_BYTES}), or, when the
 * store opens with {@link SharedResources} (the application's {@code strata.*} configs), when
 * the memtables and every write buffer of those resources together are over the memtable
 * budget. The buffer's bytes are reserved in the shared resources
 * ({@link SharedResources#reserveWriteBuffer()}) for as long as the store is open, so
 * {@link SharedResources#writeBufferBytesUsed()} counts them with or without a budget.
 *
 * <p>Threads: a buffer is only ever written by the thread that owns its task (Kafka's single
 * writer), so the rule is the simple one: the thread whose write makes the buffer grow while
 * the total is over the budget writes <em>its own</em> buffer, at once. No other thread asks
 * a store to write. The buffers being written are the ones that grow; a buffer no write
 * touches keeps its bytes (reserved, so counted) until its store's next write, commit or
 * close. Under one stream thread, the buffers together stay within the budget plus the record
 * being added.
 *
 * <p>Not thread safe: the owning store calls it under its monitor; {@link #bytes()} may be
 * read from any thread (metrics).
 */
final class WriteBufferLimit {
    /** The reservation in the shared resources, or null when the store has none. */
    private final WriteBufferReservation reservation;
    private volatile long bytes;

    private WriteBufferLimit(WriteBufferReservation reservation) {
        this.reservation = reservation;
    }

    /** The limit of the buffer of a store opened with {@code config}. */
    static WriteBufferLimit of(StoreConfig config) {
        SharedResources shared = config.sharedResources();
        return new WriteBufferLimit(shared == null ? null : shared.reserveWriteBuffer());
    }

    /**
     * Records that the buffer holds {@code bytesNow}; true when it is to be written now: it is
     * past {@code maxBytes}, its store's own cap, or the shared memtables and write buffers are
     * over the memtable budget.
     */
    boolean resized(long bytesNow, long maxBytes) {
        bytes = bytesNow;
        boolean overShared = reservation != null && reservation.resize(bytesNow);
        return overShared || bytesNow > maxBytes;
    }

    /** Records that the buffer is empty (written or committed). */
    void emptied() {
        resized(0, Long.MAX_VALUE);
    }

    /** The buffer's bytes as last recorded. */
    long bytes() {
        return bytes;
    }

    /** Releases the reservation (the store closed). Idempotent. */
    void close() {
        bytes = 0;
        if (reservation != null) {
            reservation.close();
        }
    }
}
