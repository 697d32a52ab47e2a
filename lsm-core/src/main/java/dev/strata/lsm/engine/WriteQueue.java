package dev.strata.lsm.engine;

import dev.strata.lsm.StoreConfig;
import dev.strata.lsm.StoreException;
import dev.strata.lsm.WriteBatch;
import dev.strata.lsm.WriteOptions;
import dev.strata.lsm.memtable.Memtable;
import dev.strata.lsm.sstable.EntryType;
import dev.strata.lsm.WalSyncMode;
import dev.strata.lsm.wal.WalWriter;

import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.locks.Condition;

/**
 * The write queue and group commit (LevelDB's {@code DBImpl::Write}): writers queue up; the
 * one at the head leads a group of itself and the writers behind it — admission first
 * ({@link WriteControl}), then, while a policy slows writes down, a delay by the group's
 * bytes over the delayed write rate ({@link WritePacer}), then sequence numbers, then, with
 * the mutex released, one WAL
 * record and the memtable inserts — and hands the head on. {@code flush()} and
 * {@code close()} queue a barrier instead, which no group absorbs or passes, to act while no
 * group is between WAL and memtable. A group that fails — whatever it throws, {@link Error}s
 * included — is taken off the queue with every member told the error and the next head
 * woken; if it failed after the WAL took it but before the memtable held all of it, later
 * writes are refused until the store is reopened.
 *
 * <p>Locking: the queue and the refusal are guarded by the engine's mutex; the WAL scratch
 * buffer by leadership of the group.
 */
final class WriteQueue {
    private static final System.Logger LOG = System.getLogger(WriteQueue.class.getName());
    private static final long MAX_GROUP_BYTES = 1 << 20;
    private static final int INITIAL_WAL_SCRATCH = 4096;
    private static final int RETAINED_WAL_SCRATCH = 1 << 20;

    private final Path dir;
    private final StoreConfig config;
    private final EngineMutex mutex;
    private final WalLog log;
    private final Families families;
    /** The store's merge operator, or null when merges are refused. */
    private final dev.strata.lsm.mergeop.MergeOperator mergeOperator;

    private final ArrayDeque<Writer> writers = new ArrayDeque<>();
    /** The write slowdown, store-wide (one rate paces every family's writes); guarded by the mutex. */
    private final WritePacer pacer = new WritePacer();
    /** Test hook run before each memtable insert of a write group. */
    private Runnable memtableInsertHook;
    private byte[] walScratch = new byte[INITIAL_WAL_SCRATCH];
    /**
     * Set when a write group failed after its WAL record was written but before all of it
     * was in the memtable: the memtable holds part of a batch the WAL holds whole. Every
     * later write is refused with this error until the store is reopened.
     */
    private StoreException writesRefused;

    /**
     * A caller waiting in the queue: a writer with its batch, or a barrier (no batch). A
     * group leader never takes a barrier into its group and stops grouping at one, so every
     * barrier reaches the head of the queue.
     */
    static final class Writer {
        final WriteBatch batch;
        final WriteOptions options;
        final Condition turn;
        boolean done;
        RuntimeException error;

        Writer(WriteBatch batch, WriteOptions options, Condition turn) {
            this.batch = batch;
            this.options = options;
            this.turn = turn;
        }

        boolean isBarrier() {
            return batch == null;
        }
    }

    WriteQueue(Path dir, StoreConfig config, EngineMutex mutex, WalLog log, Families families,
               dev.strata.lsm.mergeop.MergeOperator mergeOperator) {
        this.dir = dir;
        this.config = config;
        this.mutex = mutex;
        this.log = log;
        this.families = families;
        this.mergeOperator = mergeOperator;
    }

