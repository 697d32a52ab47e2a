package dev.strata.lsm.bench.workload;

import java.util.PriorityQueue;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The records of one engine run: {@code records} loaded by the fills, then records
 * inserted by YCSB d and e, numbered upwards from {@code records}. Inserts complete out of
 * order across threads, so reads are confined to the acknowledged prefix — every record
 * below {@link #readable()} has been written — as YCSB's acknowledged counter does; this is
 * what lets a read of an inserted record never miss. Thread safe.
 */
public final class Keyspace {
    private final long records;
    private final AtomicLong nextInsert;
    private final PriorityQueue<Long> completedOutOfOrder = new PriorityQueue<>();
    private volatile long readable;
    private volatile boolean loaded;

    /** A key space of {@code records} records, none written yet. */
    public Keyspace(long records) {
        this.records = records;
        this.nextInsert = new AtomicLong(records);
        this.readable = records;
    }

    /** The records the fills write. */
    public long records() {
        return records;
    }

    /** Records every read may address: the loaded ones plus every acknowledged insert. */
    public long readable() {
        return readable;
    }

    /** Marks the {@code records} records as written (a fill or load completed). */
    public void markLoaded() {
        loaded = true;
    }

    /** True once a fill or load has written the {@code records} records. */
    public boolean loaded() {
        return loaded;
    }

    /** Records present: the loaded ones (if loaded) plus acknowledged inserts. */
    public long liveRecords() {
        return (loaded ? records : 0) + (readable - records);
    }

    /** Reserves the number of a new record to insert. */
    public long allocate() {
        return nextInsert.getAndIncrement();
    }

    /** Records that the insert of {@code record} (from {@link #allocate()}) has completed. */
    public synchronized void acknowledge(long record) {
        if (record != readable) {
            completedOutOfOrder.add(record);
            return;
        }
        long next = record + 1;
        while (!completedOutOfOrder.isEmpty() && completedOutOfOrder.peek() == next) {
            completedOutOfOrder.poll();
            next++;
        }
        readable = next;
    }
}
