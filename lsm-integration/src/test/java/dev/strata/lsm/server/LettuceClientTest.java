package dev.strata.lsm.server;

import dev.strata.lsm.StoreConfig;
import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.LettuceFutures;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.SetArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.api.sync.RedisCommands;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisDataException;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The node through Lettuce (Netty-based, tries RESP3's HELLO first and falls back to RESP2),
 * with its asynchronous pipelining; and password protection.
 */
class LettuceClientTest {

    @Test
    void commandsAndPipelining(@TempDir Path dir) throws Exception {
        try (TestNode node = new TestNode(dir)) {
            RedisClient client = RedisClient.create(RedisURI.create("127.0.0.1", node.port()));
            try (StatefulRedisConnection<String, String> conn = client.connect()) {
                RedisCommands<String, String> sync = conn.sync();
                assertEquals("PONG", sync.ping());
                assertEquals("OK", sync.set("l:a", "1"));
                assertEquals("1", sync.get("l:a"));
                assertEquals(2L, sync.incr("l:a"));
                assertEquals(12L, sync.incrby("l:a", 10));
                assertEquals(11L, sync.decr("l:a"));
                assertEquals("OK", sync.set("l:nx", "v", SetArgs.Builder.nx().ex(60)));
                assertNull(sync.set("l:nx", "w", SetArgs.Builder.nx()));
                assertTrue(sync.ttl("l:nx") > 50);
                assertEquals("OK", sync.mset(Map.of("l:m1", "x", "l:m2", "y")));
                assertEquals("x", sync.mget("l:m1", "l:m2").get(0).getValue());
                assertEquals(2L, sync.exists("l:m1", "l:m2"));
                assertEquals(1L, sync.del("l:m1"));
                RedisCommandExecutionException e = assertThrows(RedisCommandExecutionException.class,
                        () -> sync.incr("l:m2"));
                assertTrue(e.getMessage().contains("not an integer"), e.getMessage());
                assertTrue(sync.info("strata").contains("components:"));
                assertTrue(sync.dbsize() >= 3);

                // Asynchronous pipelining: commands go out in one batch, replies come back in order.
                RedisAsyncCommands<String, String> async = conn.async();
                conn.setAutoFlushCommands(false);
                List<RedisFuture<?>> futures = new ArrayList<>();
                for (int i = 0; i < 5000; i++) {
                    futures.add(async.set("lp:" + i, "v" + i));
                }
                List<RedisFuture<String>> gets = new ArrayList<>();
                for (int i = 0; i < 5000; i++) {
                    gets.add(async.get("lp:" + i));
                }
                conn.flushCommands();
                assertTrue(LettuceFutures.awaitAll(Duration.ofSeconds(60), futures.toArray(new RedisFuture[0])));
                for (int i = 0; i < 5000; i++) {
                    assertEquals("v" + i, gets.get(i).get(60, TimeUnit.SECONDS));
                }
                conn.setAutoFlushCommands(true);

                Set<String> seen = new HashSet<>();
                int total = 0;
                KeyScanCursor<String> cursor = sync.scan(ScanArgs.Builder.matches("lp:*").limit(100));
                while (true) {
                    seen.addAll(cursor.getKeys());
                    total += cursor.getKeys().size();
                    if (cursor.isFinished()) {
                        break;
                    }
                    cursor = sync.scan(ScanCursor.of(cursor.getCursor()), ScanArgs.Builder.matches("lp:*").limit(100));
                }
                assertEquals(5000, seen.size());
                assertEquals(5000, total, "a key was returned twice");
            } finally {
                client.shutdown();
            }
        }
    }

    @Test
    void requirePass(@TempDir Path dir) {
        ServerOptions options = ServerOptions.defaults().withRequirePass("s3cret");
        try (TestNode node = new TestNode(dir, StoreConfig.builder().build(), options)) {
            try (Jedis j = node.client()) {
                JedisDataException e = assertThrows(JedisDataException.class, () -> j.get("k"));
                assertTrue(e.getMessage().startsWith("NOAUTH"), e.getMessage());
                e = assertThrows(JedisDataException.class, () -> j.auth("wrong"));
                assertTrue(e.getMessage().startsWith("WRONGPASS"), e.getMessage());
                e = assertThrows(JedisDataException.class, () -> j.set("k", "v"));
                assertTrue(e.getMessage().startsWith("NOAUTH"), e.getMessage());
                assertEquals("OK", j.auth("s3cret"));
                assertEquals("OK", j.set("k", "v"));
                assertEquals("v", j.get("k"));
            }
            RedisClient client = RedisClient.create(RedisURI.builder().withHost("127.0.0.1").withPort(node.port())
                    .withPassword("s3cret".toCharArray()).build());
            try (StatefulRedisConnection<String, String> conn = client.connect()) {
                assertEquals("v", conn.sync().get("k"));
            } finally {
                client.shutdown();
            }
        }
    }
}
