package dev.strata.lsm.server;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.strata.lsm.ConfigException;
import dev.strata.lsm.LsmStore;
import dev.strata.lsm.StoreConfig;
import dev.strata.lsm.testkit.ManualClock;
import io.netty.handler.codec.redis.ErrorRedisMessage;
import io.netty.handler.codec.redis.IntegerRedisMessage;
import io.netty.handler.codec.redis.RedisMessage;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Pipeline;
import redis.clients.jedis.Response;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.params.SetParams;

/**
 * INCR, INCRBY, DECR and DECRBY on a live integer write a merge operand
 * ({@link NodeIncrOperator}); on a missing or expired key a value. Every command that reads a
 * string sees the sum; the TTL follows Redis's rule; a refused increment writes nothing; a hot
 * counter's operands in a row stay within the store's successive-merge bound; reopening
 * replays the operands to the same counter.
 */
class NodeIncrMergeTest {
    @TempDir
    Path dir;
    private final ManualClock clock = new ManualClock(1_700_000_000_000L);

    private TestNode node() {
        return new TestNode(dir, StoreConfig.builder().clock(clock).build(), ServerOptions.defaults());
    }

    private static Jedis client(TestNode node) {
        return new Jedis("127.0.0.1", node.port(), OneNodeTest.CLIENT_TIMEOUT_MILLIS);
    }

    /**
     * Runs {@code increment} (of {@code key}) after a flush of the node's store, so that the
     * memtable holds only what it writes, and checks whether that was a merge operand: memory
     * cannot answer an operand whose value is in a table, and answers a value.
     *
     * @return the increment's reply
     */
    private static long increment(TestNode node, String key, Supplier<Long> increment, boolean operand) {
        node.server.store().flush();
        long reply = increment.get();
        boolean answered = node.server.store().getFromMemory(NodeKeys.stored(key.getBytes(StandardCharsets.UTF_8)))
                .answered();
        assertEquals(operand, !answered, operand ? "the increment wrote a value, not an operand"
                : "the increment wrote an operand, not a value");
        return reply;
    }

    @Test
    void incrementsOfALiveIntegerAreOperandsAndEveryReadSeesTheSum() {
        try (TestNode node = node(); Jedis j = client(node)) {
            assertEquals(1, increment(node, "c", () -> j.incr("c"), false), "a missing key starts at 0");
            assertEquals(11, increment(node, "c", () -> j.incrBy("c", 10), true));
            assertEquals(10, increment(node, "c", () -> j.decr("c"), true));
            assertEquals(7, j.decrBy("c", 3));
            // Operands on a value in a memtable are answered from memory (a GET on the event loop).
            j.set("c2", "5");
            assertEquals(6, j.incr("c2"));
            dev.strata.lsm.MemoryRead inMemory = node.server.store().getFromMemory(
                    NodeKeys.stored("c2".getBytes(StandardCharsets.UTF_8)));
            assertTrue(inMemory.answered(), "operands on a value in memory are answered from memory");
            assertEquals("6", new String(StoredValue.decode(inMemory.value(), clock.millis()).payload(),
                    StandardCharsets.US_ASCII));
            assertEquals("6", j.get("c2"));
            j.del("c2");
            // The readers of a string value.
            assertEquals("7", j.get("c"));
            assertEquals(List.of("7"), j.mget("c"));
            assertEquals(1, j.strlen("c"));
            assertEquals("string", j.type("c"));
            assertTrue(j.exists("c"));
            assertEquals(-1, j.ttl("c"));
            assertEquals(Set.of("c"), j.keys("*"));
            assertEquals(3, j.append("c", "00"));
            assertEquals("700", j.get("c"));
            assertEquals(701, j.incr("c"));
            assertEquals("701", j.setGet("c", "5"));
            assertEquals(6, j.incr("c"));
            assertEquals(1, j.expire("c", 50));
            assertEquals(7, j.incr("c"));
            assertEquals(50, j.ttl("c"));
            assertEquals(1, j.persist("c"));
            assertEquals(-1, j.ttl("c"));
            assertEquals("7", j.get("c"));
            assertEquals(8.5, j.incrByFloat("c", 1.5));
            assertEquals("8.5", j.get("c"));
            j.set("c", "6");
            assertEquals(7, j.incr("c"));
            assertEquals("OK", j.rename("c", "d"));
            assertEquals("7", j.get("d"));
            assertEquals(8, j.incr("d"));
            assertEquals(List.of("d"), j.scan("0").getResult());
            assertEquals(1, j.dbSize());
            assertEquals("8", j.getDel("d"));
            assertNull(j.get("d"));
            assertEquals(1, j.incr("d"), "a deleted counter starts at 0");
            // A pipeline goes through the writer as one batch: the operands of one key are summed.
            Pipeline p = j.pipelined();
            List<Response<Long>> replies = new ArrayList<>();
            for (int i = 0; i < 50; i++) {
                replies.add(p.incr("d"));
                replies.add(p.incrBy("e", 2));
            }
            p.sync();
            assertEquals(51, replies.get(98).get());
            assertEquals(100, replies.get(99).get());
            assertEquals("51", j.get("d"));
            assertEquals("100", j.get("e"));
        }
    }

