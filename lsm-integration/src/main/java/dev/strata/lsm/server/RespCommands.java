package dev.strata.lsm.server;

import dev.strata.lsm.LsmStore;
import dev.strata.lsm.StoreException;
import dev.strata.lsm.WriteBatch;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.redis.ArrayRedisMessage;
import io.netty.handler.codec.redis.ErrorRedisMessage;
import io.netty.handler.codec.redis.FullBulkStringRedisMessage;
import io.netty.handler.codec.redis.IntegerRedisMessage;
import io.netty.handler.codec.redis.RedisMessage;
import io.netty.handler.codec.redis.SimpleStringRedisMessage;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * The node's commands over an {@link LsmStore}, independent of the network: arguments in,
 * a RESP reply out. Every write holds the {@link KeyLocks} stripes of its keys, so INCR and
 * SET NX/XX are atomic per key; a reply to a write is made only after the store returned,
 * that is after the write is in its log under the configured WAL mode. Thread safe.
 */
final class RespCommands {
    static final RedisMessage OK = new SimpleStringRedisMessage("OK");
    private static final RedisMessage NIL = FullBulkStringRedisMessage.NULL_INSTANCE;
    static final ErrorRedisMessage SYNTAX = new ErrorRedisMessage("ERR syntax error");
    static final ErrorRedisMessage NOT_INTEGER =
            new ErrorRedisMessage("ERR value is not an integer or out of range");
    static final ErrorRedisMessage WRONGTYPE = new ErrorRedisMessage(WrongTypeException.MESSAGE);
    static final ErrorRedisMessage NOAUTH = new ErrorRedisMessage("NOAUTH Authentication required.");
    private static final int SCAN_DEFAULT_COUNT = 10;
    /**
     * Glob steps one SCAN call may spend before it returns a cursor, whatever its COUNT: a
     * long pattern over long keys costs up to key length x pattern length per key, and the
     * command thread serves other connections too. About 10 to 50 ms of matching.
     */
    static final long SCAN_MATCH_STEPS = 20_000_000;
    /** DBSIZE counts the keys of a store holding fewer than this many; it estimates above. */
    private static final int DBSIZE_SAMPLE = 512;

    private final LsmStore store;
    private final ServerInfo info;
    private final byte[] requirePass;
    private final KeyLocks locks = new KeyLocks(4096);
    private final ScanCursors cursors = new ScanCursors(65_536);
    private final LongSupplier clock;
    private final KeyCommands keyCommands;
    private final HashCommands hashes;
    private final Checkpoints saves;
    /** The largest value a client may store (the store's limit less the node's header). */
    private final int maxValueBytes;

    RespCommands(LsmStore store, ServerInfo info, String requirePass, LongSupplier clock) {
        this.store = store;
        this.info = info;
        this.requirePass = requirePass == null ? null : requirePass.getBytes(StandardCharsets.UTF_8);
        this.clock = clock;
        this.saves = new Checkpoints(store, clock);
        this.maxValueBytes = StoredValue.clientLimit(store.config().maxValueBytes());
        this.hashes = new HashCommands(store, locks, cursors, clock, maxValueBytes);
        this.keyCommands = new KeyCommands(store, locks, clock, hashes);
    }

    /** The sweeper of hash fields left behind (run by {@link RespServer}). */
    HashSweeper hashSweeper() {
        return hashes.sweeper();
    }

    /** Whether connections start authenticated (no password is required). */
    boolean openAccess() {
        return requirePass == null;
    }

