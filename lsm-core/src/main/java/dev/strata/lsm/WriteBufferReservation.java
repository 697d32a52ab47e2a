package dev.strata.lsm;

import java.util.concurrent.atomic.AtomicLong;

/**
 * Bytes an application holds in a write buffer of its own, before it writes them into a store
 * opened with a {@link SharedResources}, counted in those resources beside the stores'
 * memtables: Kafka Streams state stores keep their writes since the last commit in such a
 * buffer, and under exactly-once Kafka commits a running task's stores only when it suspends
 * or closes the task. With a memtable budget ({@link SharedResources.Builder#memtableBudgetBytes(long)}),
 * the memtables and all the reservations together are held to it: {@link #resize(long)}
 * answers whether they are over it, and the owner of the buffer then writes it into its store
 * (where the memtable budget's own rule, switching and flushing the largest memtable, takes it
 * on) and resizes the reservation to 0. Without a budget the reservation is only counted
 * ({@link SharedResources#writeBufferBytesUsed()}) and is never over.
 *
 * <p>Made by {@link SharedResources#reserveWriteBuffer()}. Thread safety: one thread at a time
 * resizes a reservation (the buffer's owner); any thread may read it, and reservations of one
 * {@code SharedResources} may be resized by different threads at the same time. Lifetime:
 * {@link #close()} releases its bytes; it is closed when its buffer is dropped.
 */
public final class WriteBufferReservation implements AutoCloseable {
    private final SharedResources resources;
    private final AtomicLong total;
    private volatile long bytes;
    private volatile boolean closed;

    WriteBufferReservation(SharedResources resources, AtomicLong total) {
        this.resources = resources;
        this.total = total;
    }

    /**
     * Sets the bytes the buffer holds now (its growth is reserved, its shrinking released) and
     * tells whether the stores' memtables and every write buffer of the resources now hold more
     * than the memtable budget: if so, the caller should write its buffer into its store and
     * resize to 0. Always false without a memtable budget.
     *
     * @param bytesNow the buffer's bytes, &gt;= 0
     * @return true when memtables and write buffers are over the memtable budget
     * @throws IllegalArgumentException when {@code bytesNow} is negative (nothing changes)
     * @throws IllegalStateException when the reservation is closed
     */
    public boolean resize(long bytesNow) {
        if (bytesNow < 0) {
            throw new IllegalArgumentException("a write buffer holds >= 0 bytes, was " + bytesNow);
        }
        if (closed) {
            throw new IllegalStateException("the write buffer reservation is closed");
        }
        long delta = bytesNow - bytes;
        bytes = bytesNow;
        long reserved = delta == 0 ? total.get() : total.addAndGet(delta);
        return bytesNow > 0 && resources.overMemtableBudget(reserved);
    }

    /**
     * The bytes reserved now.
     *
     * @return the bytes the buffer last reported, 0 once closed
     */
    public long bytes() {
        return bytes;
    }

    /** Releases the reserved bytes; the reservation cannot be resized any more. Idempotent. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        total.addAndGet(-bytes);
        bytes = 0;
    }

    @Override
    public String toString() {
        return "WriteBufferReservation[" + bytes + " bytes" + (closed ? ", closed" : "") + "]";
    }
}
