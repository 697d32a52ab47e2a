package dev.strata.lsm.server;

import dev.strata.lsm.LsmStore;
import io.netty.handler.codec.redis.ErrorRedisMessage;
import io.netty.handler.codec.redis.RedisMessage;
import io.netty.handler.codec.redis.SimpleStringRedisMessage;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.LongSupplier;

/**
 * BGSAVE and LASTSAVE: a save is a store checkpoint ({@link LsmStore#checkpoint}) written by a
 * background thread into {@code DATA/checkpoints/<UTC timestamp>}, an openable copy of the
 * store (hard links of its tables); LASTSAVE is the Unix time of the last one that finished,
 * or of the node's start before any did. One save runs at a time, as in Redis.
 */
final class Checkpoints {
    static final String DIRECTORY = "checkpoints";
    private static final System.Logger LOG = System.getLogger(Checkpoints.class.getName());
    private static final DateTimeFormatter NAME = DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss.SSS'Z'")
            .withZone(ZoneOffset.UTC);

    private final LsmStore store;
    private final LongSupplier clock;
    private final AtomicBoolean running = new AtomicBoolean();
    private volatile long lastSaveSeconds;

    Checkpoints(LsmStore store, LongSupplier clock) {
        this.store = store;
        this.clock = clock;
        this.lastSaveSeconds = clock.getAsLong() / 1000;
    }

    /** BGSAVE: starts a checkpoint in the background, or refuses while one runs. */
    RedisMessage start() {
        if (!running.compareAndSet(false, true)) {
            return new ErrorRedisMessage("ERR Background save already in progress");
        }
        long now = clock.getAsLong();
        Path target = store.directory().resolve(DIRECTORY).resolve(NAME.format(Instant.ofEpochMilli(now)));
        Thread t = new Thread(() -> {
            try {
                Files.createDirectories(target.getParent());
                store.checkpoint(target);
                lastSaveSeconds = clock.getAsLong() / 1000;
                LOG.log(System.Logger.Level.INFO, "checkpoint written to " + target);
            } catch (Exception e) {
                LOG.log(System.Logger.Level.ERROR, "BGSAVE into " + target + " failed", e);
            } finally {
                running.set(false);
            }
        }, "strata-bgsave");
        t.setDaemon(true);
        t.start();
        return new SimpleStringRedisMessage("Background saving started");
    }

    /** LASTSAVE: Unix seconds of the last finished save (the node's start before any). */
    long lastSaveSeconds() {
        return lastSaveSeconds;
    }
}