    /** Executes one command; {@code args} holds the name first. Never throws for client input. */
    RedisMessage execute(Session session, List<byte[]> args) {
        if (args.isEmpty()) {
            return new ErrorRedisMessage("ERR empty command");
        }
        String name = new String(args.get(0), StandardCharsets.US_ASCII).toUpperCase(Locale.ROOT);
        if (!session.authenticated && !name.equals("AUTH") && !name.equals("QUIT") && !name.equals("HELLO")) {
            return NOAUTH;
        }
        try {
            return switch (name) {
                case "PING" -> args.size() == 1 ? new SimpleStringRedisMessage("PONG")
                        : args.size() == 2 ? bulk(args.get(1)) : arity("ping");
                case "ECHO" -> args.size() == 2 ? bulk(args.get(1)) : arity("echo");
                case "GET" -> args.size() == 2 ? get(args.get(1)) : arity("get");
                case "SET" -> args.size() >= 3 ? set(args) : arity("set");
                case "DEL" -> args.size() >= 2 ? del(args.subList(1, args.size())) : arity("del");
                case "UNLINK" -> args.size() >= 2 ? del(args.subList(1, args.size())) : arity("unlink");
                case "GETDEL" -> args.size() == 2 ? getDel(args.get(1)) : arity("getdel");
                case "APPEND" -> args.size() == 3 ? append(args.get(1), args.get(2)) : arity("append");
                case "STRLEN" -> args.size() == 2 ? strlen(args.get(1)) : arity("strlen");
                case "SETEX" -> args.size() == 4 ? setEx(args) : arity("setex");
                case "EXPIRE" -> keyCommands.expire(args, 1000, "expire");
                case "PEXPIRE" -> keyCommands.expire(args, 1, "pexpire");
                case "PERSIST" -> args.size() == 2 ? keyCommands.persist(args.get(1)) : arity("persist");
                case "TYPE" -> args.size() == 2 ? keyCommands.type(args.get(1)) : arity("type");
                case "RENAME" -> args.size() == 3 ? keyCommands.rename(args.get(1), args.get(2)) : arity("rename");
                case "KEYS" -> args.size() == 2 ? keyCommands.keys(args.get(1)) : arity("keys");
                case "FLUSHALL" -> keyCommands.flushAll(args);
                case "EXISTS" -> args.size() >= 2 ? exists(args.subList(1, args.size())) : arity("exists");
                case "MGET" -> args.size() >= 2 ? mget(args.subList(1, args.size())) : arity("mget");
                case "MSET" -> args.size() >= 3 && args.size() % 2 == 1 ? mset(args.subList(1, args.size()))
                        : arity("mset");
                case "INCR" -> args.size() == 2 ? incrBy(args.get(1), 1) : arity("incr");
                case "DECR" -> args.size() == 2 ? incrBy(args.get(1), -1) : arity("decr");
                case "INCRBY" -> args.size() == 3 ? incrBy(args.get(1), args.get(2), false) : arity("incrby");
                case "DECRBY" -> args.size() == 3 ? incrBy(args.get(1), args.get(2), true) : arity("decrby");
                case "INCRBYFLOAT" -> args.size() == 3 ? incrByFloat(args.get(1), args.get(2)) : arity("incrbyfloat");
                case "TTL" -> args.size() == 2 ? ttl(args.get(1), 1000) : arity("ttl");
                case "PTTL" -> args.size() == 2 ? ttl(args.get(1), 1) : arity("pttl");
                case "SCAN" -> args.size() >= 2 ? scan(args) : arity("scan");
                case "BGSAVE" -> args.size() == 1 ? saves.start() : arity("bgsave");
                case "LASTSAVE" -> args.size() == 1 ? new IntegerRedisMessage(saves.lastSaveSeconds()) : arity("lastsave");
                case "DBSIZE" -> args.size() == 1 ? new IntegerRedisMessage(approximateKeyCount()) : arity("dbsize");
                case "INFO" -> bulk(info.render(args.size() > 1
                        ? new String(args.get(1), StandardCharsets.UTF_8).toLowerCase(Locale.ROOT) : "default",
                        approximateKeyCount()).getBytes(StandardCharsets.UTF_8));
                case "CONFIG" -> config(args);
                case "COMMAND" -> command(args);
                case "CLIENT" -> client(session, args);
                case "SELECT" -> args.size() == 2 ? select(args.get(1)) : arity("select");
                case "QUIT" -> {
                    session.closeAfterReply = true;
                    yield OK;
                }
                case "AUTH" -> auth(session, args);
                default -> {
                    RedisMessage hash = name.startsWith("H") ? hashes.execute(name, args) : null;
                    yield hash != null ? hash : unknown(name, args);
                }
            };
        } catch (WrongTypeException e) {
            return WRONGTYPE;
        } catch (CommandRefused e) {
            return e.reply;
        } catch (IllegalArgumentException e) {
            // The store refuses what it cannot take (an oversized key or value) before changing anything.
            return new ErrorRedisMessage("ERR " + oneLine(e.getMessage()));
        } catch (StoreException e) {
            return new ErrorRedisMessage("ERR store: " + oneLine(e.getMessage()));
        } catch (IllegalStateException e) {
            return new ErrorRedisMessage("ERR " + oneLine(e.getMessage()));
        }
    }

    /**
     * Whether {@link #writeAll} takes {@code args}: a plain {@code SET key value}, {@code INCR
     * key}, {@code DECR key}, {@code INCRBY key n} or {@code DECRBY key n} (any case).
     */
    static boolean batchableWrite(List<byte[]> args) {
        return switch (args.size()) {
            case 2 -> is(args.get(0), "INCR") || is(args.get(0), "DECR");
            case 3 -> is(args.get(0), "SET") || is(args.get(0), "INCRBY") || is(args.get(0), "DECRBY");
            default -> false;
        };
    }

    /**
     * Writes that arrived one after another on one connection (a pipeline) and that
     * {@link #batchableWrite} takes, applied as one write batch: one WAL record and one wait
     * for the store's acknowledgement instead of one per command. They run as if one after
     * another: every key's stripe is held from the reads to the write, each command sees the
     * effect of the ones before it (an INCR after a SET of the same key, or after another
     * INCR), and a command refused (not an integer, an overflow, a hash) changes nothing and
     * gets its own error while the others go on, as in Redis. Where one key is written more
     * than once, the batch keeps its last value. If the store refuses the batch (an oversized
     * key, say) or a value is over the client's limit, nothing was written, and the commands
     * run one by one so each gets its own answer.
     *
     * @return one reply per command, in order
     */
    List<RedisMessage> writeAll(Session session, List<List<byte[]>> writes) {
        return writeAll(java.util.Collections.nCopies(writes.size(), session), writes);
    }