    /**
     * Applies {@code batch} atomically; returns once it is as durable as the WAL mode promises,
     * or forced to the device with {@link WriteOptions#isSync()}.
     */
    void write(WriteBatch batch, WriteOptions options) {
        validate(batch);
        if (batch.isEmpty()) {
            mutex.checkOpen();
            return;
        }
        mutex.lock();
        try {
            Writer w = new Writer(batch, options, mutex.newCondition());
            writers.addLast(w);
            while (!w.done && writers.peekFirst() != w) {
                w.turn.awaitUninterruptibly();
            }
            if (w.done) {
                if (w.error != null) {
                    throw w.error;
                }
                return;
            }
            RuntimeException failure = leadGroup(w);
            if (failure != null) {
                throw failure;
            }
        } finally {
            mutex.unlock();
        }
    }

    private void validate(WriteBatch batch) {
        if (batch == null) {
            throw new IllegalArgumentException("batch must not be null");
        }
        int maxKey = config.maxKeyBytes();
        for (WriteBatch.Op op : batch.ops()) {
            if (op.key().length > maxKey) {
                throw new IllegalArgumentException("key of " + op.key().length + " bytes exceeds the maximum key size of "
                        + maxKey + " bytes (pageSize " + config.pageSize() + " / 4 - 32)");
            }
            if (op.rangeDelete()) {
                if (op.value().length > maxKey) {
                    throw new IllegalArgumentException("deleteRange end key of " + op.value().length
                            + " bytes exceeds the maximum key size of " + maxKey + " bytes (pageSize "
                            + config.pageSize() + " / 4 - 32)");
                }
                continue;
            }
            if (!op.delete() && op.value().length > config.maxValueBytes()) {
                throw new IllegalArgumentException((op.merge() ? "merge operand of " : "value of ") + op.value().length
                        + " bytes exceeds the maximum value size of " + config.maxValueBytes() + " bytes (maxValueBytes)");
            }
            if (op.merge()) {
                if (mergeOperator == null) {
                    throw new IllegalArgumentException("merge refused: store " + dir + " has no merge operator "
                            + "(StoreConfig.Builder.mergeOperator, <mergeOperator name=\"...\"/>; available: "
                            + dev.strata.lsm.mergeop.MergeOperators.names() + ")");
                }
                mergeOperator.checkOperand(op.key(), op.value());
            }
        }
        // An operation's encoding takes at most the 16 bytes over its key and value that the
        // batch's approximate size charges it: only a batch that may be too large is measured.
        if (batch.approximateBytes() + 12 <= WalWriter.MAX_RECORD_SIZE) {
            return;
        }
        long encoded = BatchCodec.encodedSize(batch);
        if (encoded > WalWriter.MAX_RECORD_SIZE) {
            throw new IllegalArgumentException("batch of " + batch.size() + " operations takes " + encoded
                    + " bytes in the WAL, more than one WAL record holds (" + WalWriter.MAX_RECORD_SIZE
                    + " bytes): split it into smaller batches");
        }
    }

    /** Throws if writes are refused after a failed group (see {@link #writesRefused}). Mutex held. */
    private void checkWritable() {
        if (writesRefused != null) {
            throw new StoreException(writesRefused.getMessage(), writesRefused.getCause());
        }
    }

    /**
     * Writes the group that {@code leader}, at the head of the queue, leads: itself and the
     * writers queued behind it up to the first barrier (and {@link #MAX_GROUP_BYTES}).
     * Called with the mutex held; returns with it held, having taken every member off the
     * queue, told each the outcome and woken the new head, whatever was thrown on the way:
     * an {@link Error} from the WAL or the memtable must not strand the queue.
     *
     * @return null, or the error every member of the group reports
     */
    private RuntimeException leadGroup(Writer leader) {
        List<Writer> group = List.of(leader);
        RuntimeException failure = null;
        try {
            makeRoomForWrite();
            group = groupFrom(leader);
            pace(group);
            List<Writer> live = refuseDropped(group);
            failure = live.isEmpty() ? null : applyGroup(live);
        } catch (Throwable t) {
            failure = writeError(t);
        } finally {
            for (Writer x : group) {
                writers.remove(x);
                x.error = x.error != null ? x.error : failure;
                x.done = true;
                if (x != leader) {
                    x.turn.signal();
                }
            }
            Writer next = writers.peekFirst();
            if (next != null) {
                next.turn.signal();
            }
        }
        return leader.error;
    }