    @Test
    void anIncrementKeepsTheTtlAndAnExpiredKeyStartsAfreshWithout() {
        try (TestNode node = node(); Jedis j = client(node)) {
            assertEquals("OK", j.set("t", "5", SetParams.setParams().ex(100)));
            assertEquals(6, increment(node, "t", () -> j.incr("t"), true));
            assertEquals(100, j.ttl("t"));
            clock.advanceMillis(40_000);
            assertEquals(10, j.incrBy("t", 4));
            assertEquals(60, j.ttl("t"));
            node.server.store().flush();
            assertEquals(11, j.incr("t"));
            assertEquals(60, j.ttl("t"), "through a flush");
            clock.advanceMillis(60_000);
            assertNull(j.get("t"), "the counter expired with its value");
            assertEquals(-2, j.ttl("t"));
            assertFalse(j.exists("t"));
            assertEquals(1, increment(node, "t", () -> j.incr("t"), false), "an expired key starts at 0, as a value");
            assertEquals(-1, j.ttl("t"), "without a TTL");
            assertEquals(2, j.incr("t"));
            assertEquals(-1, j.ttl("t"));
            // Expired base and operands merged together: still expired.
            assertEquals("OK", j.set("u", "5", SetParams.setParams().px(1_000)));
            node.server.store().flush();
            assertEquals(7, j.incrBy("u", 2));
            clock.advanceMillis(2_000);
            node.server.store().compactRange(null, null);
            assertNull(j.get("u"));
            assertEquals(1, j.incr("u"));
        }
    }