    /**
     * {@link #writeAll(Session, List)} of writes that came from several connections:
     * {@code sessions[i]} sent {@code writes[i]} (and answers for it where a command runs alone).
     */
    List<RedisMessage> writeAll(List<Session> sessions, List<List<byte[]>> writes) {
        if (writes.size() == 1) {
            return List.of(execute(sessions.get(0), writes.get(0)));
        }
        if (allSets(writes)) {
            List<RedisMessage> done = setAll(writes);
            if (done != null) {
                return done;
            }
            // Refused (a value over the limit, a key the store refuses): each SET answers for itself below.
        }
        try {
            // Every key, once, in first-seen order; and the keys an increment reads before any SET of them.
            Map<ByteBuffer, byte[]> state = new LinkedHashMap<>();
            List<byte[]> toRead = new ArrayList<>();
            for (List<byte[]> args : writes) {
                ByteBuffer key = ByteBuffer.wrap(args.get(1));
                if (!state.containsKey(key)) {
                    state.put(key, null);
                    if (!is(args.get(0), "SET")) {
                        toRead.add(args.get(1));
                    }
                }
            }
            List<byte[]> keys = new ArrayList<>(state.size());
            for (ByteBuffer k : state.keySet()) {
                keys.add(k.array());
            }
            List<RedisMessage> replies = new ArrayList<>(writes.size());
            try (KeyLocks.Held ignored = locks.lockAll(keys)) {
                long now = clock.getAsLong();
                if (!toRead.isEmpty()) {
                    byte[][] current = getAll(toRead);
                    for (int i = 0; i < current.length; i++) {
                        state.put(ByteBuffer.wrap(toRead.get(i)), current[i]);
                    }
                }
                java.util.Set<ByteBuffer> written = new java.util.HashSet<>();
                // Keys whose every write here is an increment, the first onto a live integer: one
                // merge operand each, {amounts summed (wrapping: each running value was checked),
                // the value's expiry time}; every other key written gets its last value as a put.
                Map<ByteBuffer, long[]> merges = new java.util.HashMap<>();
                for (List<byte[]> args : writes) {
                    ByteBuffer key = ByteBuffer.wrap(args.get(1));
                    if (is(args.get(0), "SET")) {
                        state.put(key, stored(args.get(2), StoredValue.NEVER));
                        written.add(key);
                        merges.remove(key);
                        replies.add(OK);
                        continue;
                    }
                    try {
                        long by = delta(args);
                        Incremented next = incremented(state.get(key), now, by);
                        state.put(key, next.stored());
                        if (written.add(key)) {
                            if (next.onLiveValue()) {
                                merges.put(key, new long[] {by, next.expireAt()});
                            }
                        } else {
                            long[] m = merges.get(key);
                            if (m != null) {
                                m[0] += by;
                            }
                        }
                        replies.add(new IntegerRedisMessage(next.value()));
                    } catch (CommandRefused e) {
                        replies.add(e.reply);
                    } catch (WrongTypeException e) {
                        replies.add(WRONGTYPE);
                    }
                }
                if (!written.isEmpty()) {
                    WriteBatch batch = new WriteBatch();
                    for (Map.Entry<ByteBuffer, byte[]> e : state.entrySet()) {
                        if (written.contains(e.getKey())) {
                            long[] m = merges.get(e.getKey());
                            if (m != null) {
                                batch.merge(NodeKeys.stored(e.getKey().array()), NodeIncrOperator.operand(m[0], m[1]));
                            } else {
                                batch.put(NodeKeys.stored(e.getKey().array()), e.getValue());
                            }
                        }
                    }
                    store.write(batch);
                }
            }
            return replies;
        } catch (IllegalArgumentException | StoreException | IllegalStateException refused) {
            List<RedisMessage> out = new ArrayList<>(writes.size());
            for (int i = 0; i < writes.size(); i++) {
                out.add(execute(sessions.get(i), writes.get(i)));
            }
            return out;
        }
    }

    private static boolean allSets(List<List<byte[]>> writes) {
        for (List<byte[]> args : writes) {
            if (!is(args.get(0), "SET")) {
                return false;
            }
        }
        return true;
    }

    /**
     * {@link #writeAll} of plain SETs only (the common pipeline): nothing to read, so no
     * per-key state; every SET goes into the write batch in order (a key set twice keeps the
     * later value, its newer version), under all the keys' stripes. Returns null, having
     * written nothing, when a value is over the client's limit or the store refuses the batch.
     */
    private List<RedisMessage> setAll(List<List<byte[]>> writes) {
        List<byte[]> keys = new ArrayList<>(writes.size());
        WriteBatch batch = new WriteBatch();
        try {
            for (List<byte[]> args : writes) {
                keys.add(args.get(1));
                batch.put(NodeKeys.stored(args.get(1)), stored(args.get(2), StoredValue.NEVER));
            }
            try (KeyLocks.Held ignored = locks.lockAll(keys)) {
                store.write(batch);
            }
        } catch (IllegalArgumentException | StoreException | IllegalStateException refused) {
            return null;
        }
        return java.util.Collections.nCopies(writes.size(), OK);
    }

