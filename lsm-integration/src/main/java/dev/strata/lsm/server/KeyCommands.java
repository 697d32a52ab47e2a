package dev.strata.lsm.server;

import dev.strata.lsm.LsmStore;
import dev.strata.lsm.WriteBatch;
import io.netty.handler.codec.redis.ArrayRedisMessage;
import io.netty.handler.codec.redis.ErrorRedisMessage;
import io.netty.handler.codec.redis.IntegerRedisMessage;
import io.netty.handler.codec.redis.RedisMessage;
import io.netty.handler.codec.redis.SimpleStringRedisMessage;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.LongSupplier;

/**
 * The commands on keys whatever their value: EXPIRE, PEXPIRE, PERSIST, TYPE, RENAME, KEYS
 * and FLUSHALL, on strings and hashes alike (a hash is one key: its metadata record under the
 * key carries its expiry; KEYS and FLUSHALL see client keys only). Writes hold the {@link KeyLocks} stripes of their keys (the same locks as
 * {@link RespCommands}'s), so they are atomic against any other write of those keys.
 */
final class KeyCommands {
    private static final RedisMessage ZERO = new IntegerRedisMessage(0);
    private static final RedisMessage ONE = new IntegerRedisMessage(1);
    /** Keys deleted per write batch by FLUSHALL. */
    private static final int FLUSH_BATCH = 1024;

    private final LsmStore store;
    private final KeyLocks locks;
    private final LongSupplier clock;
    private final HashCommands hashes;

    KeyCommands(LsmStore store, KeyLocks locks, LongSupplier clock, HashCommands hashes) {
        this.store = store;
        this.locks = locks;
        this.clock = clock;
        this.hashes = hashes;
    }

    /**
     * EXPIRE / PEXPIRE {@code key time [NX|XX|GT|LT]}: 1 when the time to live was set (or the
     * key deleted, for a time not in the future), 0 when the key is missing or the condition
     * does not hold. A key without expiry counts as an infinite time to live for GT and LT.
     */
    RedisMessage expire(List<byte[]> args, long unitMillis, String command) {
        if (args.size() < 3) {
            return RespCommands.arity(command);
        }
        Long n = RespCommands.parseLong(args.get(2));
        if (n == null) {
            return RespCommands.NOT_INTEGER;
        }
        boolean nx = false;
        boolean xx = false;
        boolean gt = false;
        boolean lt = false;
        for (int i = 3; i < args.size(); i++) {
            switch (new String(args.get(i), StandardCharsets.US_ASCII).toUpperCase(Locale.ROOT)) {
                case "NX" -> nx = true;
                case "XX" -> xx = true;
                case "GT" -> gt = true;
                case "LT" -> lt = true;
                default -> {
                    return new ErrorRedisMessage("ERR Unsupported option " + RespCommands.printable(args.get(i)));
                }
            }
        }
        if (nx && (xx || gt || lt)) {
            return new ErrorRedisMessage("ERR NX and XX, GT or LT options at the same time are not compatible");
        }
        if (gt && lt) {
            return new ErrorRedisMessage("ERR GT and LT options at the same time are not compatible");
        }
        byte[] key = args.get(1);
        try (KeyLocks.Held ignored = locks.lock(key)) {
            long now = clock.getAsLong();
            long at;
            try {
                at = Math.addExact(now, Math.multiplyExact(n, unitMillis));
            } catch (ArithmeticException e) {
                return new ErrorRedisMessage("ERR invalid expire time in '" + command + "' command");
            }
            byte[] old = store.get(NodeKeys.stored(key));
            if (!StoredValue.live(old, now)) {
                return ZERO;
            }
            long current = StoredValue.expireAt(old); // NEVER (Long.MAX_VALUE) is an infinite time to live
            boolean expires = current != StoredValue.NEVER;
            if ((nx && expires) || (xx && !expires) || (gt && at <= current) || (lt && at >= current)) {
                return ZERO;
            }
            hashes.left(old);
            if (at <= now) {
                store.delete(NodeKeys.stored(key));
            } else {
                store.put(NodeKeys.stored(key), StoredValue.withExpiry(old, at));
            }
            return ONE;
        }
    }

    /** PERSIST {@code key}: 1 when a time to live was removed, 0 when the key is missing or has none. */
    RedisMessage persist(byte[] key) {
        try (KeyLocks.Held ignored = locks.lock(key)) {
            byte[] old = store.get(NodeKeys.stored(key));
            if (!StoredValue.live(old, clock.getAsLong()) || StoredValue.expireAt(old) == StoredValue.NEVER) {
                return ZERO;
            }
            store.put(NodeKeys.stored(key), StoredValue.withExpiry(old, StoredValue.NEVER));
            return ONE;
        }
    }

