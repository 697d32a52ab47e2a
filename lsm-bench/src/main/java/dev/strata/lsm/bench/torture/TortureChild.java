package dev.strata.lsm.bench.torture;

import dev.strata.lsm.Cursor;
import dev.strata.lsm.LsmStore;
import dev.strata.lsm.Snapshot;
import dev.strata.lsm.StoreConfig;
import dev.strata.lsm.WriteBatch;
import dev.strata.lsm.io.FileChannelStorageIO;
import dev.strata.lsm.io.IoPurpose;
import dev.strata.lsm.WalSyncMode;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.Deque;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;

/**
 * The torture child: opens the store (with faults injected through
 * {@link FaultInjectingStorageIO}) and runs a random mix of puts, deletes, range deletes, merge
 * operands (into counter keys, {@link TortureValues#isCounter}), batches across families, checked
 * reads, scans, snapshots and flushes from one thread until the parent kills it or asks it
 * to stop, recording every write in the {@link ExpectedState} before issuing it and after
 * its acknowledgement. Reads are checked against what this process acknowledged (a write
 * that failed is not visible in the process that issued it). Exit status: 0 after a clean
 * close, 3 when a checked read, scan or snapshot read is wrong, 4 when the store cannot be
 * opened for a reason other than an injected fault, 5 on any other unexpected failure; the
 * reason goes to the failure file; 2 when its command line is bad (the reason on stderr).
 *
 * <p>Arguments: {@link TortureChildArguments}.
 */
public final class TortureChild {
    static final int EXIT_BAD_ARGUMENTS = 2;
    static final int EXIT_CHECK_FAILED = 3;
    static final int EXIT_OPEN_FAILED = 4;
    static final int EXIT_UNEXPECTED = 5;
    private static final int OPEN_ATTEMPTS = 20;

    private final TortureChildArguments args;
    private final ExpectedState state;
    private final SplittableRandom random;
    private final WalSyncMode walMode;
    private final FaultInjectingStorageIO faults;
    private final StoreConfig config;
    private final Path failureFile;
    private final long[] live;
    private final BitSet unflushed = new BitSet();
    private final Deque<OpenSnapshot> snapshots = new ArrayDeque<>();
    private LsmStore store;
    private TortureFamilies families;
    private long reportedFaults;

    private record OpenSnapshot(Snapshot snapshot, int from, long[] expected, long openedAtOp) {
    }

    /** A check failed or something unexpected happened; carries the exit status. */
    static final class Failure extends RuntimeException {
        final int status;

        Failure(int status, String message, Throwable cause) {
            super(message, cause);
            this.status = status;
        }
    }

    private TortureChild(TortureChildArguments args) throws IOException {
        this.args = args;
        this.state = ExpectedState.open(args.state());
        this.failureFile = args.failureFile();
        this.random = new SplittableRandom(args.seed());
        this.walMode = args.walMode();
        Map<IoPurpose, Set<FaultInjectingStorageIO.Kind>> kinds = new EnumMap<>(IoPurpose.class);
        for (IoPurpose p : args.faultTargets()) {
            kinds.put(p, p == IoPurpose.WAL ? args.walFaultKinds() : args.faultKinds());
        }
        this.faults = new FaultInjectingStorageIO(new FileChannelStorageIO(), kinds, args.faultRate(),
                random.nextLong());
        long memtable = args.memtableBytes();
        this.config = TortureFamilies.addTo(StoreConfig.builder(), memtable)
                .memtableBytes(memtable)
                .walMode(walMode)
                .blockCacheBytes(4L << 20)
                .mergePolicy(args.policy(), args.params())
                .storageIO(faults)
                .build();
        this.live = new long[state.keys()];
        for (int k = 0; k < live.length; k++) {
            live[k] = state.stable(k);
        }
    }

    public static void main(String[] argv) {
        TortureChildArguments args;
        try {
            args = TortureChildArguments.parse(argv);
        } catch (picocli.CommandLine.ParameterException e) {
            System.err.println("torture child: " + e.getMessage());
            System.exit(EXIT_BAD_ARGUMENTS);
            return;
        }
        TortureChild child;
        try {
            child = new TortureChild(args);
        } catch (IOException | RuntimeException e) {
            e.printStackTrace();
            System.exit(EXIT_UNEXPECTED);
            return;
        }
        System.exit(child.run());
    }

    private int run() {
        try {
            open();
            loop();
            closeCleanly();
            return 0;
        } catch (Failure f) {
            report(f.getMessage(), f.getCause());
            return f.status;
        } catch (Throwable t) {
            report("unexpected " + t, t);
            return EXIT_UNEXPECTED;
        }
    }

