package dev.strata.lsm.crash;

import dev.strata.lsm.StoreConfig;
import dev.strata.lsm.WriteBatch;
import dev.strata.lsm.WalSyncMode;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Random;
import java.util.SplittableRandom;

/**
 * The deterministic workload shared by {@link CrashWriter} (which issues it) and
 * {@link CrashRecoveryTest} (which recomputes it to know what the store must hold).
 *
 * <p>Write {@code id} under {@code seed} is a pure function of the two: a single put, a
 * single delete, a re-put of an older key, or a multi-key batch mixing all three. Every
 * put of a fresh key uses a key that only this id ever creates; deletes and re-puts
 * target keys created by earlier ids (recomputed from those ids, so no state is
 * needed). Values are derived from the key, the writing id and the seed, and start with
 * the writing id so a wrong value in a failure report says which write it came from.
 */
final class CrashWorkload {
    /** The kinds of write; the child prints no kind, the parent recomputes it. */
    enum Kind { PUT, DELETE, REPUT, RANGE, BATCH }

    /**
     * One operation of a write: a put ({@code value != null}), a delete, or a range delete of
     * {@code [key, rangeEnd)} ({@code rangeEnd != null}).
     */
    record Op(byte[] key, byte[] value, byte[] rangeEnd) {
        Op(byte[] key, byte[] value) {
            this(key, value, null);
        }

        boolean isDelete() {
            return value == null && rangeEnd == null;
        }

        boolean isRangeDelete() {
            return rangeEnd != null;
        }
    }

    /** Everything write {@code id} does, in order. */
    record Write(long id, Kind kind, List<Op> ops) {
        /** The write as the batch the child hands to the store (single ops use put/delete instead). */
        WriteBatch toBatch() {
            WriteBatch b = new WriteBatch();
            for (Op op : ops) {
                if (op.isRangeDelete()) {
                    b.deleteRange(op.key(), op.rangeEnd());
                } else if (op.isDelete()) {
                    b.delete(op.key());
                } else {
                    b.put(op.key(), op.value());
                }
            }
            return b;
        }

        /** Applies the write to a model of the store, op by op (later ops of a batch win). */
        void applyTo(NavigableMap<byte[], byte[]> model) {
            for (Op op : ops) {
                if (op.isRangeDelete()) {
                    model.subMap(op.key(), true, op.rangeEnd(), false).clear();
                } else if (op.isDelete()) {
                    model.remove(op.key());
                } else {
                    model.put(op.key(), op.value());
                }
            }
        }

        @Override
        public String toString() {
            StringBuilder sb = new StringBuilder("write ").append(id).append(' ').append(kind).append(" [");
            for (int i = 0; i < ops.size(); i++) {
                Op op = ops.get(i);
                sb.append(i == 0 ? "" : ", ").append(op.isRangeDelete() ? "delrange " : op.isDelete() ? "del " : "put ")
                        .append(describeKey(op.key()));
                if (op.isRangeDelete()) {
                    sb.append("..").append(describeKey(op.rangeEnd()));
                } else if (!op.isDelete()) {
                    sb.append('=').append(describeValue(op.value()));
                }
            }
            return sb.append(']').toString();
        }
    }

    private final long seed;

    CrashWorkload(long seed) {
        this.seed = seed;
    }

    /**
     * The store configuration both the child and the parent open with: a small memtable
     * so flushes happen every few dozen writes and size-tiered merges with a small fanout
     * run all the time, so kills land in the middle of flushes, merges and manifest edits.
     */
    static StoreConfig config(long seed) {
        SplittableRandom r = new SplittableRandom(seed ^ 0x5DEECE66DL);
        return StoreConfig.builder()
                .memtableBytes((32L + r.nextInt(33)) << 10)
                .walMode(WalSyncMode.ASYNC)
                .mergePolicy("size-tiered", Map.of("fanout", String.valueOf(2 + r.nextInt(2))))
                .build();
    }

    /** What write {@code id} does. */
    Write plan(long id) {
        if (id < 0) {
            throw new IllegalArgumentException("id " + id);
        }
        SplittableRandom r = stream(id, 1);
        Kind kind = kind(id);
        List<Op> ops = new ArrayList<>();
        switch (kind) {
            case PUT -> ops.add(put(freshKey(id, 0), id));
            case DELETE -> ops.add(new Op(olderKey(id, r), null));
            case REPUT -> ops.add(put(olderKey(id, r), id));
            case RANGE -> ops.add(range(r));
            case BATCH -> {
                int fresh = freshCount(id);
                for (int i = 0; i < fresh; i++) {
                    ops.add(put(freshKey(id, i), id));
                }
                int deletes = r.nextInt(5);
                for (int i = 0; i < deletes; i++) {
                    ops.add(new Op(olderKey(id, r), null));
                }
                int reputs = r.nextInt(3);
                for (int i = 0; i < reputs; i++) {
                    ops.add(put(olderKey(id, r), id));
                }
                // Order matters inside a batch; shuffle so deletes and puts interleave.
                Collections.shuffle(ops, new Random(r.nextLong()));
                if (r.nextInt(8) == 0) {
                    ops.add(range(r));
                }
                if (r.nextInt(6) == 0) {
                    // Delete a key this very batch created: the batch must end with it absent.
                    ops.add(new Op(freshKey(id, r.nextInt(fresh)), null));
                }
            }
        }
        return new Write(id, kind, List.copyOf(ops));
    }