    /** TYPE {@code key}: {@code string}, {@code hash}, or {@code none} when missing. */
    RedisMessage type(byte[] key) {
        return new SimpleStringRedisMessage(StoredValue.type(store.get(NodeKeys.stored(key)), clock.getAsLong()));
    }

    /**
     * RENAME {@code key newkey}: moves the value and its time to live in one write batch
     * (atomic), replacing whatever {@code newkey} held. A hash's fields are copied under the
     * new key (O(fields), as in Apache Kvrocks), in the same batch.
     */
    RedisMessage rename(byte[] from, byte[] to) {
        try (KeyLocks.Held ignored = locks.lockAll(List.of(from, to))) {
            long now = clock.getAsLong();
            byte[] stored = store.get(NodeKeys.stored(from));
            if (!StoredValue.live(stored, now)) {
                return new ErrorRedisMessage("ERR no such key");
            }
            if (java.util.Arrays.equals(from, to)) {
                return RespCommands.OK;
            }
            WriteBatch batch = new WriteBatch().delete(NodeKeys.stored(from));
            hashes.left(store.get(NodeKeys.stored(to)));
            HashMeta hash = stored[0] == StoredValue.HASH ? HashMeta.decode(stored, now) : null;
            if (hash != null) {
                hashes.rename(from, to, hash, batch);
            } else {
                batch.put(NodeKeys.stored(to), stored);
            }
            store.write(batch);
            return RespCommands.OK;
        }
    }

    /**
     * KEYS {@code pattern}: every live key matching, in key order. Reads the whole range of
     * the pattern's literal prefix at once, as Redis does; SCAN is the way through a large store.
     */
    RedisMessage keys(byte[] pattern) {
        Glob glob = new Glob(pattern);
        byte[] prefix = glob.literalPrefix();
        long now = clock.getAsLong();
        List<RedisMessage> out = new ArrayList<>();
        byte[] end = prefix.length == 0 ? null : RespCommands.prefixEnd(prefix);
        try (NodeKeys.ClientCursor c = NodeKeys.clientScan(store, prefix.length == 0 ? null : NodeKeys.stored(prefix),
                end == null ? null : NodeKeys.stored(end))) {
            while (c.next()) {
                byte[] k = NodeKeys.client(c.key());
                if ((glob.isPrefixOnly() || glob.matches(k)) && StoredValue.live(c.value(), now)) {
                    out.add(RespCommands.bulk(k));
                }
            }
        }
        return new ArrayRedisMessage(out);
    }

    /**
     * FLUSHALL {@code [ASYNC|SYNC]}: deletes every key, in write batches of {@value #FLUSH_BATCH}
     * keys, each under the locks of its keys, then every hash field no live hash owns (a
     * {@link HashSweeper} pass); returns when all are deleted (ASYNC is accepted and runs the
     * same way). The node's own records (its key-format marker) stay. Not atomic: a key written
     * while it runs may survive it (a hash whole, with its fields).
     */
    RedisMessage flushAll(List<byte[]> args) {
        if (args.size() > 2) {
            return RespCommands.SYNTAX;
        }
        if (args.size() == 2) {
            String mode = new String(args.get(1), StandardCharsets.US_ASCII).toUpperCase(Locale.ROOT);
            if (!mode.equals("ASYNC") && !mode.equals("SYNC")) {
                return RespCommands.SYNTAX;
            }
        }
        byte[] after = null;
        while (true) {
            List<byte[]> keys = new ArrayList<>(FLUSH_BATCH);
            List<byte[]> clientKeys = new ArrayList<>(FLUSH_BATCH);
            try (NodeKeys.ClientCursor c = NodeKeys.clientScan(store, after, null)) {
                while (keys.size() < FLUSH_BATCH && c.next()) {
                    keys.add(c.key());
                    clientKeys.add(NodeKeys.client(c.key()));
                }
            }
            if (keys.isEmpty()) {
                break;
            }
            WriteBatch batch = new WriteBatch();
            for (byte[] k : keys) {
                batch.delete(k);
            }
            try (KeyLocks.Held ignored = locks.lockAll(clientKeys)) {
                store.write(batch);
            }
            byte[] last = keys.get(keys.size() - 1);
            after = java.util.Arrays.copyOf(last, last.length + 1);
        }
        // Every hash is gone but those written since: the sweep deletes the fields no live hash
        // owns, and never those of a hash written while FLUSHALL ran.
        hashes.sweeper().sweepAll();
        return RespCommands.OK;
    }
}