    private void report(String message, Throwable cause) {
        StringWriter s = new StringWriter();
        s.append(message).append('\n');
        if (cause != null) {
            cause.printStackTrace(new PrintWriter(s));
        }
        System.err.println("torture child failed: " + s);
        try {
            Files.writeString(failureFile, s.toString(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            System.err.println("cannot write " + failureFile + ": " + e);
        }
    }

    private void open() {
        faults.arm(true);
        for (int attempt = 1; ; attempt++) {
            try {
                store = LsmStore.open(args.dir(), config);
                families = new TortureFamilies(store);
                state.setChildState(ExpectedState.CHILD_OPEN);
                return;
            } catch (RuntimeException e) {
                if (!FaultInjectingStorageIO.causedByInjection(e)) {
                    throw new Failure(EXIT_OPEN_FAILED, "cannot open the store: " + e, e);
                }
                if (attempt >= OPEN_ATTEMPTS) {
                    throw new Failure(EXIT_OPEN_FAILED, "cannot open the store in " + attempt + " attempts: " + e, e);
                }
                if (attempt == OPEN_ATTEMPTS - 1) {
                    faults.arm(false); // the last attempt without faults
                }
                reportFaults();
            }
        }
    }

    private void loop() {
        long op = 0;
        while (!state.stopRequested()) {
            int dice = random.nextInt(1000);
            if (dice < 380) {
                write(randomKey(), false);
            } else if (dice < 465) {
                write(randomKey(), true);
            } else if (dice < 480) {
                rangeDelete();
            } else if (dice < 580) {
                batch();
            } else if (dice < 850) {
                checkGet(randomKey());
            } else if (dice < 900) {
                checkScan();
            } else if (dice < 930) {
                snapshot(op);
            } else if (dice < 932) {
                flush();
            } else {
                // Re-read a key just written: the memtable path.
                int k = randomKey();
                write(k, false);
                checkGet(k);
            }
            op++;
            state.addOps(1);
            reportFaults();
        }
    }

    private int randomKey() {
        // Half the operations go to a hot tenth of the key space, so keys are overwritten often.
        int n = live.length;
        return random.nextBoolean() ? random.nextInt(Math.max(1, n / 10)) : random.nextInt(n);
    }

    private void write(int k, boolean delete) {
        if (TortureValues.isCounter(k)) {
            counterWrite(k, delete);
            return;
        }
        long v = state.takeVersion();
        state.markPending(k, v, delete);
        try {
            if (delete) {
                store.delete(families.of(k), TortureValues.key(k));
            } else {
                store.put(families.of(k), TortureValues.key(k), TortureValues.value(k, v));
            }
        } catch (RuntimeException e) {
            failed("write of key " + k, e);
            return;
        }
        acknowledged(k, ExpectedState.word(v, delete));
    }

    /**
     * A write of counter key {@code k}: a delete, or three times in four a merge of one
     * {@code uint64add} operand, else a put of a new base. Its expected value is the counter
     * it had in this process plus one, the base, or nothing.
     */
    private void counterWrite(int k, boolean delete) {
        boolean merge = !delete && random.nextInt(4) != 0;
        long v = delete || merge ? 0 : state.takeVersion();
        state.markCounterPending(k, v, delete, merge);
        try {
            if (delete) {
                store.delete(families.of(k), TortureValues.key(k));
            } else if (merge) {
                store.merge(families.of(k), TortureValues.key(k), TortureValues.counterOperand());
            } else {
                store.put(families.of(k), TortureValues.key(k), TortureValues.counterBase(v));
            }
        } catch (RuntimeException e) {
            failed((merge ? "merge into" : "write of") + " counter key " + k, e);
            return;
        }
        long now = ExpectedState.counterValue(live[k]);
        long next = delete ? 0 : merge ? now + 1 : v << TortureValues.COUNT_BITS;
        acknowledged(k, ExpectedState.counterWord(next));
    }

    /**
     * A range delete of 1 to 32 consecutive keys, one time in ten of up to a tenth of the key
     * space, in every family at once (one batch): one write, one version, recorded as a delete
     * of every key in the range.
     */
    private void rangeDelete() {
        int from = randomKey();
        int width = random.nextInt(10) == 0 ? 1 + random.nextInt(Math.max(1, live.length / 10)) : 1 + random.nextInt(32);
        int to = Math.min(live.length, from + width);
        long v = state.takeVersion();
        for (int k = from; k < to; k++) {
            if (TortureValues.isCounter(k)) {
                state.markCounterPending(k, 0, true, false);
            } else {
                state.markPending(k, v, true);
            }
        }
        try {
            // The range's keys live in every family (key k in family k % 3): one batch deletes
            // the range in each, atomically, so the whole range is one version.
            WriteBatch b = new WriteBatch();
            for (int f = 0; f < TortureFamilies.NAMES.size(); f++) {
                b.deleteRange(families.any(f), TortureValues.key(from), TortureValues.key(to));
            }
            store.write(b);
        } catch (RuntimeException e) {
            failed("range delete of keys " + from + ".." + to, e);
            return;
        }
        for (int k = from; k < to; k++) {
            acknowledged(k, TortureValues.isCounter(k) ? 0 : ExpectedState.word(v, true));
        }
    }

    private void batch() {
        int n = 2 + random.nextInt(ExpectedState.MAX_BATCH - 1);
        int[] keys = new int[n];
        BitSet used = new BitSet();
        // Random keys, so a batch crosses families (key k is in family k % 3) in every WAL mode:
        // in mode none it is atomic over a crash by the store's atomic flush. Counter keys are
        // written by merges, not by batches: a batch takes the key before one instead.
        int choices = live.length - live.length / 8;
        for (int i = 0; i < n; i++) {
            int k;
            do {
                k = randomKey();
                if (TortureValues.isCounter(k)) {
                    k--;
                }
            } while (used.get(k) && used.cardinality() < choices);
            used.set(k);
            keys[i] = k;
        }
        if (used.cardinality() < n) {
            return; // key space smaller than a batch
        }
        long first = state.takeVersions(n);
        int deletes = 0;
        WriteBatch b = new WriteBatch();
        for (int i = 0; i < n; i++) {
            boolean delete = random.nextInt(5) == 0;
            if (delete) {
                deletes |= 1 << i;
                b.delete(families.of(keys[i]), TortureValues.key(keys[i]));
            } else {
                b.put(families.of(keys[i]), TortureValues.key(keys[i]), TortureValues.value(keys[i], first + i));
            }
        }
        state.recordBatch(first, keys, n, deletes);
        for (int i = 0; i < n; i++) {
            state.markPending(keys[i], first + i, (deletes >>> i & 1) != 0);
        }
        try {
            store.write(b);
        } catch (RuntimeException e) {
            failed("batch of " + n, e);
            return;
        }
        for (int i = 0; i < n; i++) {
            acknowledged(keys[i], ExpectedState.word(first + i, (deletes >>> i & 1) != 0));
        }
    }

    private void acknowledged(int k, long word) {
        live[k] = word;
        if (walMode == WalSyncMode.NONE) {
            unflushed.set(k); // pending until a flush returns
        } else {
            state.settle(k, word);
        }
    }

    /** Writes that failed stay pending: the store may or may not hold them after a restart. */
    private void failed(String what, RuntimeException e) {
        state.addWriteFailure();
        if (!FaultInjectingStorageIO.causedByInjection(e)) {
            throw new Failure(EXIT_UNEXPECTED, what + " failed without an injected fault: " + e, e);
        }
    }

    /**
     * Flushes one family, now and then (WAL mode none: always) every family: in WAL mode none
     * only a flush of every family makes what was acknowledged stable.
     */
    private void flush() {
        boolean all = walMode == WalSyncMode.NONE || random.nextInt(4) == 0;
        try {
            if (all) {
                for (String name : TortureFamilies.NAMES) {
                    store.flushColumnFamily(store.columnFamily(name));
                }
            } else {
                store.flushColumnFamily(families.any(random.nextInt(TortureFamilies.NAMES.size())));
            }
        } catch (RuntimeException e) {
            if (!FaultInjectingStorageIO.causedByInjection(e)) {
                throw new Failure(EXIT_UNEXPECTED, "flush failed without an injected fault: " + e, e);
            }
            return;
        }
        state.addFlush();
        promoteFlushed();
    }

    /** In none WAL mode, what was acknowledged before a flush or clean close returned is now stable. */
    private void promoteFlushed() {
        for (int k = unflushed.nextSetBit(0); k >= 0; k = unflushed.nextSetBit(k + 1)) {
            state.settle(k, live[k]);
        }
        unflushed.clear();
    }

    // ------------------------------------------------------------------ checked reads

    private void checkGet(int k) {
        byte[] v;
        try {
            v = store.get(families.of(k), TortureValues.key(k));
        } catch (RuntimeException e) {
            readFailed("get of key " + k, e);
            return;
        }
        expect(k, live[k], v, "get");
        state.addChecks(1);
    }

    private void expect(int k, long word, byte[] v, String how) {
        if (TortureValues.isCounter(k)) {
            long expected = ExpectedState.counterValue(word);
            long got = v == null ? 0 : TortureValues.counter(v);
            if (got != expected) {
                throw new Failure(EXIT_CHECK_FAILED, how + " of counter key " + k + " returned "
                        + (v == null ? "nothing" : got < 0 ? "a value of " + v.length + " bytes, not a counter"
                        : Verifier.describeCounter(got)) + ", expected " + (expected == 0 ? "nothing"
                        : Verifier.describeCounter(expected)) + " (acknowledged in this process)", null);
            }
            return;
        }
        boolean absent = word == 0 || ExpectedState.deleted(word);
        if (absent ? v != null : TortureValues.version(k, v) != ExpectedState.version(word)) {
            throw new Failure(EXIT_CHECK_FAILED, how + " of key " + k + " returned "
                    + (v == null ? "nothing" : "version " + TortureValues.version(k, v) + " (" + v.length + " bytes)")
                    + ", expected " + (absent ? "nothing" : "version " + ExpectedState.version(word))
                    + " (acknowledged in this process)", null);
        }
    }

    private void readFailed(String what, RuntimeException e) {
        if (!FaultInjectingStorageIO.causedByInjection(e)) {
            throw new Failure(EXIT_UNEXPECTED, what + " failed: " + e, e);
        }
    }

    private void checkScan() {
        int from = random.nextInt(live.length);
        int len = 1 + random.nextInt(200);
        int to = Math.min(live.length, from + len);
        byte[] fromKey = TortureValues.key(from);
        byte[] toKey = TortureValues.key(to);
        try {
            compareRange(cf -> store.scan(cf, fromKey, toKey), from, Arrays.copyOfRange(live, from, to), "scan");
        } catch (Failure f) {
            throw f;
        } catch (RuntimeException e) {
            readFailed("scan", e);
        }
    }

    private void compareRange(java.util.function.Function<dev.strata.lsm.ColumnFamily, Cursor> open, int from,
                              long[] expected, String how) {
        int next = from;
        int end = from + expected.length;
        for (byte[][] entry : families.entries(open, problem -> {
            throw new Failure(EXIT_CHECK_FAILED, how + ": " + problem, null);
        })) {
            int k = TortureValues.index(entry[0]);
            if (k < next || k >= end) {
                throw new Failure(EXIT_CHECK_FAILED, how + " of keys " + from + ".." + (end - 1) + " returned key " + k
                        + " out of order or range (expected a key from " + next + ")", null);
            }
            for (int skipped = next; skipped < k; skipped++) {
                expect(skipped, expected[skipped - from], null, how);
            }
            expect(k, expected[k - from], entry[1], how);
            next = k + 1;
        }
        for (int skipped = next; skipped < end; skipped++) {
            expect(skipped, expected[skipped - from], null, how);
        }
        state.addChecks(expected.length);
    }

    private void snapshot(long op) {
        OpenSnapshot oldest = snapshots.peekFirst();
        if (oldest != null && (snapshots.size() >= 2 || op - oldest.openedAtOp() > 50 && random.nextBoolean())) {
            snapshots.removeFirst();
            try (Snapshot s = oldest.snapshot()) {
                int len = oldest.expected().length;
                for (int i = 0; i < 4; i++) {
                    int k = oldest.from() + random.nextInt(len);
                    expect(k, oldest.expected()[k - oldest.from()], s.get(families.of(k), TortureValues.key(k)),
                            "snapshot get");
                }
                byte[] fromKey = TortureValues.key(oldest.from());
                byte[] toKey = TortureValues.key(oldest.from() + len);
                compareRange(cf -> s.scan(cf, fromKey, toKey), oldest.from(), oldest.expected(), "snapshot scan");
            } catch (Failure f) {
                throw f;
            } catch (RuntimeException e) {
                readFailed("snapshot read", e);
            }
            return;
        }
        int from = random.nextBoolean() ? 0 : random.nextInt(live.length);
        int to = Math.min(live.length, from + 1 + random.nextInt(300));
        Snapshot s = store.snapshot();
        snapshots.addLast(new OpenSnapshot(s, from, Arrays.copyOfRange(live, from, to), op));
    }

    private void closeCleanly() {
        for (OpenSnapshot s : snapshots) {
            s.snapshot().close();
        }
        snapshots.clear();
        faults.arm(false);
        try {
            store.close();
        } catch (RuntimeException e) {
            throw new Failure(EXIT_UNEXPECTED, "clean close failed: " + e, e);
        }
        promoteFlushed();
        state.setChildState(ExpectedState.CHILD_CLOSED);
        reportFaults();
        state.force();
    }

    /** Adds the faults injected since the last call to the header's running total. */
    private void reportFaults() {
        long now = faults.injected();
        if (now != reportedFaults) {
            state.addFaults(now - reportedFaults);
            reportedFaults = now;
        }
    }
}
