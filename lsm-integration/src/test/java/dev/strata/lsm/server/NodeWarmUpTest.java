package dev.strata.lsm.server;

import dev.strata.lsm.LsmStore;
import dev.strata.lsm.StoreConfig;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The node's warm-up: what it sends, what it leaves behind, and the threads it hands on. */
class NodeWarmUpTest {

    @Test
    void oneRoundOnTheNodesThreadsLeavesNoFilesAndTheThreadsServeTheNodeAfter(@TempDir Path parent) throws Exception {
        Path dir = parent.resolve("data");
        // A scratch directory a killed node left (its process, beyond any pid_max, is not running).
        Path abandoned = Files.createDirectories(parent.resolve(".data.warm-up-999999999-123"));
        Files.writeString(abandoned.resolve("000001.log"), "left by a killed node");
        StoreConfig config = RespServer.storeConfig(StoreConfig.builder().build());
        try (NodeThreads threads = new NodeThreads(4)) {
            // The shortest budget still runs one whole round (of 10,000 requests here, to be quick).
            int round = 10_000;
            NodeWarmUp.Result r = NodeWarmUp.run(dir, config, ServerOptions.defaults(), new SimpleMeterRegistry(),
                    threads, Duration.ofMillis(1), round);
            assertEquals(1, r.rounds());
            assertFalse(r.quiet() && r.rounds() > 1);
            // Every phase: each connection's share plus its three handshake commands, all answered.
            long expected = 0;
            int weights = NodeWarmUp.PHASES.stream().mapToInt(NodeWarmUp.Phase::weight).sum();
            for (NodeWarmUp.Phase p : NodeWarmUp.PHASES) {
                long n = Math.max(p.pipeline(),
                        (long) round / NodeWarmUp.CONNECTIONS * p.weight() / weights);
                expected += NodeWarmUp.CONNECTIONS * (n + 3);
            }
            assertEquals(expected, r.requests());
            assertTrue(r.describe().startsWith("warmed up with " + expected + " requests in "), r.describe());
            // Nothing left beside the node's directory, which the warm-up never made.
            try (Stream<Path> left = Files.list(parent)) {
                assertEquals(List.of(), left.toList());
            }

            // The same threads serve the node's own store, which holds none of the warm-up's keys.
            try (RespServer node = RespServer.start(LsmStore.open(dir, config), ServerOptions.defaults().withPort(0),
                    new SimpleMeterRegistry(), null, threads);
                 Jedis jedis = new Jedis("127.0.0.1", node.port())) {
                assertNull(jedis.get("key:000000000001"));
                assertEquals(0, jedis.dbSize());
                assertEquals("OK", jedis.set("a", "1"));
                assertEquals(2, jedis.incr("a"));
            }
            // Closing that server left its threads running: a third server on them works.
            try (RespServer again = RespServer.start(LsmStore.open(dir, config), ServerOptions.defaults().withPort(0),
                    new SimpleMeterRegistry(), null, threads);
                 Jedis jedis = new Jedis("127.0.0.1", again.port())) {
                assertEquals("2", jedis.get("a"));
            }
        }
    }

    @Test
    void aMaxClientsBelowTheWarmUpsConnectionsDoesNotStopIt(@TempDir Path parent) throws Exception {
        StoreConfig config = RespServer.storeConfig(StoreConfig.builder().build());
        try (NodeThreads threads = new NodeThreads(2)) {
            NodeWarmUp.Result r = NodeWarmUp.run(parent.resolve("data"), config,
                    ServerOptions.defaults().withMaxClients(NodeWarmUp.CONNECTIONS / 4), new SimpleMeterRegistry(),
                    threads, Duration.ofMillis(1), 2_000);
            assertEquals(1, r.rounds());
            assertTrue(r.requests() >= 2_000, r.describe());
        }
    }

    @Test
    void warmUpSecondsOutOfRangeIsRefusedBeforeAnythingIsMade(@TempDir Path dir) throws Exception {
        for (String bad : List.of("-1", "601")) {
            Path store = dir.resolve("store");
            StringWriter err = new StringWriter();
            picocli.CommandLine cl = StrataServer.commandLine();
            cl.setErr(new PrintWriter(err));
            assertEquals(2, cl.execute("--dir", store.toString(), "--port", "0", "--warm-up-seconds", bad), err.toString());
            assertTrue(err.toString().contains("--warm-up-seconds must be from 0 (no warm-up) to 600, was " + bad),
                    err.toString());
            assertFalse(Files.exists(store));
            try (Stream<Path> left = Files.list(dir)) {
                assertEquals(List.of(), left.toList());
            }
        }
    }
}
