package dev.strata.lsm.server;

import dev.strata.lsm.ColumnFamily;
import dev.strata.lsm.Cursor;
import dev.strata.lsm.LsmStore;
import dev.strata.lsm.Snapshot;
import dev.strata.lsm.WriteBatch;
import io.netty.handler.codec.redis.ArrayRedisMessage;
import io.netty.handler.codec.redis.ErrorRedisMessage;
import io.netty.handler.codec.redis.FullBulkStringRedisMessage;
import io.netty.handler.codec.redis.IntegerRedisMessage;
import io.netty.handler.codec.redis.RedisMessage;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * The hash commands: HSET, HSETNX, HMSET, HGET, HMGET, HDEL, HGETALL, HKEYS, HVALS, HLEN,
 * HEXISTS, HSTRLEN, HINCRBY and HSCAN, over the encoding of {@link HashMeta} and
 * {@link NodeKeys#hashPrefix}. Every write holds the {@link KeyLocks} stripe of the hash's key
 * (the lock the string commands take for the same key) and changes the fields and the
 * metadata's field count in one {@link WriteBatch}, so it is atomic; reads that return
 * several fields read them from one {@link Snapshot}, HGET, HEXISTS and HSTRLEN (one field)
 * without one. Thread safe.
 */
final class HashCommands {
    private static final RedisMessage NIL = FullBulkStringRedisMessage.NULL_INSTANCE;
    private static final RedisMessage ZERO = new IntegerRedisMessage(0);
    private static final RedisMessage ONE = new IntegerRedisMessage(1);
    static final ErrorRedisMessage HASH_NOT_INTEGER = new ErrorRedisMessage("ERR hash value is not an integer");

    private final LsmStore store;
    private final KeyLocks locks;
    private final ScanCursors cursors;
    private final LongSupplier clock;
    private final int maxValueBytes;
    private final HashSweeper sweeper;
    /** The column family holding every hash's fields ({@link NodeKeys#HASH_FIELD_FAMILY}). */
    private final ColumnFamily fields;

    HashCommands(LsmStore store, KeyLocks locks, ScanCursors cursors, LongSupplier clock, int maxValueBytes) {
        this.fields = NodeKeys.hashFields(store);
        this.sweeper = new HashSweeper(store, fields, locks, clock);
        this.store = store;
        this.locks = locks;
        this.cursors = cursors;
        this.clock = clock;
        this.maxValueBytes = maxValueBytes;
    }

    /** The column family of the hash fields. */
    ColumnFamily fields() {
        return fields;
    }

    /** The sweeper of the fields hashes leave behind. */
    HashSweeper sweeper() {
        return sweeper;
    }

    /** A command removed, replaced or set to expire a hash (stored as {@code stored}): its fields will be garbage. */
    void left(byte[] stored) {
        if (stored != null && stored.length > 0 && stored[0] == StoredValue.HASH) {
            sweeper.markDirty();
        }
    }

    /** Runs hash command {@code name} (upper case), or returns null when it is not one. */
    RedisMessage execute(String name, List<byte[]> args) {
        int n = args.size();
        return switch (name) {
            case "HSET" -> n >= 4 && n % 2 == 0 ? set(args, false) : RespCommands.arity("hset");
            case "HMSET" -> n >= 4 && n % 2 == 0 ? hmset(args) : RespCommands.arity("hmset");
            case "HSETNX" -> n == 4 ? set(args, true) : RespCommands.arity("hsetnx");
            case "HGET" -> n == 3 ? get(args.get(1), args.get(2)) : RespCommands.arity("hget");
            case "HMGET" -> n >= 3 ? mget(args.get(1), args.subList(2, n)) : RespCommands.arity("hmget");
            case "HDEL" -> n >= 3 ? del(args.get(1), args.subList(2, n)) : RespCommands.arity("hdel");
            case "HGETALL" -> n == 2 ? all(args.get(1), true, true) : RespCommands.arity("hgetall");
            case "HKEYS" -> n == 2 ? all(args.get(1), true, false) : RespCommands.arity("hkeys");
            case "HVALS" -> n == 2 ? all(args.get(1), false, true) : RespCommands.arity("hvals");
            case "HLEN" -> n == 2 ? len(args.get(1)) : RespCommands.arity("hlen");
            case "HEXISTS" -> n == 3 ? (get(args.get(1), args.get(2)) == NIL ? ZERO : ONE) : RespCommands.arity("hexists");
            case "HSTRLEN" -> n == 3 ? strlen(args.get(1), args.get(2)) : RespCommands.arity("hstrlen");
            case "HINCRBY" -> n == 4 ? incrBy(args.get(1), args.get(2), args.get(3)) : RespCommands.arity("hincrby");
            case "HINCRBYFLOAT" -> n == 4 ? incrByFloat(args.get(1), args.get(2), args.get(3))
                    : RespCommands.arity("hincrbyfloat");
            case "HSCAN" -> n >= 3 ? scan(args) : RespCommands.arity("hscan");
            default -> null;
        };
    }

    private HashMeta meta(byte[] key) {
        return HashMeta.decode(store.get(NodeKeys.stored(key)), clock.getAsLong());
    }

    /**
     * The version for a new hash at {@code key}: one more than the highest version any field
     * of {@code key} is stored under (garbage of a deleted hash included), so a new hash never
     * sees an old one's fields. Called under the key's lock.
     */
    private long newVersion(byte[] key) {
        byte[] prefix = NodeKeys.hashKeyPrefix(key);
        try (Cursor c = store.scan(fields, prefix, RespCommands.prefixEnd(prefix))) {
            return c.seekToLast() ? NodeKeys.hashVersion(c.key(), key) + 1 : 1;
        }
    }

    private byte[] storedField(byte[] value) {
        if (value.length > maxValueBytes) {
            throw new IllegalArgumentException("value of " + value.length
                    + " bytes exceeds the maximum value size of " + maxValueBytes + " bytes");
        }
        return new StoredValue(value, StoredValue.NEVER).encode();
    }

    private static byte[] fieldValue(byte[] stored) {
        return stored == null ? null : Arrays.copyOfRange(stored, 1, stored.length);
    }

    /** HSET (the number of fields added) or HSETNX (1 when set, 0 when the field existed). */
    private RedisMessage set(List<byte[]> args, boolean onlyNew) {
        byte[] key = args.get(1);
        Map<ByteBuffer, byte[]> values = new LinkedHashMap<>();
        for (int i = 2; i < args.size(); i += 2) {
            // A field named twice keeps its last value, as in Redis.
            values.put(ByteBuffer.wrap(args.get(i)), storedField(args.get(i + 1)));
        }
        try (KeyLocks.Held ignored = locks.lock(key)) {
            HashMeta meta = meta(key);
            if (meta == null) {
                meta = new HashMeta(StoredValue.NEVER, newVersion(key), 0);
            }
            byte[] prefix = NodeKeys.hashPrefix(key, meta.version());
            byte[][] fieldKeys = new byte[values.size()][];
            int i = 0;
            for (ByteBuffer f : values.keySet()) {
                fieldKeys[i++] = NodeKeys.hashField(prefix, f.array());
            }
            byte[][] present = meta.fields() == 0 ? new byte[fieldKeys.length][] : store.getAll(fields, fieldKeys);
            long added = 0;
            WriteBatch batch = new WriteBatch();
            i = 0;
            for (byte[] value : values.values()) {
                if (present[i] == null) {
                    added++;
                } else if (onlyNew) {
                    return ZERO;
                }
                batch.put(fields, fieldKeys[i], value);
                i++;
            }
            batch.put(NodeKeys.stored(key), meta.withFields(meta.fields() + added).encode());
            store.write(batch);
            return new IntegerRedisMessage(added);
        }
    }

    private RedisMessage hmset(List<byte[]> args) {
        RedisMessage r = set(args, false);
        return r instanceof IntegerRedisMessage ? RespCommands.OK : r;
    }

    /**
     * HGET: two reads and no snapshot (a snapshot takes the engine's mutex). Correct without
     * one: if the hash is deleted between the reads, its version's fields either are still
     * there with the values they had when it was deleted, or were swept (nil) — the answers
     * Redis would give just before or just after that delete.
     */
    private RedisMessage get(byte[] key, byte[] field) {
        HashMeta meta = meta(key);
        if (meta == null) {
            return NIL;
        }
        byte[] v = store.get(fields, NodeKeys.hashField(NodeKeys.hashPrefix(key, meta.version()), field));
        return v == null ? NIL : RespCommands.bulk(fieldValue(v));
    }

    private RedisMessage strlen(byte[] key, byte[] field) {
        RedisMessage r = get(key, field);
        return r instanceof FullBulkStringRedisMessage b && r != NIL
                ? new IntegerRedisMessage(b.content().readableBytes()) : ZERO;
    }

    private RedisMessage mget(byte[] key, List<byte[]> names) {
        List<RedisMessage> out = new ArrayList<>(names.size());
        try (Snapshot s = store.snapshot()) {
            HashMeta meta = HashMeta.decode(s.get(NodeKeys.stored(key)), clock.getAsLong());
            byte[] prefix = meta == null ? null : NodeKeys.hashPrefix(key, meta.version());
            for (byte[] f : names) {
                byte[] v = prefix == null ? null : s.get(fields, NodeKeys.hashField(prefix, f));
                out.add(v == null ? NIL : RespCommands.bulk(fieldValue(v)));
            }
        }
        return new ArrayRedisMessage(out);
    }

    /** HDEL: the number of fields removed; the hash is deleted with its last field. */
    private RedisMessage del(byte[] key, List<byte[]> names) {
        try (KeyLocks.Held ignored = locks.lock(key)) {
            HashMeta meta = meta(key);
            if (meta == null) {
                return ZERO;
            }
            byte[] prefix = NodeKeys.hashPrefix(key, meta.version());
            Map<ByteBuffer, byte[]> distinct = new LinkedHashMap<>();
            for (byte[] f : names) {
                distinct.put(ByteBuffer.wrap(f), NodeKeys.hashField(prefix, f));
            }
            byte[][] fieldKeys = distinct.values().toArray(new byte[0][]);
            byte[][] present = store.getAll(fields, fieldKeys);
            long removed = 0;
            WriteBatch batch = new WriteBatch();
            for (int i = 0; i < fieldKeys.length; i++) {
                if (present[i] != null) {
                    removed++;
                    batch.delete(fields, fieldKeys[i]);
                }
            }
            if (removed == 0) {
                return ZERO;
            }
            long left = meta.fields() - removed;
            if (left <= 0) {
                batch.delete(NodeKeys.stored(key));
            } else {
                batch.put(NodeKeys.stored(key), meta.withFields(left).encode());
            }
            store.write(batch);
            return new IntegerRedisMessage(removed);
        }
    }

    /** HGETALL, HKEYS, HVALS: every field of the hash at one instant, in field order. */
    private RedisMessage all(byte[] key, boolean names, boolean values) {
        List<RedisMessage> out = new ArrayList<>();
        try (Snapshot s = store.snapshot()) {
            HashMeta meta = HashMeta.decode(s.get(NodeKeys.stored(key)), clock.getAsLong());
            if (meta == null) {
                return new ArrayRedisMessage(out);
            }
            byte[] prefix = NodeKeys.hashPrefix(key, meta.version());
            try (Cursor c = s.scan(fields, prefix, RespCommands.prefixEnd(prefix))) {
                while (c.next()) {
                    if (names) {
                        byte[] k = c.key();
                        out.add(RespCommands.bulk(Arrays.copyOfRange(k, prefix.length, k.length)));
                    }
                    if (values) {
                        out.add(RespCommands.bulk(fieldValue(c.value())));
                    }
                }
            }
        }
        return new ArrayRedisMessage(out);
    }

    private RedisMessage len(byte[] key) {
        HashMeta meta = meta(key);
        return new IntegerRedisMessage(meta == null ? 0 : meta.fields());
    }

    /** HINCRBY key field by: the field's new value; a missing field (or hash) starts at 0. */
    private RedisMessage incrBy(byte[] key, byte[] field, byte[] byText) {
        Long by = RespCommands.parseLong(byText);
        if (by == null) {
            return RespCommands.NOT_INTEGER;
        }
        byte[] next = updateField(key, field, old -> Long.toString(RespCommands.increment(old, by, HASH_NOT_INTEGER))
                .getBytes(StandardCharsets.US_ASCII));
        return new IntegerRedisMessage(Long.parseLong(new String(next, StandardCharsets.US_ASCII)));
    }

    /** HINCRBYFLOAT key field by: as HINCRBY, in {@link FloatIncrement}'s arithmetic; the new value as a bulk string. */
    private RedisMessage incrByFloat(byte[] key, byte[] field, byte[] byText) {
        return RespCommands.bulk(updateField(key, field,
                old -> FloatIncrement.add(old, byText, FloatIncrement.HASH_NOT_FLOAT)));
    }

    /**
     * Replaces field {@code field} of the hash at {@code key} (created when missing) with
     * {@code next} of its value (null when missing), under the key's lock, in one write batch
     * with the field count when the field is new; returns the new value.
     */
    private byte[] updateField(byte[] key, byte[] field, java.util.function.UnaryOperator<byte[]> next) {
        try (KeyLocks.Held ignored = locks.lock(key)) {
            HashMeta meta = meta(key);
            if (meta == null) {
                meta = new HashMeta(StoredValue.NEVER, newVersion(key), 0);
            }
            byte[] fieldKey = NodeKeys.hashField(NodeKeys.hashPrefix(key, meta.version()), field);
            byte[] old = meta.fields() == 0 ? null : store.get(fields, fieldKey);
            byte[] value = next.apply(fieldValue(old));
            WriteBatch batch = new WriteBatch().put(fields, fieldKey, storedField(value));
            if (old == null) {
                batch.put(NodeKeys.stored(key), meta.withFields(meta.fields() + 1).encode());
            }
            store.write(batch);
            return value;
        }
    }

    /**
     * HSCAN key cursor [MATCH pattern] [COUNT n] [NOVALUES]: as SCAN, over the hash's fields in
     * field order; the cursor stands for the last field examined, so fields present for the
     * whole iteration are returned exactly once. COUNT is the number of fields examined.
     */
    private RedisMessage scan(List<byte[]> args) {
        byte[] key = args.get(1);
        long cursor;
        try {
            cursor = Long.parseUnsignedLong(new String(args.get(2), StandardCharsets.US_ASCII));
        } catch (NumberFormatException e) {
            return new ErrorRedisMessage("ERR invalid cursor");
        }
        Glob match = null;
        int count = 10;
        boolean values = true;
        for (int i = 3; i < args.size(); i++) {
            String opt = new String(args.get(i), StandardCharsets.US_ASCII).toUpperCase(Locale.ROOT);
            if (opt.equals("NOVALUES")) {
                values = false;
                continue;
            }
            if (i + 1 >= args.size()) {
                return RespCommands.SYNTAX;
            }
            switch (opt) {
                case "MATCH" -> match = new Glob(args.get(++i));
                case "COUNT" -> {
                    Long c = RespCommands.parseLong(args.get(++i));
                    if (c == null) {
                        return RespCommands.NOT_INTEGER;
                    }
                    if (c < 1) {
                        return RespCommands.SYNTAX;
                    }
                    count = (int) Math.min(c, 100_000);
                }
                default -> {
                    return RespCommands.SYNTAX;
                }
            }
        }
        byte[] after = null;
        if (cursor != 0) {
            after = cursors.lookup(cursor);
            if (after == null) {
                return new ErrorRedisMessage("ERR invalid cursor (unknown to this node or expired; start again at 0)");
            }
        }
        List<RedisMessage> out = new ArrayList<>();
        byte[] last = null;
        boolean exhausted = true;
        try (Snapshot s = store.snapshot()) {
            HashMeta meta = HashMeta.decode(s.get(NodeKeys.stored(key)), clock.getAsLong());
            if (meta != null) {
                byte[] prefix = NodeKeys.hashPrefix(key, meta.version());
                byte[] literal = match == null ? new byte[0] : match.literalPrefix();
                byte[] from = NodeKeys.hashField(prefix, literal);
                if (after != null) {
                    byte[] resume = NodeKeys.hashField(prefix, Arrays.copyOf(after, after.length + 1));
                    if (Arrays.compareUnsigned(resume, from) > 0) {
                        from = resume;
                    }
                }
                byte[] literalEnd = literal.length == 0 ? null : RespCommands.prefixEnd(literal);
                byte[] to = literalEnd == null ? RespCommands.prefixEnd(prefix) : NodeKeys.hashField(prefix, literalEnd);
                try (Cursor c = s.scan(fields, from, to)) {
                    int examined = 0;
                    while (c.next()) {
                        byte[] k = c.key();
                        byte[] field = Arrays.copyOfRange(k, prefix.length, k.length);
                        last = field;
                        examined++;
                        if (match == null || match.isPrefixOnly() || match.matches(field)) {
                            out.add(RespCommands.bulk(field));
                            if (values) {
                                out.add(RespCommands.bulk(fieldValue(c.value())));
                            }
                        }
                        if (examined >= count || (match != null && match.steps() > RespCommands.SCAN_MATCH_STEPS)) {
                            exhausted = false;
                            break;
                        }
                    }
                }
            }
        }
        long next = exhausted || last == null ? 0 : cursors.save(last);
        return new ArrayRedisMessage(List.of(
                RespCommands.bulk(Long.toUnsignedString(next).getBytes(StandardCharsets.US_ASCII)),
                new ArrayRedisMessage(out)));
    }

    /**
     * Adds to {@code batch} what RENAME of the hash {@code meta} at {@code from} to {@code to}
     * writes: its fields copied under {@code to} with a new version (and the old ones deleted),
     * and its metadata at {@code to}. Called under the locks of both keys. O(fields).
     */
    void rename(byte[] from, byte[] to, HashMeta meta, WriteBatch batch) {
        byte[] oldPrefix = NodeKeys.hashPrefix(from, meta.version());
        long version = newVersion(to);
        byte[] newPrefix = NodeKeys.hashPrefix(to, version);
        long count = 0;
        try (Cursor c = store.scan(fields, oldPrefix, RespCommands.prefixEnd(oldPrefix))) {
            while (c.next()) {
                byte[] k = c.key();
                batch.delete(fields, k);
                batch.put(fields, NodeKeys.hashField(newPrefix, Arrays.copyOfRange(k, oldPrefix.length, k.length)), c.value());
                count++;
            }
        }
        batch.put(NodeKeys.stored(to), new HashMeta(meta.expireAtMillis(), version, count).encode());
    }
}
