package dev.strata.lsm.bench.torture;

import dev.strata.lsm.Cursor;
import dev.strata.lsm.LsmStore;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Checks a reopened store against the {@link ExpectedState}: every key by a point read,
 * the whole key space by one scan (which must agree with the point reads), and the last
 * batches issued for atomicity (batches cross column families, in WAL mode none too). Counter
 * keys ({@link TortureValues#isCounter}) are checked as a base plus merge operands. A key's value is acceptable when it is the stable write's, or
 * any pending write's (see {@link ExpectedState}); anything else is a problem: a lost write
 * (older value, or absent where a value was acknowledged), a resurrected delete, a value
 * that no write produced, or a torn batch. After a clean check, {@link #settle} records what
 * the store holds as the new stable state, resolving every pending write.
 */
public final class Verifier {
    /** Problems described in full; the rest are only counted. */
    static final int MAX_DESCRIBED = 20;

    private Verifier() {
    }

    /** What one verification found. */
    public record Result(int keysChecked, int acknowledgedChecked, int pendingKeys, int pendingApplied,
                         long problemCount, List<String> problems, long[] observed) {
        public boolean clean() {
            return problemCount == 0;
        }
    }

    /** Reads every key of {@code state}'s key space from {@code store} and checks it. */
    public static Result verify(LsmStore store, ExpectedState state) {
        int n = state.keys();
        long[] observed = new long[n];
        byte[][] values = new byte[n][];
        List<String> problems = new ArrayList<>();
        long problemCount = 0;
        int acknowledged = 0;
        int pendingKeys = 0;
        int pendingApplied = 0;
        TortureFamilies families = new TortureFamilies(store);
        for (int k = 0; k < n; k++) {
            byte[] v = store.get(families.of(k), TortureValues.key(k));
            values[k] = v;
            long stable = state.stable(k);
            long pending = state.pending(k);
            long sv = ExpectedState.version(stable);
            long pv = ExpectedState.version(pending);
            boolean hasPending = pv > sv;
            if (stable != 0) {
                acknowledged++;
            }
            if (hasPending && !TortureValues.isCounter(k)) {
                pendingKeys++;
            }
            String problem;
            if (TortureValues.isCounter(k)) {
                long got = v == null ? 0 : TortureValues.counter(v);
                long sVal = ExpectedState.counterValue(stable);
                observed[k] = ExpectedState.counterWord(Math.max(got, 0));
                hasPending = pending != 0;
                if (hasPending) {
                    pendingKeys++;
                }
                problem = got < 0 ? "counter key " + k + ": holds a value that is not a counter (" + v.length
                        + " bytes), expected " + describeCounter(stable, pending) : checkCounter(k, got, stable, pending);
                if (problem == null && got != sVal) {
                    pendingApplied++;
                }
            } else if (v == null) {
                // Absent: never written (0), or deleted, by the stable delete or a pending one. A
                // key never acknowledged that a pending delete may have removed counts as deleted
                // too, or the batch check would read its absence as a batch put not applied.
                boolean pendingDelete = hasPending && ExpectedState.deleted(pending);
                observed[k] = stable == 0 && !pendingDelete ? 0 : ExpectedState.word(Math.max(sv, pv), true);
                boolean ok = stable == 0 || ExpectedState.deleted(stable) || (hasPending && ExpectedState.deleted(pending));
                problem = ok ? null : "key " + k + ": absent, but " + describe(stable, pending) + " (a lost write)";
                if (ok && hasPending && !(stable == 0 || ExpectedState.deleted(stable))) {
                    pendingApplied++;
                }
            } else {
                long ov = TortureValues.version(k, v);
                observed[k] = ExpectedState.word(Math.max(ov, 0), false);
                if (ov < 0) {
                    problem = "key " + k + ": holds a value no write produced (" + v.length + " bytes), expected "
                            + describe(stable, pending);
                } else if (ov == sv && !ExpectedState.deleted(stable)) {
                    problem = null;
                } else if (hasPending && ov > sv && ov <= pv) {
                    problem = null;
                    pendingApplied++;
                } else if (ov < sv || (ov == sv && ExpectedState.deleted(stable))) {
                    problem = "key " + k + ": holds version " + ov + ", older than " + describe(stable, pending)
                            + (ExpectedState.deleted(stable) ? " (a resurrected value)" : " (a lost write)");
                } else {
                    problem = "key " + k + ": holds version " + ov + ", newer than any write issued for it ("
                            + describe(stable, pending) + ")";
                }
            }
            if (problem != null) {
                if (problems.size() < MAX_DESCRIBED) {
                    problems.add(problem);
                }
                problemCount++;
            }
        }
        problemCount += checkScan(families, store, values, problems);
        problemCount += checkBatch(state, observed, problems);
        return new Result(n, acknowledged, pendingKeys, pendingApplied, problemCount, List.copyOf(problems), observed);
    }

    /**
     * The problem with counter key {@code k} holding {@code got} (0: absent), or null when the
     * value is acceptable: the stable value with up to the pending operands more; or, when a
     * put is pending, a pending put's base (a version above the stable base, at most the
     * largest pending put) with up to the pending operands; or, when a delete is pending, no
     * base with up to the pending operands. Fewer operands than the stable value's on its base
     * is a lost merge; more than every issued one, operands applied twice.
     */
    private static String checkCounter(int k, long got, long stable, long pending) {
        long sVal = ExpectedState.counterValue(stable);
        long sBase = ExpectedState.counterBase(sVal);
        long sOps = ExpectedState.counterOperands(sVal);
        long gBase = ExpectedState.counterBase(got);
        long gOps = ExpectedState.counterOperands(got);
        long pOps = ExpectedState.pendingOperands(pending);
        long pPut = ExpectedState.pendingPut(pending);
        boolean pDelete = (pending & 1) != 0;
        if (gBase == sBase && gOps >= sOps && gOps <= sOps + pOps) {
            return null;
        }
        if (gBase > sBase && gBase <= pPut && gOps <= pOps) {
            return null;
        }
        if (pDelete && gBase == 0 && gOps <= pOps) {
            return null;
        }
        String what;
        if (got == 0) {
            what = "absent";
        } else {
            what = "holds " + describeCounter(got);
        }
        String why = gBase == sBase && gOps < sOps ? " (a lost merge)" : gBase == sBase ? " (operands applied twice?)"
                : gBase < sBase ? " (a lost write)" : "";
        return "counter key " + k + ": " + what + ", but " + describeCounter(stable, pending) + why;
    }

    /** A counter value in words: its base and operands. */
    static String describeCounter(long value) {
        long base = ExpectedState.counterBase(value);
        return (base == 0 ? "no base" : "base version " + base) + " + " + ExpectedState.counterOperands(value)
                + " operand(s)";
    }

    static String describeCounter(long stable, long pending) {
        long sVal = ExpectedState.counterValue(stable);
        StringBuilder s = new StringBuilder(stable == 0 ? "acknowledged nothing" : "acknowledged "
                + describeCounter(sVal));
        if (pending != 0) {
            s.append(", pending ").append(ExpectedState.pendingOperands(pending)).append(" operand(s)");
            if (ExpectedState.pendingPut(pending) != 0) {
                s.append(", puts up to version ").append(ExpectedState.pendingPut(pending));
            }
            if ((pending & 1) != 0) {
                s.append(", a delete");
            }
        }
        return s.toString();
    }

    /** A full scan must return exactly the keys the point reads found, with the same values. */
    private static long checkScan(TortureFamilies families, LsmStore store, byte[][] values, List<String> problems) {
        long[] misplaced = {0};
        boolean[] seen = new boolean[values.length];
        List<byte[][]> entries = families.entries(cf -> store.scan(cf, null, null), problem -> {
            misplaced[0]++;
            if (problems.size() < MAX_DESCRIBED) {
                problems.add(problem);
            }
        });
        long count = misplaced[0];
        {
            int previous = -1;
            for (byte[][] entry : entries) {
                int k = TortureValues.index(entry[0]);
                String problem = null;
                if (k < 0 || k >= values.length) {
                    problem = "scan returned a key outside the key space: " + Arrays.toString(entry[0]);
                } else if (k <= previous) {
                    problem = "scan returned key " + k + " after key " + previous;
                } else if (!Arrays.equals(entry[1], values[k])) {
                    problem = "scan and get disagree on key " + k + ": scan " + describeValue(k, entry[1]) + ", get "
                            + describeValue(k, values[k]);
                } else {
                    seen[k] = true;
                }
                if (k >= 0 && k < values.length) {
                    previous = Math.max(previous, k);
                }
                if (problem != null) {
                    count++;
                    if (problems.size() < MAX_DESCRIBED) {
                        problems.add(problem);
                    }
                }
            }
        }
        for (int k = 0; k < values.length; k++) {
            if (values[k] != null && !seen[k]) {
                count++;
                if (problems.size() < MAX_DESCRIBED) {
                    problems.add("scan missed key " + k + " that get returns (" + describeValue(k, values[k]) + ")");
                }
            }
        }
        return count;
    }

    /**
     * The batches issued since the last verification that the ring still holds (the last
     * {@link ExpectedState#RING}), and the last batch, must each be all or nothing (below).
     */
    private static long checkBatch(ExpectedState state, long[] observed, List<String> problems) {
        List<ExpectedState.Batch> batches = new ArrayList<>(state.recentBatches());
        ExpectedState.Batch last = state.lastBatch();
        if (last != null && batches.stream().noneMatch(x -> x.first() == last.first())) {
            batches.add(last);
        }
        long torn = 0;
        for (ExpectedState.Batch b : batches) {
            torn += checkBatch(b, observed, problems);
        }
        return torn;
    }

    /**
     * One batch must be all or nothing: no put of it may show its write while another put of
     * it shows an older version than the batch's (a later write to a key says nothing).
     */
    private static long checkBatch(ExpectedState.Batch b, long[] observed, List<String> problems) {
        int applied = -1;
        int notApplied = -1;
        for (int i = 0; i < b.keys().length; i++) {
            int k = b.keys()[i];
            if (k < 0 || k >= observed.length || b.isDelete(i) || ExpectedState.deleted(observed[k])) {
                continue;
            }
            long ov = ExpectedState.version(observed[k]);
            long mine = b.first() + i;
            if (ov == mine) {
                applied = i;
            } else if (ov < mine) {
                notApplied = i;
            }
        }
        if (applied >= 0 && notApplied >= 0) {
            if (problems.size() < MAX_DESCRIBED) {
                problems.add("batch of versions " + b.first() + ".." + (b.first() + b.keys().length - 1)
                        + " is torn: key " + b.keys()[applied] + " holds its write, key " + b.keys()[notApplied]
                        + " holds an older version (" + ExpectedState.version(observed[b.keys()[notApplied]]) + ")");
            }
            return 1;
        }
        return 0;
    }

    /** Records what the store was observed to hold as every key's stable state. */
    public static void settle(ExpectedState state, Result result) {
        long[] observed = result.observed();
        for (int k = 0; k < observed.length; k++) {
            state.settle(k, observed[k]);
        }
        state.clearBatch();
        state.force();
    }

    static String describe(long stable, long pending) {
        StringBuilder s = new StringBuilder();
        if (stable == 0) {
            s.append("never acknowledged");
        } else {
            s.append(ExpectedState.deleted(stable) ? "acknowledged delete " : "acknowledged version ")
                    .append(ExpectedState.version(stable));
        }
        if (ExpectedState.version(pending) > ExpectedState.version(stable)) {
            s.append(", pending up to version ").append(ExpectedState.version(pending));
            if (ExpectedState.deleted(pending)) {
                s.append(" (with a delete)");
            }
        }
        return s.toString();
    }

    private static String describeValue(int k, byte[] v) {
        if (v == null) {
            return "absent";
        }
        long ov = TortureValues.version(k, v);
        return ov < 0 ? "a damaged value of " + v.length + " bytes" : "version " + ov;
    }
}
