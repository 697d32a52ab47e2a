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

    static Jedis client() {
        return new Jedis("127.0.0.1", node.port());
    }
}