    /**
     * The amount an INCR, DECR, INCRBY or DECRBY ({@link #batchableWrite}) adds.
     *
     * @throws CommandRefused as {@link #execute} answers a bad amount
     */
    private static long delta(List<byte[]> args) {
        if (args.size() == 2) {
            return is(args.get(0), "INCR") ? 1 : -1;
        }
        return amount(args.get(2), is(args.get(0), "DECRBY"));
    }

    /**
     * INCRBY's or (when {@code negate}) DECRBY's amount, {@code by} as a client wrote it.
     *
     * @throws CommandRefused when {@code by} is not an integer, or DECRBY's negation of it is
     *     not a long
     */
    private static long amount(byte[] by, boolean negate) {
        Long n = parseLong(by);
        if (n == null) {
            throw new CommandRefused(NOT_INTEGER);
        }
        if (negate && n == Long.MIN_VALUE) {
            // Its negation is not a long (Redis 7 answers the same).
            throw new CommandRefused(new ErrorRedisMessage("ERR decrement would overflow"));
        }
        return negate ? -n : n;
    }

    /**
     * An integer increment's result: the new value and its stored form (the TTL kept), whether
     * it was added to a live value (then the write is a merge operand, {@link NodeIncrOperator};
     * otherwise, a missing or expired key, a put that starts it afresh without a TTL, as in
     * Redis), and the value's expiry time.
     */
    private record Incremented(long value, byte[] stored, boolean onLiveValue, long expireAt) {
    }

    /**
     * {@code by} added to the stored value {@code storedOld} (null: missing, 0) as INCRBY does
     * at {@code now}, keeping the key's time to live, as Redis does.
     *
     * @throws CommandRefused as {@link #increment}
     */
    private Incremented incremented(byte[] storedOld, long now, long by) {
        StoredValue old = StoredValue.decode(storedOld, now);
        long next = increment(old == null ? null : old.payload(), by, NOT_INTEGER);
        long expireAt = old == null ? StoredValue.NEVER : old.expireAtMillis();
        return new Incremented(next, stored(Long.toString(next).getBytes(StandardCharsets.US_ASCII), expireAt),
                old != null, expireAt);
    }

    /** Whether {@code name} is {@code upper} in any case (ASCII letters). */
    static boolean is(byte[] name, String upper) {
        if (name.length != upper.length()) {
            return false;
        }
        for (int i = 0; i < name.length; i++) {
            if ((name[i] & 0xdf) != upper.charAt(i)) {
                return false;
            }
        }
        return true;
    }

    /**
     * The stored form of a client's value, checked against the client's limit: the store's
     * {@code maxValueBytes} less the room {@link RespServer#storeConfig} added for the header.
     *
     * @throws IllegalArgumentException naming the client's size and limit when it is over
     */
    private byte[] stored(byte[] payload, long expireAt) {
        if (payload.length > maxValueBytes) {
            throw new IllegalArgumentException("value of " + payload.length
                    + " bytes exceeds the maximum value size of " + maxValueBytes + " bytes");
        }
        return new StoredValue(payload, expireAt).encode();
    }

    /**
     * The stored values of {@code keys} (GETs of a pipeline), null where absent, read in one
     * pass through the store's read path at one instant; decode with {@link StoredValue#payloadStart}
     * at {@link #now}.
     */
    byte[][] getAll(List<byte[]> keys) {
        byte[][] stored = new byte[keys.size()][];
        for (int i = 0; i < stored.length; i++) {
            stored[i] = NodeKeys.stored(keys.get(i));
        }
        return store.getAll(stored);
    }

    /** A GET's stored value if the store's memtables answer it (see {@link LsmStore#getFromMemory}). */
    dev.strata.lsm.MemoryRead getFromMemory(byte[] key) {
        return store.getFromMemory(NodeKeys.stored(key));
    }

    /**
     * An HGET's stored field value if the store's memtables answer both its reads (the hash's
     * metadata, then the field; see {@link HashCommands}'s HGET), else
     * {@link dev.strata.lsm.MemoryRead#NOT_IN_MEMORY} — also for a key holding a string, which
     * the command thread answers with WRONGTYPE.
     */
    dev.strata.lsm.MemoryRead hgetFromMemory(byte[] key, byte[] field) {
        dev.strata.lsm.MemoryRead m = store.getFromMemory(NodeKeys.stored(key));
        if (!m.answered()) {
            return m;
        }
        long now = clock.getAsLong();
        if (!StoredValue.live(m.value(), now)) {
            return dev.strata.lsm.MemoryRead.DELETED;
        }
        if (m.value()[0] != StoredValue.HASH) {
            return dev.strata.lsm.MemoryRead.NOT_IN_MEMORY;
        }
        HashMeta meta = HashMeta.decode(m.value(), now);
        return store.getFromMemory(hashes.fields(), NodeKeys.hashField(NodeKeys.hashPrefix(key, meta.version()), field));
    }

    /** The node's clock, epoch milliseconds. */
    long now() {
        return clock.getAsLong();
    }