    /** The keys only write {@code id} ever creates (empty for DELETE and REPUT). */
    List<byte[]> freshKeys(long id) {
        Kind kind = kind(id);
        int n = kind == Kind.PUT ? 1 : kind == Kind.BATCH ? freshCount(id) : 0;
        List<byte[]> keys = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            keys.add(freshKey(id, i));
        }
        return keys;
    }

    private Kind kind(long id) {
        int k = stream(id, 0).nextInt(100);
        return k < 45 ? Kind.PUT : k < 57 ? Kind.DELETE : k < 60 ? Kind.RANGE : k < 70 ? Kind.REPUT : Kind.BATCH;
    }

    private int freshCount(long id) {
        return 2 + stream(id, 2).nextInt(9);
    }

    /**
     * A key created by an earlier id: half the time a recent one (likely still in the
     * memtable or a young component), otherwise any earlier one (likely merged, possibly
     * across several crashes). The chosen id may have created no key (it was a delete
     * or re-put); then the key is one that never existed, which is also worth deleting.
     */
    private byte[] olderKey(long id, SplittableRandom r) {
        if (id == 0) {
            return freshKey(0, 99);
        }
        long j = r.nextBoolean() ? Math.max(0, id - 1 - r.nextInt(50)) : r.nextLong(id);
        List<byte[]> keys = freshKeys(j);
        return keys.isEmpty() ? freshKey(j, 99) : keys.get(r.nextInt(keys.size()));
    }

    /**
     * Key {@code i} of write {@code id}: two pseudo-random bytes (so consecutive ids land
     * all over the key space, components overlap, and bytes above 0x7F test unsigned
     * ordering), then the id and index, which make the key unique to (id, i).
     */
    byte[] freshKey(long id, int i) {
        long h = mix(seed, id * 131 + i);
        return ByteBuffer.allocate(2 + 8 + 1).putShort((short) h).putLong(id).put((byte) i).array();
    }

    /** The value write {@code id} gives {@code key}: the id, then bytes derived from key, id and seed. */
    byte[] value(byte[] key, long id) {
        SplittableRandom r = new SplittableRandom(mix(seed ^ id, Arrays.hashCode(key)));
        int p = r.nextInt(100);
        int len = p < 85 ? 100 + r.nextInt(1949) : p < 97 ? 2048 + r.nextInt(6 << 10) : (8 << 10) + r.nextInt(24 << 10);
        byte[] v = new byte[len];
        r.nextBytes(v);
        ByteBuffer.wrap(v).putLong(id);
        return v;
    }

    /**
     * A range delete over the keys' two-byte hash prefix: {@code [h, h + width)} with a width
     * of 1 to 1024 prefixes (up to 1/64 of the key space), so it removes keys of many writes.
     */
    private static Op range(SplittableRandom r) {
        int from = r.nextInt(1 << 16);
        int to = Math.min(1 << 16, from + 1 + r.nextInt(1024));
        byte[] end = to == 1 << 16 ? new byte[] {(byte) 0xff, (byte) 0xff, (byte) 0xff}
                : ByteBuffer.allocate(2).putShort((short) to).array();
        return new Op(ByteBuffer.allocate(2).putShort((short) from).array(), null, end);
    }

    private Op put(byte[] key, long id) {
        return new Op(key, value(key, id));
    }

    private SplittableRandom stream(long id, int purpose) {
        return new SplittableRandom(mix(seed, id * 8 + purpose));
    }

    private static long mix(long a, long b) {
        long z = a * 0x9E3779B97F4A7C15L + b;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    /** A key as {@code hash/id/index}, for failure messages. */
    static String describeKey(byte[] key) {
        if (key.length == 11) {
            ByteBuffer b = ByteBuffer.wrap(key);
            return String.format("%04x/%d/%d", b.getShort() & 0xFFFF, b.getLong(), b.get());
        }
        return HexFormat.of().formatHex(key);
    }

    /** A value as {@code <writing id>(<length> B)}, for failure messages. */
    static String describeValue(byte[] value) {
        if (value == null) {
            return "absent";
        }
        if (value.length < 8) {
            return "?(" + value.length + " B)";
        }
        return "v" + ByteBuffer.wrap(value).getLong() + "(" + value.length + " B)";
    }
}
