package dev.strata.lsm.server;

import dev.strata.lsm.LsmStore;
import dev.strata.lsm.StoreConfig;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;

import java.nio.file.Path;

/** A node on a free port of 127.0.0.1 over a store in a test directory. */
final class TestNode implements AutoCloseable {
    final RespServer server;
    final SimpleMeterRegistry registry = new SimpleMeterRegistry();

    TestNode(Path dir, StoreConfig config, ServerOptions options) {
        this(dir, config, options, null);
    }

    /** A node serving TLS with {@code tls} (null: plain TCP). */
    TestNode(Path dir, StoreConfig config, ServerOptions options, io.netty.handler.ssl.SslContext tls) {
        LsmStore store = LsmStore.open(dir, RespServer.storeConfig(config));
        server = RespServer.start(store, options.withPort(0), registry, tls);
    }

    TestNode(Path dir) {
        this(dir, StoreConfig.builder().build(), ServerOptions.defaults());
    }

    int port() {
        return server.port();
    }

    /**
     * A client of this node whose replies may take {@link OneNodeTest#CLIENT_TIMEOUT_MILLIS}:
     * Jedis's default of 2 s failed a 50,000-command pipeline on a loaded CI machine, and these
     * tests check what the replies say, not how soon they come (a node that never answers still
     * fails them).
     */
    redis.clients.jedis.Jedis client() {
        return new redis.clients.jedis.Jedis("127.0.0.1", port(), OneNodeTest.CLIENT_TIMEOUT_MILLIS);
    }

    @Override
    public void close() {
        server.close();
    }
}
