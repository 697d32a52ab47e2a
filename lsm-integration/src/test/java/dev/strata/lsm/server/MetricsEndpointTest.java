package dev.strata.lsm.server;

import dev.strata.lsm.LsmStore;
import dev.strata.lsm.StoreConfig;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code --metrics-port}: the Prometheus endpoint scraped over HTTP, with the node's meters
 * (commands per command, connections) and the store's, which move as commands run.
 */
class MetricsEndpointTest {
    private static final HttpClient HTTP = HttpClient.newHttpClient();

    private static HttpResponse<String> get(int port, String path) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    /** The value of the first sample of {@code metric} whose labels contain {@code labels}, or -1. */
    private static double sample(String scrape, String metric, String labels) {
        Matcher m = Pattern.compile("(?m)^" + Pattern.quote(metric) + "\\{([^}]*)\\} (\\S+)$").matcher(scrape);
        while (m.find()) {
            if (m.group(1).contains(labels)) {
                return Double.parseDouble(m.group(2));
            }
        }
        Matcher plain = Pattern.compile("(?m)^" + Pattern.quote(metric) + " (\\S+)$").matcher(scrape);
        return labels.isEmpty() && plain.find() ? Double.parseDouble(plain.group(1)) : -1;
    }

    @Test
    void scrapeShowsNodeAndStoreMetersMoving(@TempDir Path dir) throws Exception {
        PrometheusMeterRegistry prometheus = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        LsmStore store = LsmStore.open(dir, RespServer.storeConfig(StoreConfig.builder().meterRegistry(prometheus).build()));
        try (RespServer server = RespServer.start(store, ServerOptions.defaults().withPort(0), prometheus);
             MetricsEndpoint endpoint = MetricsEndpoint.start(prometheus, "127.0.0.1", 0)) {
            try (Jedis j = new Jedis("127.0.0.1", server.port(), OneNodeTest.CLIENT_TIMEOUT_MILLIS)) {
                j.set("warm", "up");
                HttpResponse<String> before = get(endpoint.port(), "/metrics");
                assertEquals(200, before.statusCode());
                assertTrue(before.headers().firstValue("Content-Type").orElse("").startsWith("text/plain"));
                String b = before.body();
                double setsBefore = sample(b, "strata_server_commands_seconds_count", "command=\"set\"");
                double writesBefore = sample(b, "strata_write_seconds_count", "");
                assertTrue(setsBefore >= 1, b);
                assertTrue(writesBefore >= 1, b);
                assertEquals(1.0, sample(b, "strata_server_connections", ""), b);
                for (int i = 0; i < 50; i++) {
                    j.set("k" + i, "v");
                }
                j.hset("h", "f", "v");
                String a = get(endpoint.port(), "/metrics").body();
                assertEquals(setsBefore + 50, sample(a, "strata_server_commands_seconds_count", "command=\"set\""), a);
                assertEquals(1.0, sample(a, "strata_server_commands_seconds_count", "command=\"hset\""), a);
                assertTrue(sample(a, "strata_write_seconds_count", "") >= writesBefore + 51, a);
                assertTrue(sample(a, "strata_memtable_bytes", "") > 0, a);
                assertTrue(sample(a, "strata_server_connections_accepted_total", "") >= 1, a);
                j.get("k1");
                assertTrue(sample(get(endpoint.port(), "/metrics").body(), "strata_gets_total", "") >= 1);
            }
            assertEquals(404, get(endpoint.port(), "/other").statusCode());
            HttpResponse<String> post = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + endpoint.port()
                    + "/metrics")).POST(HttpRequest.BodyPublishers.ofString("x")).build(), HttpResponse.BodyHandlers.ofString());
            assertEquals(405, post.statusCode());
        }
    }
}