    /**
     * The members of {@code group} whose batches write only live column families; each other
     * member is told that its family was dropped (its batch is not written, nothing of it).
     * A drop takes the queue's turn, so no family is dropped from here until the group is done.
     * Mutex held.
     */
    private List<Writer> refuseDropped(List<Writer> group) {
        List<Writer> live = new ArrayList<>(group.size());
        for (Writer x : group) {
            String dropped = null;
            for (WriteBatch.Op op : x.batch.ops()) {
                Tree t = families.get(op.familyId());
                if (t == null || t.dropped) {
                    dropped = op.family() != null ? "\"" + op.family().name() + "\" (id " + op.familyId() + ")"
                            : "id " + op.familyId();
                    break;
                }
            }
            if (dropped == null) {
                live.add(x);
            } else {
                x.error = new IllegalArgumentException("column family " + dropped + " was dropped; nothing of the"
                        + " batch was written");
            }
        }
        return live;
    }

    /**
     * Write admission for every column family: a stall of one family holds the writes of all
     * (as RocksDB's write stalls do), and each family with a full memtable switches it out.
     * A family whose admission waited may find another one full again, so the pass is
     * repeated until one goes through without waiting. Mutex held.
     */
    private void makeRoomForWrite() {
        while (true) {
            boolean waited = false;
            for (Tree t : families.all()) {
                waited |= t.writeControl.makeRoomForWrite(this::checkWritable);
            }
            if (!waited || !families.several()) {
                return;
            }
        }
    }

