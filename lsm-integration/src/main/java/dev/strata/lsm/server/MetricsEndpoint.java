package dev.strata.lsm.server;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * The node's Prometheus endpoint ({@code --metrics-port}): {@code GET /metrics} answers with
 * the scrape of a {@link PrometheusMeterRegistry} in Prometheus' text format (0.0.4), which
 * holds the store's meters and the node's when both were given that registry. Any other path
 * is 404, any other method 405. Served by the JDK's HTTP server on one thread of its own, so
 * a slow scraper never holds up a command. Thread safe; {@link #close()} stops it.
 */
public final class MetricsEndpoint implements AutoCloseable {
    static final String CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

    private final HttpServer http;
    private final ExecutorService thread;

    private MetricsEndpoint(HttpServer http, ExecutorService thread) {
        this.http = http;
        this.thread = thread;
    }

    /**
     * Serves {@code registry} at {@code http://bind:port/metrics} ({@code port} 0 picks a free one).
     *
     * @throws UncheckedIOException if the address cannot be bound
     */
    public static MetricsEndpoint start(PrometheusMeterRegistry registry, String bind, int port) {
        HttpServer http;
        try {
            http = HttpServer.create(new InetSocketAddress(bind, port), 16);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot serve metrics on " + bind + ":" + port + ": " + e.getMessage(), e);
        }
        ExecutorService thread = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "strata-server-metrics");
            t.setDaemon(true);
            return t;
        });
        http.setExecutor(thread);
        http.createContext("/", exchange -> {
            try (exchange) {
                answer(exchange, registry);
            }
        });
        http.start();
        return new MetricsEndpoint(http, thread);
    }

    private static void answer(HttpExchange exchange, PrometheusMeterRegistry registry) throws IOException {
        String path = exchange.getRequestURI().getPath();
        if (!path.equals("/metrics")) {
            send(exchange, 404, "not found: the node serves /metrics only\n");
            return;
        }
        if (!exchange.getRequestMethod().equals("GET") && !exchange.getRequestMethod().equals("HEAD")) {
            exchange.getResponseHeaders().set("Allow", "GET, HEAD");
            send(exchange, 405, "method not allowed\n");
            return;
        }
        exchange.getResponseHeaders().set("Content-Type", CONTENT_TYPE);
        byte[] body = registry.scrape().getBytes(StandardCharsets.UTF_8);
        if (exchange.getRequestMethod().equals("HEAD")) {
            exchange.sendResponseHeaders(200, -1);
            return;
        }
        exchange.sendResponseHeaders(200, body.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(body);
        }
    }

    private static void send(HttpExchange exchange, int status, String text) throws IOException {
        byte[] body = text.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", "text/plain; charset=utf-8");
        exchange.sendResponseHeaders(status, body.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(body);
        }
    }

    /** The port it listens on. */
    public int port() {
        return http.getAddress().getPort();
    }

    @Override
    public void close() {
        http.stop(0);
        thread.shutdownNow();
    }
}