    /** GETDEL: the value (nil when missing), and the key deleted. */
    private RedisMessage getDel(byte[] key) {
        try (KeyLocks.Held ignored = locks.lock(key)) {
            byte[] stored = store.get(NodeKeys.stored(key));
            StoredValue v = StoredValue.decode(stored, clock.getAsLong());
            if (stored != null) {
                store.delete(NodeKeys.stored(key));
            }
            return v == null ? NIL : bulk(v.payload());
        }
    }

    /** APPEND: the value's new length; a missing key starts empty; the time to live is kept. */
    private RedisMessage append(byte[] key, byte[] suffix) {
        try (KeyLocks.Held ignored = locks.lock(key)) {
            StoredValue old = StoredValue.decode(store.get(NodeKeys.stored(key)), clock.getAsLong());
            byte[] before = old == null ? new byte[0] : old.payload();
            long length = (long) before.length + suffix.length;
            if (length > maxValueBytes) {
                return new ErrorRedisMessage("ERR string exceeds maximum allowed size (value of " + length
                        + " bytes exceeds the maximum value size of " + maxValueBytes + " bytes)");
            }
            byte[] value = Arrays.copyOf(before, (int) length);
            System.arraycopy(suffix, 0, value, before.length, suffix.length);
            store.put(NodeKeys.stored(key), stored(value, old == null ? StoredValue.NEVER : old.expireAtMillis()));
            return new IntegerRedisMessage(length);
        }
    }

    /** STRLEN: the value's length in bytes, 0 when missing. */
    private RedisMessage strlen(byte[] key) {
        byte[] stored = store.get(NodeKeys.stored(key));
        int at = StoredValue.payloadStart(stored, clock.getAsLong());
        return new IntegerRedisMessage(at < 0 ? 0 : stored.length - at);
    }

    /** SETEX key seconds value: SET key value EX seconds. */
    private RedisMessage setEx(List<byte[]> args) {
        Long n = parseLong(args.get(2));
        if (n == null) {
            return NOT_INTEGER;
        }
        if (n <= 0) {
            return new ErrorRedisMessage("ERR invalid expire time in 'setex' command");
        }
        return set(List.of(args.get(0), args.get(1), args.get(3), "EX".getBytes(StandardCharsets.US_ASCII), args.get(2)));
    }

    private RedisMessage get(byte[] key) {
        StoredValue v = StoredValue.decode(store.get(NodeKeys.stored(key)), clock.getAsLong());
        return v == null ? NIL : bulk(v.payload());
    }

    private RedisMessage set(List<byte[]> args) {
        byte[] key = args.get(1);
        byte[] value = args.get(2);
        boolean nx = false;
        boolean xx = false;
        boolean keepTtl = false;
        boolean returnOld = false;
        long expireAt = StoredValue.NEVER;
        boolean expirySet = false;
        long now = clock.getAsLong();
        for (int i = 3; i < args.size(); i++) {
            String opt = ascii(args.get(i)).toUpperCase(Locale.ROOT);
            switch (opt) {
                case "NX" -> nx = true;
                case "XX" -> xx = true;
                case "KEEPTTL" -> keepTtl = true;
                case "GET" -> returnOld = true;
                case "EX", "PX", "EXAT", "PXAT" -> {
                    if (expirySet || i + 1 >= args.size()) {
                        return SYNTAX;
                    }
                    Long n = parseLong(args.get(++i));
                    if (n == null) {
                        return NOT_INTEGER;
                    }
                    if (n <= 0) {
                        return new ErrorRedisMessage("ERR invalid expire time in 'set' command");
                    }
                    long at;
                    try {
                        at = switch (opt) {
                            case "EX" -> Math.addExact(now, Math.multiplyExact(n, 1000L));
                            case "PX" -> Math.addExact(now, n);
                            case "EXAT" -> Math.multiplyExact(n, 1000L);
                            default -> n;
                        };
                    } catch (ArithmeticException e) {
                        return new ErrorRedisMessage("ERR invalid expire time in 'set' command");
                    }
                    expireAt = at;
                    expirySet = true;
                }
                default -> {
                    return SYNTAX;
                }
            }
        }
        if ((nx && xx) || (keepTtl && expirySet)) {
            return SYNTAX;
        }
        try (KeyLocks.Held ignored = locks.lock(key)) {
            // SET replaces a key of any type (a hash too), but SET ... GET of a hash is WRONGTYPE.
            byte[] raw = nx || xx || keepTtl || returnOld ? store.get(NodeKeys.stored(key)) : null;
            boolean exists = StoredValue.live(raw, now);
            hashes.left(raw);
            StoredValue old = returnOld ? StoredValue.decode(raw, now) : null;
            RedisMessage skipped = returnOld ? (old == null ? NIL : bulk(old.payload())) : NIL;
            if ((nx && exists) || (xx && !exists)) {
                return skipped;
            }
            if (keepTtl && exists) {
                expireAt = StoredValue.expireAt(raw);
            }
            if (expireAt <= now) {
                // EXAT/PXAT in the past: Redis sets and expires at once, which is a delete.
                store.delete(NodeKeys.stored(key));
            } else {
                store.put(NodeKeys.stored(key), stored(value, expireAt));
            }
            return returnOld ? skipped : OK;
        }
    }

