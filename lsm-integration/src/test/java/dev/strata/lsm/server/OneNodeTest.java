package dev.strata.lsm.server;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;

import java.nio.file.Path;

/** A test class whose tests share one node with the default options, on a fresh store. */
abstract class OneNodeTest {
    @TempDir
    static Path dir;
    static TestNode node;

    @BeforeAll
    static void start() {
        node = new TestNode(dir);
    }

    @AfterAll
    static void stop() {
        node.close();
    }

    /**
     * A client with a 30 s socket timeout: Jedis's default, 2 s, is shorter than a reply to a
     * long pipeline (JedisCommandsTest.pipelining sends 40,000 commands) can take on a loaded
     * machine, and a test here checks what the replies say, not how soon they come.
     */
    static Jedis client() {
        return new Jedis("127.0.0.1", node.port(), CLIENT_TIMEOUT_MILLIS);
    }

    static final int CLIENT_TIMEOUT_MILLIS = 30_000;
}
