package dev.strata.lsm.bench.torture;

import java.io.IOException;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * What the store must hold for every key of a bounded key space, kept in a memory-mapped
 * file that the torture child writes and the parent reads after killing it. A write into
 * a shared mapping is in the kernel's page cache as soon as the store instruction retires,
 * so it survives a kill of the process: the child records a write as pending
 * <em>before</em> issuing it and as acknowledged <em>after</em> the store returned.
 *
 * <p>Every write gets a fresh version from a global counter, so a value names the write
 * that produced it ({@link TortureValues}). Per key two 8-byte words, each one store:
 * <ul>
 *   <li><b>stable</b>: {@code version << 1 | deleted}, the write the store must hold at
 *       least (0: never written, so absent). In {@code sync} and {@code async} WAL mode it is
 *       the last acknowledged write; in {@code none} mode the last write acknowledged before
 *       a {@code flush()} or clean close returned.</li>
 *   <li><b>pending</b>: {@code maxVersion << 1 | anyDelete}: every write to the key with a
 *       version in {@code (stable, maxVersion]} may or may not be there (issued but not
 *       acknowledged, failed with an exception, or, in {@code none} mode, acknowledged but
 *       not yet flushed); {@code anyDelete} says whether one of them was a delete.</li>
 * </ul>
 * The header holds the version counter, the child's progress counters (read by the
 * parent's progress bar), the last batch issued and a ring of the last {@link #RING} batches,
 * for the atomicity check.
 *
 * <p>Counter keys ({@link TortureValues#isCounter}) hold a {@code uint64add} counter, whose
 * value is {@code baseVersion << COUNT_BITS | operands} (see {@link TortureValues}), and
 * their words mean:
 * <ul>
 *   <li><b>stable</b>: {@code value << 1} ({@link #counterWord}), 0 when absent: the value the
 *       store must hold, under the same rule as other keys' stable word;</li>
 *   <li><b>pending</b>: {@code maxPutVersion << 24 | operands << 1 | anyDelete}: since the
 *       stable value, {@code operands} merges, puts up to version {@code maxPutVersion} (0:
 *       none) and a delete or not were issued and may or may not be there. The store then
 *       holds the stable value with up to {@code operands} more operands, or a pending put's
 *       base (or, after a pending delete, no base) with up to {@code operands} operands.</li>
 * </ul>
 */
public final class ExpectedState implements AutoCloseable {
    static final long MAGIC = 0x5354524154415452L; // "STRATATR"
    static final int HEADER_BYTES = 4096;
    static final int SLOT_BYTES = 16;
    /** Most operations of a batch the header can describe. */
    public static final int MAX_BATCH = 16;

    private static final int OFF_MAGIC = 0;
    private static final int OFF_KEYS = 8;
    private static final int OFF_NEXT_VERSION = 16;
    private static final int OFF_OPS = 24;
    private static final int OFF_FAULTS = 32;
    private static final int OFF_CHECKS = 40;
    private static final int OFF_CHILD_STATE = 48;
    private static final int OFF_BATCH_FIRST = 56;
    private static final int OFF_BATCH_COUNT = 64;
    private static final int OFF_BATCH_DELETES = 68;
    private static final int OFF_BATCH_KEYS = 72;
    private static final int OFF_STOP = 144;
    private static final int OFF_FLUSHES = 152;
    private static final int OFF_WRITE_FAILURES = 160;
    /** Batches recorded into the ring so far; the ring of the last {@link #RING} batches follows. */
    private static final int OFF_RING_COUNT = 256;
    private static final int OFF_RING = 264;
    private static final int RING_SLOT = 8 + 4 + 4 + 4 * MAX_BATCH;
    /** Batches the ring keeps: the atomicity check looks at each of them. */
    public static final int RING = 32;
    private static final long COUNTER_MASK = (1L << TortureValues.COUNT_BITS) - 1;

    /** Child states in the header. */
    public static final long CHILD_STARTING = 0;
    public static final long CHILD_OPEN = 1;
    public static final long CHILD_CLOSED = 2;

    private final Path file;
    private final FileChannel channel;
    private final MappedByteBuffer map;
    private final int keys;

    private ExpectedState(Path file, FileChannel channel, MappedByteBuffer map, int keys) {
        this.file = file;
        this.channel = channel;
        this.map = map;
        this.keys = keys;
    }

    /** Creates a new state file for {@code keys} keys, every key never written. */
    public static ExpectedState create(Path file, int keys) throws IOException {
        if (keys < 1) {
            throw new IllegalArgumentException("key count must be at least 1, got " + keys);
        }
        FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.READ,
                StandardOpenOption.WRITE);
        long size = HEADER_BYTES + (long) keys * SLOT_BYTES;
        MappedByteBuffer map = ch.map(FileChannel.MapMode.READ_WRITE, 0, size);
        map.putLong(OFF_KEYS, keys);
        map.putLong(OFF_NEXT_VERSION, 1);
        map.putLong(OFF_MAGIC, MAGIC);
        map.force();
        return new ExpectedState(file, ch, map, keys);
    }

    /** Opens an existing state file. */
    public static ExpectedState open(Path file) throws IOException {
        FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE);
        try {
            long size = ch.size();
            if (size < HEADER_BYTES) {
                throw new IOException(file + " is not a torture expected-state file: " + size + " bytes");
            }
            MappedByteBuffer map = ch.map(FileChannel.MapMode.READ_WRITE, 0, size);
            if (map.getLong(OFF_MAGIC) != MAGIC) {
                throw new IOException(file + " is not a torture expected-state file: bad magic");
            }
            long keys = map.getLong(OFF_KEYS);
            if (keys < 1 || HEADER_BYTES + keys * SLOT_BYTES != size) {
                throw new IOException(file + ": key count " + keys + " does not match the file size " + size);
            }
            return new ExpectedState(file, ch, map, (int) keys);
        } catch (IOException | RuntimeException e) {
            ch.close();
            throw e;
        }
    }

    /** Whether {@code file} exists. */
    public static boolean exists(Path file) {
        return Files.exists(file);
    }

    public Path file() {
        return file;
    }

    public int keys() {
        return keys;
    }

    // ------------------------------------------------------------------ slots

    private int slot(int key) {
        if (key < 0 || key >= keys) {
            throw new IndexOutOfBoundsException("key " + key + " outside 0.." + (keys - 1));
        }
        return HEADER_BYTES + key * SLOT_BYTES;
    }

    /** The stable word of {@code key}: {@code version << 1 | deleted}, 0 when never written. */
    public long stable(int key) {
        return map.getLong(slot(key));
    }

    /** The pending word of {@code key}: {@code maxVersion << 1 | anyDelete}, 0 when nothing is pending. */
    public long pending(int key) {
        return map.getLong(slot(key) + 8);
    }

    public void setStable(int key, long word) {
        map.putLong(slot(key), word);
    }

    public void setPending(int key, long word) {
        map.putLong(slot(key) + 8, word);
    }

    /** Records that write {@code version} (a delete or not) of {@code key} is about to be issued. */
    public void markPending(int key, long version, boolean delete) {
        long stable = stable(key);
        long pending = pending(key);
        boolean anyDelete = delete || (version(pending) > version(stable) && deleted(pending));
        setPending(key, word(version, anyDelete));
    }

    /** Records that {@code key}'s store value is now exactly {@code word}, nothing pending. */
    public void settle(int key, long word) {
        setStable(key, word);
        setPending(key, 0);
    }

    /** The stable word of a counter key holding {@code value} (0: absent). */
    public static long counterWord(long value) {
        return value << 1;
    }

    /** The counter value a counter key's stable word stands for (0: absent). */
    public static long counterValue(long word) {
        return word >>> 1;
    }

    /** A counter value's base version (0: none). */
    public static long counterBase(long value) {
        return value >>> TortureValues.COUNT_BITS;
    }

    /** A counter value's operands merged since its base. */
    public static long counterOperands(long value) {
        return value & COUNTER_MASK;
    }

    /**
     * Records that a write of counter key {@code key} is about to be issued: a put of base
     * version {@code putVersion} (0: not a put), a delete, or a merge of one operand.
     */
    public void markCounterPending(int key, long putVersion, boolean delete, boolean merge) {
        long p = pending(key);
        long maxPut = Math.max(p >>> 24, putVersion);
        long operands = Math.min(COUNTER_MASK, (p >>> 1 & COUNTER_MASK) + (merge ? 1 : 0));
        boolean anyDelete = delete || (p & 1) != 0;
        setPending(key, maxPut << 24 | operands << 1 | (anyDelete ? 1 : 0));
    }

    /** A counter key's pending word: the largest pending put version (0: none). */
    public static long pendingPut(long pendingWord) {
        return pendingWord >>> 24;
    }

    /** A counter key's pending word: the operands merged since the stable value. */
    public static long pendingOperands(long pendingWord) {
        return pendingWord >>> 1 & COUNTER_MASK;
    }

    /** The word for a version and whether it was a delete. */
    public static long word(long version, boolean deleted) {
        return version << 1 | (deleted ? 1 : 0);
    }

    public static long version(long word) {
        return word >>> 1;
    }

    public static boolean deleted(long word) {
        return (word & 1) != 0;
    }

    // ------------------------------------------------------------------ header

    /** Takes the next write version; it is stored before it is returned, so no version is used twice. */
    public long takeVersion() {
        long v = map.getLong(OFF_NEXT_VERSION);
        map.putLong(OFF_NEXT_VERSION, v + 1);
        return v;
    }

    /** Takes {@code n} consecutive versions and returns the first. */
    public long takeVersions(int n) {
        long v = map.getLong(OFF_NEXT_VERSION);
        map.putLong(OFF_NEXT_VERSION, v + n);
        return v;
    }

    /** Versions handed out so far plus one. */
    public long nextVersion() {
        return map.getLong(OFF_NEXT_VERSION);
    }

    public long ops() {
        return map.getLong(OFF_OPS);
    }

    public void addOps(long n) {
        map.putLong(OFF_OPS, map.getLong(OFF_OPS) + n);
    }

    public long faults() {
        return map.getLong(OFF_FAULTS);
    }

    public void addFaults(long n) {
        map.putLong(OFF_FAULTS, map.getLong(OFF_FAULTS) + n);
    }

    public long checks() {
        return map.getLong(OFF_CHECKS);
    }

    public void addChecks(long n) {
        map.putLong(OFF_CHECKS, map.getLong(OFF_CHECKS) + n);
    }

    public long flushes() {
        return map.getLong(OFF_FLUSHES);
    }

    public void addFlush() {
        map.putLong(OFF_FLUSHES, map.getLong(OFF_FLUSHES) + 1);
    }

    /** Writes that failed with an exception (not acknowledged). */
    public long writeFailures() {
        return map.getLong(OFF_WRITE_FAILURES);
    }

    public void addWriteFailure() {
        map.putLong(OFF_WRITE_FAILURES, map.getLong(OFF_WRITE_FAILURES) + 1);
    }

    public long childState() {
        return map.getLong(OFF_CHILD_STATE);
    }

    public void setChildState(long state) {
        map.putLong(OFF_CHILD_STATE, state);
    }

    /** Whether the parent asked the child to close the store cleanly and exit. */
    public boolean stopRequested() {
        return map.getLong(OFF_STOP) != 0;
    }

    public void requestStop(boolean stop) {
        map.putLong(OFF_STOP, stop ? 1 : 0);
    }

    /**
     * Records the batch about to be issued: versions {@code first .. first + keys.length - 1}
     * for {@code keys} in order, {@code deletes} bit i set when operation i is a delete.
     */
    public void recordBatch(long first, int[] batchKeys, int count, int deletes) {
        if (count > MAX_BATCH) {
            throw new IllegalArgumentException("batch of " + count + " exceeds " + MAX_BATCH);
        }
        map.putInt(OFF_BATCH_COUNT, 0);
        for (int i = 0; i < count; i++) {
            map.putInt(OFF_BATCH_KEYS + 4 * i, batchKeys[i]);
        }
        map.putInt(OFF_BATCH_DELETES, deletes);
        map.putLong(OFF_BATCH_FIRST, first);
        map.putInt(OFF_BATCH_COUNT, count);
        long n = map.getLong(OFF_RING_COUNT);
        int slot = OFF_RING + (int) (n % RING) * RING_SLOT;
        map.putInt(slot + 8, 0);
        for (int i = 0; i < count; i++) {
            map.putInt(slot + 16 + 4 * i, batchKeys[i]);
        }
        map.putInt(slot + 12, deletes);
        map.putLong(slot, first);
        map.putInt(slot + 8, count);
        map.putLong(OFF_RING_COUNT, n + 1);
    }

    /** The last {@link #RING} batches recorded (fewer when fewer were), oldest first. */
    public java.util.List<Batch> recentBatches() {
        long n = map.getLong(OFF_RING_COUNT);
        java.util.List<Batch> out = new java.util.ArrayList<>();
        for (long i = Math.max(0, n - RING); i < n; i++) {
            int slot = OFF_RING + (int) (i % RING) * RING_SLOT;
            int count = map.getInt(slot + 8);
            if (count <= 0 || count > MAX_BATCH) {
                continue; // a slot the child was writing when it was killed
            }
            int[] k = new int[count];
            for (int j = 0; j < count; j++) {
                k[j] = map.getInt(slot + 16 + 4 * j);
            }
            out.add(new Batch(map.getLong(slot), k, map.getInt(slot + 12)));
        }
        return out;
    }

    /** The last batch recorded, or null. */
    public Batch lastBatch() {
        int count = map.getInt(OFF_BATCH_COUNT);
        if (count <= 0 || count > MAX_BATCH) {
            return null;
        }
        int[] k = new int[count];
        for (int i = 0; i < count; i++) {
            k[i] = map.getInt(OFF_BATCH_KEYS + 4 * i);
        }
        return new Batch(map.getLong(OFF_BATCH_FIRST), k, map.getInt(OFF_BATCH_DELETES));
    }

    /** Forgets the last batch and the ring (after a verification settled the state). */
    public void clearBatch() {
        map.putInt(OFF_BATCH_COUNT, 0);
        map.putLong(OFF_RING_COUNT, 0);
    }

    /** A batch as recorded: operation i wrote version {@code first + i} of {@code keys[i]}. */
    public record Batch(long first, int[] keys, int deletes) {
        public boolean isDelete(int i) {
            return (deletes >>> i & 1) != 0;
        }
    }

    /** Writes the mapping to disk (for a clean end; a kill does not need it). */
    public void force() {
        map.force();
    }

    @Override
    public void close() throws IOException {
        map.force();
        channel.close();
    }
}