    private RedisMessage del(List<byte[]> keys) {
        try (KeyLocks.Held ignored = locks.lockAll(keys)) {
            long now = clock.getAsLong();
            WriteBatch batch = new WriteBatch();
            long existed = 0;
            for (byte[] k : distinct(keys)) {
                // A hash too: its metadata record goes, its fields become garbage (docs/server.md).
                byte[] stored = store.get(NodeKeys.stored(k));
                if (StoredValue.live(stored, now)) {
                    existed++;
                }
                if (stored != null) {
                    batch.delete(NodeKeys.stored(k));
                    hashes.left(stored);
                }
            }
            if (!batch.isEmpty()) {
                store.write(batch);
            }
            return new IntegerRedisMessage(existed);
        }
    }

    private RedisMessage exists(List<byte[]> keys) {
        long now = clock.getAsLong();
        long n = 0;
        for (byte[] stored : getAll(keys)) {
            if (StoredValue.live(stored, now)) {
                n++;
            }
        }
        return new IntegerRedisMessage(n);
    }

    private RedisMessage mget(List<byte[]> keys) {
        long now = clock.getAsLong();
        // One multi-get: the values are read at one instant, as Redis's single thread would.
        byte[][] stored = getAll(keys);
        List<RedisMessage> out = new ArrayList<>(keys.size());
        for (byte[] v : stored) {
            // A key of another type reads as nil, as in Redis.
            int at = v != null && v.length > 0 && v[0] == StoredValue.HASH ? -1 : StoredValue.payloadStart(v, now);
            out.add(at < 0 ? NIL : bulk(Arrays.copyOfRange(v, at, v.length)));
        }
        return new ArrayRedisMessage(out);
    }

    private RedisMessage mset(List<byte[]> kv) {
        List<byte[]> keys = new ArrayList<>(kv.size() / 2);
        for (int i = 0; i < kv.size(); i += 2) {
            keys.add(kv.get(i));
        }
        try (KeyLocks.Held ignored = locks.lockAll(keys)) {
            WriteBatch batch = new WriteBatch();
            for (int i = 0; i < kv.size(); i += 2) {
                batch.put(NodeKeys.stored(kv.get(i)), stored(kv.get(i + 1), StoredValue.NEVER));
            }
            store.write(batch);
            return OK;
        }
    }

    private RedisMessage incrBy(byte[] key, byte[] by, boolean negate) {
        return incrBy(key, amount(by, negate));
    }

    /** INCRBYFLOAT key by: the new value, as Redis writes it ({@link FloatIncrement}); the TTL is kept. */
    private RedisMessage incrByFloat(byte[] key, byte[] by) {
        try (KeyLocks.Held ignored = locks.lock(key)) {
            long now = clock.getAsLong();
            StoredValue old = StoredValue.decode(store.get(NodeKeys.stored(key)), now);
            byte[] next = FloatIncrement.add(old == null ? null : old.payload(), by, FloatIncrement.NOT_FLOAT);
            long expireAt = old == null ? StoredValue.NEVER : old.expireAtMillis();
            store.put(NodeKeys.stored(key), stored(next, expireAt));
            return bulk(next);
        }
    }

    private RedisMessage incrBy(byte[] key, long by) {
        try (KeyLocks.Held ignored = locks.lock(key)) {
            long now = clock.getAsLong();
            Incremented next = incremented(store.get(NodeKeys.stored(key)), now, by);
            if (next.onLiveValue()) {
                // Checked above under the key's lock (an integer, no overflow): the write is the amount.
                store.merge(NodeKeys.stored(key), NodeIncrOperator.operand(by, next.expireAt()));
            } else {
                store.put(NodeKeys.stored(key), next.stored());
            }
            return new IntegerRedisMessage(next.value());
        }
    }

    /**
     * INCRBY's and HINCRBY's arithmetic: {@code current} (a decimal, null for a missing value:
     * 0) plus {@code by}.
     *
     * @throws CommandRefused with {@code notInteger} when {@code current} is not a strict
     *     64-bit decimal, or with Redis's overflow error
     */
    static long increment(byte[] current, long by, ErrorRedisMessage notInteger) {
        long base = 0;
        if (current != null) {
            Long parsed = parseLong(current);
            if (parsed == null) {
                throw new CommandRefused(notInteger);
            }
            base = parsed;
        }
        try {
            return Math.addExact(base, by);
        } catch (ArithmeticException e) {
            throw new CommandRefused(new ErrorRedisMessage("ERR increment or decrement would overflow"));
        }
    }

    private RedisMessage ttl(byte[] key, long unitMillis) {
        long now = clock.getAsLong();
        byte[] stored = store.get(NodeKeys.stored(key));
        if (!StoredValue.live(stored, now)) {
            return new IntegerRedisMessage(-2);
        }
        long at = StoredValue.expireAt(stored);
        if (at == StoredValue.NEVER) {
            return new IntegerRedisMessage(-1);
        }
        long left = at - now;
        return new IntegerRedisMessage(unitMillis == 1 ? left : (left + 500) / 1000);
    }