    /**
     * The write slowdown: while some family's policy answers SLOW_DOWN, delays the group by its
     * bytes over the slowest rate those families ask for ({@link WritePacer#rate}), waiting with
     * the mutex released (flushes and merges go on; writers queue behind the leader) until the
     * delay is over or no family slows writes down any more. The delay computed is counted on
     * the family that set the rate, the time waited as its stall time. Mutex held.
     */
    private void pace(List<Writer> group) {
        Tree slowest = slowestFamily();
        if (slowest == null) {
            pacer.stop();
            return;
        }
        long bytes = 0;
        for (Writer x : group) {
            bytes += x.batch.approximateBytes();
        }
        double rate = WritePacer.rate(config.delayedWriteRate(), slowest.scheduler.slowdownDepth());
        long start = System.nanoTime();
        long delay = pacer.charge(bytes, rate, start);
        if (delay == 0) {
            return;
        }
        slowest.counters.writeDelayed(delay);
        long deadline = start + delay;
        try {
            while (true) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return;
                }
                mutex.checkOpen();
                if (slowestFamily() == null) {
                    pacer.stop(); // the merges caught up: the rest of the delay is forgiven
                    return;
                }
                mutex.awaitBackgroundNanos(left);
            }
        } finally {
            slowest.counters.stallNanos.add(System.nanoTime() - start);
        }
    }

    /** The family whose policy asks for the slowest rate now, or null if none slows writes down. Mutex held. */
    private Tree slowestFamily() {
        Tree slowest = null;
        double deepest = -1;
        for (Tree t : families.all()) {
            if (t.scheduler.admission() == dev.strata.lsm.policy.WriteAdmission.SLOW_DOWN) {
                double depth = t.scheduler.slowdownDepth();
                depth = depth > 0 ? Math.min(depth, 1.0) : 0.0;
                if (depth > deepest) {
                    deepest = depth;
                    slowest = t;
                }
            }
        }
        return slowest;
    }

    /**
     * The leader and the writers behind it that join its group: those that, like the leader,
     * write the WAL or, like it, skip it (a sync writer may join a group that is not: the
     * group is then forced for it). Called with the mutex held.
     */
    private List<Writer> groupFrom(Writer leader) {
        List<Writer> group = new ArrayList<>();
        group.add(leader);
        long bytes = leader.batch.approximateBytes();
        Iterator<Writer> it = writers.iterator();
        it.next(); // the leader
        while (it.hasNext()) {
            Writer x = it.next();
            if (x.isBarrier() || bytes + x.batch.approximateBytes() > MAX_GROUP_BYTES
                    || x.options.isWalDisabled() != leader.options.isWalDisabled()) {
                break;
            }
            group.add(x);
            bytes += x.batch.approximateBytes();
        }
        return group;
    }

    /**
     * Gives the group its sequence numbers, then with the mutex released appends it to the
     * WAL and inserts it into the memtable. Called with the mutex held; returns with it held.
     *
     * @return null, or the error the group failed with
     */
    private RuntimeException applyGroup(List<Writer> group) {
        int count = 0;
        boolean sync = false;
        List<WriteBatch> batches = new ArrayList<>(group.size());
        for (Writer x : group) {
            batches.add(x.batch);
            count += x.batch.size();
            sync |= x.options.isSync();
        }
        java.util.Map<Integer, Memtable> mems = new java.util.HashMap<>();
        for (WriteBatch b : batches) {
            for (WriteBatch.Op op : b.ops()) {
                mems.computeIfAbsent(op.familyId(), id -> families.get(id).memtables.set().active());
            }
        }
        long first = log.reserve(count);
        // The group's WAL record goes into the segment being written now (a switch needs the
        // queue's turn): each memtable remembers the segment of its first write, which is what
        // WAL retention keeps for it (Tree#walKeepFrom), not the segment it was created at.
        long segment = log.segment();
        for (Memtable m : mems.values()) {
            m.noteWriteSegment(segment);
        }
        Memtable defaultMem = mems.get(0);
        // A group of writes without WAL goes to the memtable only (they all skip it: groupFrom).
        WalWriter log = group.get(0).options.isWalDisabled() ? null : this.log.wal();
        if (group.get(0).options.isWalDisabled()) {
            for (Memtable m : mems.values()) {
                m.noteUnloggedWrites(); // a clean close flushes it (Engine#close)
            }
        }
        Runnable hook = memtableInsertHook;
        boolean logged = false;
        Throwable error = null;
        mutex.unlock();
        try {
            if (log != null) {
                byte[] scratch = walScratch(BatchCodec.maxEncodedSize(batches));
                log.append(scratch, 0, BatchCodec.encode(batches, first, count, scratch));
                if (sync && log.syncMode() != WalSyncMode.SYNC) {
                    log.sync();
                }
            }
            logged = true;
            long seq = first;
            for (WriteBatch b : batches) {
                for (WriteBatch.Op op : b.ops()) {
                    if (hook != null) {
                        hook.run();
                    }
                    Memtable mem = op.family() == null ? defaultMem : mems.get(op.familyId());
                    if (op.rangeDelete()) {
                        mem.addRangeTombstone(op.key(), op.value(), seq++);
                        continue;
                    }
                    if (op.merge()) {
                        addMerge(mem, op, seq++);
                        continue;
                    }
                    mem.add(op.key(), seq++, op.delete() ? EntryType.DELETE : EntryType.PUT, op.value());
                }
            }
        } catch (Throwable t) {
            error = t;
        } finally {
            mutex.lock();
        }
        if (error == null) {
            this.log.publish();
            return null;
        }
        RuntimeException failure = writeError(error);
        if (!logged) {
            if (log != null) {
                // The segment may end in a torn record: switch to a fresh one before the next write.
                this.log.walFailed(first, count);
            }
        } else {
            // The memtable holds part of the group, invisible above the visible sequence number,
            // which must therefore stay where it is: no later write may be applied. Flushes skip
            // the part (see FlushJob#write); a reopen replays the WAL record whole.
            writesRefused = new StoreException("writes to " + dir + " are refused until the store is reopened: a "
                    + "write failed while it was being inserted into the memtable" + (log != null
                    ? ", after the WAL had taken it (reopening recovers that write whole or not at all)" : "")
                    + ": " + error, error);
            LOG.log(System.Logger.Level.ERROR, writesRefused.getMessage(), error);
        }
        return failure;
    }

    /**
     * Adds merge operand {@code op} at {@code seq} to {@code mem}, the active memtable of its
     * family — or, when the successive-merge bound ({@link StoreConfig#maxSuccessiveMerges()})
     * finds that many operands in a row on top of the key there, the key's value at
     * {@code seq}: its value at {@code seq - 1} (read as a get does, from the memtables and
     * the tables; every entry of this group before {@code op} is in the memtable by now, and
     * no table holds a sequence number at or above this group's first, so the read needs no
     * snapshot) combined with the operand by the operator, as a put with the same sequence
     * number. A snapshot below {@code seq} reads what it read before; one at or above it reads
     * the value it would have combined. The WAL keeps the operand (it was written first):
     * replay adds it as an operand and the recovery flush combines it, to the same value,
     * given the operator's two-step rule ({@link StoreConfig.Builder#maxSuccessiveMerges}).
     * If the read or the operator fails, or the combined value is larger than
     * {@link StoreConfig#maxValueBytes()}, the operand is added as it is (the chain grows past
     * the bound, the value is the same); a failure is logged.
     */
    private void addMerge(Memtable mem, WriteBatch.Op op, long seq) {
        int bound = config.maxSuccessiveMerges();
        if (bound > 0 && mem.successiveMerges(op.key(), bound) >= bound) {
            Tree t = families.get(op.familyId());
            byte[] combined = null;
            try {
                byte[] base = t.reads.get(op.key(), seq - 1);
                combined = MergeOperands.fullMerge(mergeOperator, op.key(), base, List.of(op.value()));
            } catch (RuntimeException e) {
                LOG.log(System.Logger.Level.WARNING, "merge operand of key "
                        + dev.strata.lsm.sstable.InternalKeys.describe(op.key()) + " in " + dir
                        + " kept as an operand: reading the key's value to combine it failed", e);
            }
            // A value larger than a write may be stays an operand (a read combines it the same).
            if (combined != null && combined.length <= config.maxValueBytes()) {
                mem.add(op.key(), seq, EntryType.PUT, combined);
                t.counters.mergesCollapsed.increment();
                return;
            }
        }
        mem.add(op.key(), seq, EntryType.MERGE, op.value());
    }

    /** What the writers of a failed group are told: a {@link StoreException} (its type kept), naming the cause. */
    private static RuntimeException writeError(Throwable t) {
        return t instanceof StoreException e ? e : new StoreException("write failed: " + t, t);
    }

    /** For tests: runs {@code hook} before each memtable insert (null: none). Mutex held. */
    void memtableInsertHook(Runnable hook) {
        memtableInsertHook = hook;
    }

    /** The leader's buffer for encoding a write group, at least {@code size} bytes. */
    private byte[] walScratch(int size) {
        byte[] b = walScratch;
        if (b.length < size || (b.length > RETAINED_WAL_SCRATCH && size <= RETAINED_WAL_SCRATCH)) {
            b = new byte[Math.max(size, INITIAL_WAL_SCRATCH)];
            walScratch = b;
        }
        return b;
    }

    /**
     * Queues a barrier and waits until it is at the head of the queue: every write queued
     * before it is done, and later ones wait. Mutex held; pass the result to {@link #leave}.
     */
    Writer awaitBarrierTurn() {
        Writer w = new Writer(null, null, mutex.newCondition());
        writers.addLast(w);
        while (writers.peekFirst() != w) {
            w.turn.awaitUninterruptibly();
        }
        return w;
    }

    /** Takes {@code w}, at the head of the queue, off it and wakes the next in line. Mutex held. */
    void leave(Writer w) {
        writers.remove(w);
        Writer next = writers.peekFirst();
        if (next != null) {
            next.turn.signal();
        }
    }
}
