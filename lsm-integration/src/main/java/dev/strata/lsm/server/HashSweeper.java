package dev.strata.lsm.server;

import dev.strata.lsm.ColumnFamily;
import dev.strata.lsm.Cursor;
import dev.strata.lsm.LsmStore;
import dev.strata.lsm.WriteBatch;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.LongSupplier;

/**
 * Reclaims the fields of hashes that are gone: a DEL, expiry, overwrite or RENAME of a hash
 * removes or replaces only its metadata record (O(1)), and its fields stay behind under a
 * version no metadata names. The sweeper walks the hash field range a slice at a time, in key
 * order, and deletes every field whose hash's metadata is missing, expired, a string, or of
 * another version — the check Apache Kvrocks' compaction filter makes per field.
 *
 * <p>Each key's garbage is deleted in write batches taken under that key's {@link KeyLocks}
 * stripe, after reading its metadata again under the lock: no command writes the key in
 * between, and a new hash at the key takes a version above every field still stored (see
 * {@link HashCommands}), so a live field is never deleted.
 *
 * <p>Pacing ({@link #tick}, every {@value #TICK_MILLIS} ms on the node's sweeper thread):
 * {@value #SLICE} records a tick while a pass through the range finds garbage or a command
 * {@link #markDirty marked} some (DEL, UNLINK, RENAME, EXPIRE, or SET with NX, XX, GET or
 * KEEPTTL meeting a hash); after a pass that found none, the next pass waits
 * {@value #IDLE_MINUTES} minutes unless marked (a plain SET, SETEX or MSET over a hash does not
 * read it, so its fields wait for that pass).
 * Thread safe: the calls that sweep are synchronized.
 */
final class HashSweeper {
    /** The end of the hash field range ({@code 0xFF 'i'}). */
    private static final byte[] FIELDS_END = RespCommands.prefixEnd(NodeKeys.HASH_FIELDS);
    /** Most deletes in one write batch. */
    private static final int BATCH = 1024;
    static final int TICK_MILLIS = 100;
    static final int SLICE = 2000;
    static final int IDLE_MINUTES = 10;

    private final LsmStore store;
    private final ColumnFamily fields;
    private final KeyLocks locks;
    private final LongSupplier clock;
    /** Where the next slice starts (exclusive), or null at the start of the range. */
    private byte[] after;
    private final java.util.concurrent.atomic.AtomicLong deletedTotal = new java.util.concurrent.atomic.AtomicLong();
    private volatile boolean dirty = true;
    private long idleUntilNanos = System.nanoTime();
    private long deletedThisPass;

    HashSweeper(LsmStore store, ColumnFamily fields, KeyLocks locks, LongSupplier clock) {
        this.store = store;
        this.fields = fields;
        this.locks = locks;
        this.clock = clock;
    }

    /** What one {@link #sweep} call did. */
    record Slice(int examined, int deleted, boolean wrapped) {
    }

    /**
     * Examines up to {@code budget} field records from where the last call stopped, deleting
     * the garbage among them; {@code wrapped} when it reached the end of the range (the next
     * call starts again at the beginning).
     */
    synchronized Slice sweep(int budget) {
        int examined = 0;
        int deleted = 0;
        byte[] from = after == null ? NodeKeys.HASH_FIELDS : Arrays.copyOf(after, after.length + 1);
        byte[] groupKey = null;
        long liveVersion = -1;
        List<byte[]> garbage = new ArrayList<>();
        boolean wrapped = true;
        try (Cursor c = store.scan(fields, from, FIELDS_END)) {
            while (c.next()) {
                if (examined >= budget) {
                    wrapped = false;
                    break;
                }
                byte[] k = c.key();
                examined++;
                after = k;
                byte[] key = keyOf(k);
                if (groupKey == null || !Arrays.equals(key, groupKey)) {
                    deleted += delete(groupKey, garbage);
                    groupKey = key;
                    liveVersion = liveVersion(key);
                }
                if (NodeKeys.hashVersion(k, key) != liveVersion) {
                    garbage.add(k);
                    if (garbage.size() >= BATCH) {
                        deleted += delete(groupKey, garbage);
                    }
                }
            }
        }
        deleted += delete(groupKey, garbage);
        if (wrapped) {
            after = null;
        }
        deletedTotal.addAndGet(deleted);
        return new Slice(examined, deleted, wrapped);
    }

    /** Sweeps all the range at once (from the start); returns the records deleted. */
    synchronized long sweepAll() {
        after = null;
        long n = 0;
        Slice s;
        do {
            s = sweep(Integer.MAX_VALUE);
            n += s.deleted();
        } while (!s.wrapped());
        return n;
    }

    /** A command left (or may have left) a hash's fields behind: the sweeper resumes at once. */
    void markDirty() {
        dirty = true;
    }

    /** One paced step (see the class comment); called every {@value #TICK_MILLIS} ms. */
    synchronized void tick() {
        if (after == null && System.nanoTime() - idleUntilNanos < 0 && !dirty) {
            // Between passes, idle after one that found nothing.
            return;
        }
        if (after == null) {
            // A pass starts: marks from now on ask for another one.
            dirty = false;
        }
        Slice s = sweep(SLICE);
        deletedThisPass += s.deleted();
        if (s.wrapped()) {
            if (deletedThisPass == 0) {
                idleUntilNanos = System.nanoTime() + java.util.concurrent.TimeUnit.MINUTES.toNanos(IDLE_MINUTES);
            }
            deletedThisPass = 0;
        }
    }

    /** Field records deleted since the node started. */
    long deletedTotal() {
        return deletedTotal.get();
    }

    /** The version of the live hash at {@code key}, or -1 when there is none (missing, expired or a string). */
    private long liveVersion(byte[] key) {
        byte[] stored = store.get(NodeKeys.stored(key));
        long now = clock.getAsLong();
        if (!StoredValue.live(stored, now) || stored[0] != StoredValue.HASH) {
            return -1;
        }
        return HashMeta.decode(stored, now).version();
    }

    /** Deletes {@code garbage} (fields of {@code key}) that are still garbage under the key's lock; clears it. */
    private int delete(byte[] key, List<byte[]> garbage) {
        if (garbage.isEmpty()) {
            return 0;
        }
        int n = 0;
        try (KeyLocks.Held ignored = locks.lock(key)) {
            long live = liveVersion(key);
            WriteBatch batch = new WriteBatch();
            for (byte[] k : garbage) {
                if (NodeKeys.hashVersion(k, key) != live) {
                    batch.delete(fields, k);
                    n++;
                }
            }
            if (!batch.isEmpty()) {
                store.write(batch);
            }
        }
        garbage.clear();
        return n;
    }

    /** The hash key a field record belongs to. */
    private static byte[] keyOf(byte[] field) {
        int len = ((field[2] & 0xff) << 24) | ((field[3] & 0xff) << 16) | ((field[4] & 0xff) << 8) | (field[5] & 0xff);
        return Arrays.copyOfRange(field, 6, 6 + len);
    }
}