    private RedisMessage scan(List<byte[]> args) {
        String cursorText = ascii(args.get(1));
        long cursor;
        try {
            cursor = Long.parseUnsignedLong(cursorText);
        } catch (NumberFormatException e) {
            return new ErrorRedisMessage("ERR invalid cursor");
        }
        Glob match = null;
        int count = SCAN_DEFAULT_COUNT;
        String type = null;
        for (int i = 2; i < args.size(); i++) {
            String opt = ascii(args.get(i)).toUpperCase(Locale.ROOT);
            if (i + 1 >= args.size()) {
                return SYNTAX;
            }
            switch (opt) {
                case "MATCH" -> match = new Glob(args.get(++i));
                case "COUNT" -> {
                    Long c = parseLong(args.get(++i));
                    if (c == null) {
                        return NOT_INTEGER;
                    }
                    if (c < 1) {
                        return SYNTAX;
                    }
                    count = (int) Math.min(c, 100_000);
                }
                case "TYPE" -> type = ascii(args.get(++i)).toLowerCase(Locale.ROOT);
                default -> {
                    return SYNTAX;
                }
            }
        }
        byte[] prefix = match == null ? new byte[0] : match.literalPrefix();
        byte[] from;
        if (cursor == 0) {
            from = prefix.length == 0 ? null : NodeKeys.stored(prefix);
        } else {
            byte[] after = cursors.lookup(cursor);
            if (after == null) {
                return new ErrorRedisMessage("ERR invalid cursor (unknown to this node or expired; start again at 0)");
            }
            from = Arrays.copyOf(after, after.length + 1);
        }
        byte[] prefixEnd = prefix.length == 0 ? null : prefixEnd(prefix);
        byte[] to = prefixEnd == null ? null : NodeKeys.stored(prefixEnd);
        long now = clock.getAsLong();
        List<RedisMessage> keys = new ArrayList<>();
        byte[] last = null;
        boolean exhausted = true;
        // Client keys only: hash fields and the node's records are not keys.
        try (NodeKeys.ClientCursor c = NodeKeys.clientScan(store, from, to)) {
            int examined = 0;
            while (c.next()) {
                byte[] stored = c.key();
                byte[] k = NodeKeys.client(stored);
                last = stored;
                examined++;
                if ((match == null || match.isPrefixOnly() || match.matches(k))
                        && (type == null ? StoredValue.live(c.value(), now) : type.equals(StoredValue.type(c.value(), now)))) {
                    keys.add(bulk(k));
                }
                if (examined >= count || (match != null && match.steps() > SCAN_MATCH_STEPS)) {
                    exhausted = false;
                    break;
                }
            }
        }
        long next = exhausted || last == null ? 0 : cursors.save(last);
        return new ArrayRedisMessage(List.of(bulk(Long.toUnsignedString(next).getBytes(StandardCharsets.US_ASCII)),
                new ArrayRedisMessage(keys)));
    }

    /**
     * DBSIZE: an estimate, not a count, unless the store holds fewer than
     * {@value #DBSIZE_SAMPLE} keys (then they are counted): the store's
     * {@link dev.strata.lsm.LsmStore#estimateKeyCount()} of the default family, from memtable
     * key counts and table entry counts, less the node's marker record (hash fields live in
     * their own family, so a hash counts once). Expired keys not yet dropped count; it errs
     * high while overwritten versions of a key sit in components not yet merged.
     */
    long approximateKeyCount() {
        long counted = 0;
        try (NodeKeys.ClientCursor c = NodeKeys.clientScan(store, null, null)) {
            while (counted < DBSIZE_SAMPLE && c.next()) {
                counted++;
            }
        }
        if (counted < DBSIZE_SAMPLE) {
            return counted;
        }
        return Math.max(counted, store.estimateKeyCount() - 1);
    }

    private RedisMessage config(List<byte[]> args) {
        if (args.size() < 2) {
            return arity("config");
        }
        String sub = ascii(args.get(1)).toUpperCase(Locale.ROOT);
        switch (sub) {
            case "GET" -> {
                if (args.size() < 3) {
                    return arity("config|get");
                }
                Map<String, String> values = info.configValues();
                Map<String, String> hit = new LinkedHashMap<>();
                for (byte[] p : args.subList(2, args.size())) {
                    Glob g = new Glob(ascii(p).toLowerCase(Locale.ROOT).getBytes(StandardCharsets.US_ASCII));
                    values.forEach((k, v) -> {
                        if (g.matches(k.getBytes(StandardCharsets.US_ASCII))) {
                            hit.put(k, v);
                        }
                    });
                }
                List<RedisMessage> out = new ArrayList<>();
                hit.forEach((k, v) -> {
                    out.add(bulk(k.getBytes(StandardCharsets.UTF_8)));
                    out.add(bulk(v.getBytes(StandardCharsets.UTF_8)));
                });
                return new ArrayRedisMessage(out);
            }
            case "RESETSTAT" -> {
                return OK;
            }
            case "SET" -> {
                return new ErrorRedisMessage("ERR CONFIG SET is not supported: configure the node with --config FILE.xml");
            }
            default -> {
                return new ErrorRedisMessage("ERR unknown subcommand '" + printable(args.get(1)) + "'. Try CONFIG GET.");
            }
        }
    }