    /**
     * The operands of a value a flush or merge wrote out as a tombstone (it had expired) with
     * the operands in a newer table: their expiry time keeps the key expired.
     */
    @Test
    void operandsWhoseValueWasDroppedCarryItsExpiry() {
        NodeIncrOperator op = new NodeIncrOperator();
        long at = 1_700_000_000_000L;
        byte[] key = "k".getBytes(StandardCharsets.UTF_8);
        byte[] merged = op.fullMerge(key, null, List.of(NodeIncrOperator.operand(3, at), NodeIncrOperator.operand(4, at)));
        assertNull(StoredValue.decode(merged, at), "expired at its time");
        assertEquals("7", new String(StoredValue.decode(merged, at - 1).payload(), StandardCharsets.US_ASCII));
        byte[] partial = op.partialMerge(key, List.of(NodeIncrOperator.operand(Long.MAX_VALUE, at),
                NodeIncrOperator.operand(2, at)));
        // Wrapping sums: the node checked each running value, so the wrapped total is exact.
        byte[] base = new StoredValue("-5".getBytes(StandardCharsets.US_ASCII), StoredValue.NEVER).encode();
        byte[] total = op.fullMerge(key, base, List.of(partial, NodeIncrOperator.operand(-Long.MAX_VALUE, at)));
        assertArrayEquals(new StoredValue("-3".getBytes(StandardCharsets.US_ASCII), StoredValue.NEVER).encode(), total,
                "the value's expiry, not the operands'");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> op.checkOperand(key, new byte[8]));
        assertTrue(e.getMessage().contains(NodeIncrOperator.NAME) && e.getMessage().contains("8 bytes"), e.getMessage());
    }

    @Test
    void aRefusedIncrementWritesNothing() {
        try (TestNode node = node(); Jedis j = client(node)) {
            j.set("s", "abc");
            JedisDataException e = assertThrows(JedisDataException.class, () -> j.incr("s"));
            assertEquals("ERR value is not an integer or out of range", e.getMessage());
            assertEquals("abc", j.get("s"));
            j.set("m", Long.toString(Long.MAX_VALUE - 1));
            assertEquals(Long.MAX_VALUE, increment(node, "m", () -> j.incr("m"), true));
            long seq = node.server.store().stats().lastSequence();
            e = assertThrows(JedisDataException.class, () -> j.incr("m"));
            assertEquals("ERR increment or decrement would overflow", e.getMessage());
            e = assertThrows(JedisDataException.class, () -> j.incrBy("m", 1));
            assertEquals("ERR increment or decrement would overflow", e.getMessage());
            assertEquals(seq, node.server.store().stats().lastSequence(), "nothing written");
            assertEquals(Long.toString(Long.MAX_VALUE), j.get("m"));
            assertEquals(Long.MAX_VALUE - 5, j.decrBy("m", 5));
        }
    }

    @Test
    void aNodeConfigurationNamingAnotherOperatorIsRefused() {
        ConfigException e = assertThrows(ConfigException.class,
                () -> RespServer.storeConfig(StoreConfig.builder().mergeOperator("uint64add").build()));
        assertTrue(e.getMessage().contains(NodeIncrOperator.NAME) && e.getMessage().contains("uint64add"), e.getMessage());
        assertEquals(RespServer.MAX_SUCCESSIVE_MERGES, RespServer.storeConfig(StoreConfig.defaults()).maxSuccessiveMerges());
        assertEquals(4, RespServer.storeConfig(StoreConfig.builder().maxSuccessiveMerges(4).build()).maxSuccessiveMerges());
    }

    /**
     * 100,000 INCRs of one key, each its own store write: the memtable never holds more than
     * the bound of operands in a row (each run of bound + 1 writes in a memtable ends in one
     * written as the value), so every INCR's read combines at most that many; the counter is
     * right, and again after a reopen.
     */
    @Test
    void aHotCounterKeepsItsOperandsInARowWithinTheBound() {
        int bound = RespServer.MAX_SUCCESSIVE_MERGES;
        int incrs = 100_000;
        byte[] key = "hot".getBytes(StandardCharsets.UTF_8);
        StoreConfig config = RespServer.storeConfig(StoreConfig.builder().clock(clock).build());
        try (LsmStore store = LsmStore.open(dir, config)) {
            NodeKeys.checkFormat(store);
            RespCommands commands = new RespCommands(store, null, null, clock::millis);
            Session session = new Session(1, "test", true);
            for (int i = 1; i <= incrs; i++) {
                RedisMessage reply = commands.execute(session, List.of("INCR".getBytes(StandardCharsets.US_ASCII), key));
                assertInstanceOf(IntegerRedisMessage.class, reply, () -> ((ErrorRedisMessage) reply).content());
                assertEquals(i, ((IntegerRedisMessage) reply).value());
            }
            // The first INCR wrote a value; each memtable's run of writes to the key starts at its
            // first operand, and every (bound + 1)-th of a run is written as the value.
            long operands = incrs - 1;
            long memtables = store.stats().flushCount() + 1;
            long collapsed = store.stats().mergesCollapsed();
            assertTrue(collapsed >= operands / (bound + 1) - memtables, "merges written as values: " + collapsed
                    + " of " + operands + " in " + memtables + " memtables");
            assertTrue(collapsed <= operands / (bound + 1), "merges written as values: " + collapsed);
        }
        try (LsmStore store = LsmStore.open(dir, config)) {
            NodeKeys.checkFormat(store);
            RespCommands commands = new RespCommands(store, null, null, clock::millis);
            RedisMessage reply = commands.execute(new Session(1, "test", true),
                    List.of("INCR".getBytes(StandardCharsets.US_ASCII), key));
            assertEquals(incrs + 1, ((IntegerRedisMessage) reply).value(), "after a reopen");
        }
    }
}