    private RedisMessage command(List<byte[]> args) {
        if (args.size() == 1) {
            return new ArrayRedisMessage(List.of());
        }
        String sub = ascii(args.get(1)).toUpperCase(Locale.ROOT);
        return switch (sub) {
            case "COUNT" -> new IntegerRedisMessage(CommandNames.KNOWN.size());
            case "DOCS", "INFO", "LIST" -> new ArrayRedisMessage(List.of());
            default -> new ErrorRedisMessage("ERR unknown subcommand '" + printable(args.get(1)) + "'. Try COMMAND HELP.");
        };
    }

    private RedisMessage client(Session session, List<byte[]> args) {
        if (args.size() < 2) {
            return arity("client");
        }
        String sub = ascii(args.get(1)).toUpperCase(Locale.ROOT);
        return switch (sub) {
            case "SETINFO" -> args.size() == 4 ? OK : arity("client|setinfo");
            case "SETNAME" -> {
                if (args.size() != 3) {
                    yield arity("client|setname");
                }
                byte[] given = args.get(2);
                for (byte b : given) {
                    // As Redis: the name shows in CLIENT LIST, whose fields are separated by spaces.
                    if (b < '!' || b > '~') {
                        yield new ErrorRedisMessage(
                                "ERR Client names cannot contain spaces, newlines or special characters.");
                    }
                }
                session.name = given.length == 0 ? null : new String(given, StandardCharsets.US_ASCII);
                yield OK;
            }
            case "GETNAME" -> session.name == null ? NIL : bulk(session.name.getBytes(StandardCharsets.UTF_8));
            case "ID" -> new IntegerRedisMessage(session.id);
            default -> new ErrorRedisMessage("ERR unknown subcommand '" + printable(args.get(1)) + "'. Try CLIENT HELP.");
        };
    }

    private RedisMessage select(byte[] db) {
        Long n = parseLong(db);
        if (n == null) {
            return NOT_INTEGER;
        }
        return n == 0 ? OK : new ErrorRedisMessage("ERR DB index is out of range");
    }

    private RedisMessage auth(Session session, List<byte[]> args) {
        if (args.size() != 2 && args.size() != 3) {
            return arity("auth");
        }
        if (requirePass == null) {
            return new ErrorRedisMessage("ERR AUTH <password> called without any password configured for the "
                    + "default user. Are you sure your configuration is correct?");
        }
        boolean userOk = args.size() == 2 || ascii(args.get(1)).equals("default");
        byte[] given = args.get(args.size() - 1);
        // Constant-time comparison: the reply time says nothing about how much of it matched.
        if (userOk & MessageDigest.isEqual(given, requirePass)) {
            session.authenticated = true;
            return OK;
        }
        return new ErrorRedisMessage("WRONGPASS invalid username-password pair or user is disabled.");
    }

    private static RedisMessage unknown(String name, List<byte[]> args) {
        StringBuilder sb = new StringBuilder("ERR unknown command '").append(printable(args.get(0)))
                .append("', with args beginning with: ");
        for (int i = 1; i < args.size() && i <= 3; i++) {
            sb.append('\'').append(printable(args.get(i))).append("' ");
        }
        return new ErrorRedisMessage(sb.toString());
    }

    static RedisMessage arity(String command) {
        return new ErrorRedisMessage("ERR wrong number of arguments for '" + command + "' command");
    }

    static FullBulkStringRedisMessage bulk(byte[] b) {
        return new FullBulkStringRedisMessage(Unpooled.wrappedBuffer(b));
    }

    private static List<byte[]> distinct(List<byte[]> keys) {
        List<byte[]> out = new ArrayList<>(keys.size());
        java.util.Set<java.nio.ByteBuffer> seen = new java.util.HashSet<>();
        for (byte[] k : keys) {
            if (seen.add(java.nio.ByteBuffer.wrap(k))) {
                out.add(k);
            }
        }
        return out;
    }

    /** The smallest key greater than every key starting with {@code prefix}, or null when none. */
    static byte[] prefixEnd(byte[] prefix) {
        byte[] end = prefix.clone();
        for (int i = end.length - 1; i >= 0; i--) {
            if (end[i] != (byte) 0xff) {
                end[i]++;
                return Arrays.copyOf(end, i + 1);
            }
        }
        return null;
    }

    /** A strict decimal long as Redis reads one (no spaces, no '+', no leading zeros), else null. */
    static Long parseLong(byte[] b) {
        if (b.length == 0 || b.length > 20) {
            return null;
        }
        String s = new String(b, StandardCharsets.US_ASCII);
        try {
            long v = Long.parseLong(s);
            return Long.toString(v).equals(s) ? v : null;
        } catch (NumberFormatException e) {
            return null;
        }
    }

    private static String ascii(byte[] b) {
        return new String(b, StandardCharsets.US_ASCII);
    }

    static String printable(byte[] b) {
        String s = new String(b, 0, Math.min(b.length, 128), StandardCharsets.UTF_8);
        return oneLine(s);
    }

    private static String oneLine(String s) {
        return s == null ? "" : s.replace('\r', ' ').replace('\n', ' ');
    }
}
