package dev.strata.lsm.server;

import dev.strata.lsm.StoreConfig;
import io.netty.handler.ssl.util.SelfSignedCertificate;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisConnectionException;

import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocketFactory;
import javax.net.ssl.TrustManagerFactory;
import java.io.ByteArrayOutputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * TLS ({@code --tls-cert}, {@code --tls-key}, {@code --tls-ca-cert}) with certificates made
 * by the test (Netty's {@link SelfSignedCertificate}): Jedis over TLS, client certificates
 * required by a CA, a plain client refused, {@code redis-cli --tls} where it is installed,
 * and the start-up checks of the options.
 */
class TlsTest {
    private static SelfSignedCertificate serverCert;
    private static SelfSignedCertificate clientCert;

    /**
     * EC P-256 keys: generating the two RSA-2048 pairs Netty makes by default was most of the
     * class's time (seconds on a test JVM that runs C1 only), and the handshakes are cheaper
     * too; the node takes any PKCS#8 key (NodeTls), so nothing under test is RSA-specific.
     */
    @BeforeAll
    static void certificates() throws Exception {
        serverCert = new SelfSignedCertificate("localhost", "EC", 256);
        clientCert = new SelfSignedCertificate("strata-test-client", "EC", 256);
    }

    @AfterAll
    static void delete() {
        serverCert.delete();
        clientCert.delete();
    }

    /** A client socket factory trusting the server's certificate, presenting {@code own} when not null. */
    private static SSLSocketFactory clientFactory(SelfSignedCertificate own) throws Exception {
        KeyStore trust = KeyStore.getInstance("PKCS12");
        trust.load(null, null);
        trust.setCertificateEntry("node", serverCert.cert());
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(trust);
        KeyManagerFactory kmf = null;
        if (own != null) {
            KeyStore keys = KeyStore.getInstance("PKCS12");
            keys.load(null, null);
            char[] pass = "test".toCharArray();
            keys.setKeyEntry("client", own.key(), pass, new Certificate[] {own.cert()});
            kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            kmf.init(keys, pass);
        }
        SSLContext ctx = SSLContext.getInstance("TLS");
        ctx.init(kmf == null ? null : kmf.getKeyManagers(), tmf.getTrustManagers(), null);
        return ctx.getSocketFactory();
    }

    private static Jedis tlsClient(int port, SelfSignedCertificate own) throws Exception {
        return new Jedis(new HostAndPort("localhost", port), DefaultJedisClientConfig.builder()
                .ssl(true).sslSocketFactory(clientFactory(own)).timeoutMillis(5000).build());
    }

    private static TestNode tlsNode(Path dir, Path clientCa) {
        return new TestNode(dir, StoreConfig.builder().build(), ServerOptions.defaults(),
                NodeTls.serverContext(serverCert.certificate().toPath(), serverCert.privateKey().toPath(), clientCa));
    }

    @Test
    void jedisOverTls(@TempDir Path dir) throws Exception {
        try (TestNode node = tlsNode(dir, null)) {
            try (Jedis j = tlsClient(node.port(), null)) {
                assertEquals("PONG", j.ping());
                assertEquals("OK", j.set("k", "v"));
                assertEquals("v", j.get("k"));
                assertEquals(1, j.hset("h", Map.of("f", "1")));
                assertEquals(Map.of("f", "1"), j.hgetAll("h"));
                // A pipeline of 2,000 commands through one TLS connection.
                var p = j.pipelined();
                List<redis.clients.jedis.Response<String>> got = new ArrayList<>();
                for (int i = 0; i < 1000; i++) {
                    p.set("p" + i, "v" + i);
                    got.add(p.get("p" + i));
                }
                p.sync();
                for (int i = 0; i < 1000; i++) {
                    assertEquals("v" + i, got.get(i).get());
                }
            }
            // A client speaking plain RESP gets no answer: its bytes are not a TLS handshake.
            assertThrows(JedisConnectionException.class, () -> {
                try (Jedis plain = new Jedis("127.0.0.1", node.port(), 2000)) {
                    plain.ping();
                }
            });
        }
    }

    @Test
    void clientCertificatesRequiredWithACa(@TempDir Path dir) throws Exception {
        try (TestNode node = tlsNode(dir, clientCert.certificate().toPath())) {
            try (Jedis j = tlsClient(node.port(), clientCert)) {
                assertEquals("PONG", j.ping());
                assertEquals("OK", j.set("k", "v"));
            }
            // Without a certificate, or with one the CA did not sign, the handshake fails.
            for (SelfSignedCertificate wrong : java.util.Arrays.asList(null, serverCert)) {
                assertThrows(JedisConnectionException.class, () -> {
                    try (Jedis j = tlsClient(node.port(), wrong)) {
                        j.ping();
                    }
                });
            }
            // The node still serves a client with the right certificate afterwards.
            try (Jedis j = tlsClient(node.port(), clientCert)) {
                assertEquals("v", j.get("k"));
            }
        }
    }

    @Test
    void redisCliOverTls(@TempDir Path dir) throws Exception {
        assumeTrue(redisCli() != null, "redis-cli is not installed");
        try (TestNode node = tlsNode(dir, clientCert.certificate().toPath())) {
            List<String> base = List.of(redisCli(), "--tls", "--cacert", serverCert.certificate().toString(),
                    "--cert", clientCert.certificate().toString(), "--key", clientCert.privateKey().toString(),
                    "-h", "localhost", "-p", Integer.toString(node.port()));
            assertEquals("OK", run(base, "SET", "cli", "over tls"));
            assertEquals("over tls", run(base, "GET", "cli"));
            assertEquals("1", run(base, "HSET", "clih", "f", "v"));
            assertEquals("hash", run(base, "TYPE", "clih"));
            // Without its certificate redis-cli is refused.
            List<String> noCert = List.of(redisCli(), "--tls", "--cacert", serverCert.certificate().toString(),
                    "-h", "localhost", "-p", Integer.toString(node.port()));
            assertFalse(run(noCert, "PING").equals("PONG"));
        }
    }

    private static String redisCli() {
        for (String d : System.getenv().getOrDefault("PATH", "").split(java.io.File.pathSeparator)) {
            Path p = Path.of(d, "redis-cli");
            if (Files.isExecutable(p)) {
                return p.toString();
            }
        }
        return null;
    }

    private static String run(List<String> base, String... args) throws Exception {
        List<String> cmd = new ArrayList<>(base);
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        p.getOutputStream().close();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        p.getInputStream().transferTo(out);
        assertTrue(p.waitFor(30, TimeUnit.SECONDS));
        return out.toString(StandardCharsets.UTF_8).trim();
    }

    @Test
    void optionsAreCheckedBeforeTheStoreOpens(@TempDir Path dir) throws Exception {
        Path cert = serverCert.certificate().toPath();
        Path key = serverCert.privateKey().toPath();
        Path missing = dir.resolve("missing.pem");
        Path garbage = Files.writeString(dir.resolve("garbage.pem"), "not a certificate\n");
        assertStartRefused(dir, "--tls-cert needs --tls-key", "--tls-cert", cert.toString());
        assertStartRefused(dir, "--tls-key needs --tls-cert", "--tls-key", key.toString());
        assertStartRefused(dir, "--tls-ca-cert needs --tls-cert and --tls-key", "--tls-ca-cert", cert.toString());
        assertStartRefused(dir, "--tls-cert " + missing + ": no such file",
                "--tls-cert", missing.toString(), "--tls-key", key.toString());
        assertStartRefused(dir, "--tls-ca-cert " + missing + ": no such file",
                "--tls-cert", cert.toString(), "--tls-key", key.toString(), "--tls-ca-cert", missing.toString());
        assertStartRefused(dir, "--tls-key " + garbage, "--tls-cert", cert.toString(), "--tls-key", garbage.toString());
        assertStartRefused(dir, "--tls-cert " + dir + ": not a file", "--tls-cert", dir.toString(), "--tls-key", key.toString());
        assertStartRefused(dir, "--metrics-port 70000 is out of range", "--metrics-port", "70000");
        Path unreadable = Files.writeString(dir.resolve("unreadable.pem"), Files.readString(key));
        if (unreadable.toFile().setReadable(false, false) && !Files.isReadable(unreadable)) {
            // (root reads any file: checked only where the permission holds)
            assertStartRefused(dir, "--tls-key " + unreadable + ": not readable",
                    "--tls-cert", cert.toString(), "--tls-key", unreadable.toString());
        }
    }

    private static void assertStartRefused(Path dir, String message, String... options) {
        Path store = dir.resolve("store");
        List<String> args = new ArrayList<>(List.of("--dir", store.toString(), "--port", "0"));
        args.addAll(List.of(options));
        StringWriter err = new StringWriter();
        picocli.CommandLine cl = StrataServer.commandLine();
        cl.setErr(new PrintWriter(err));
        assertEquals(2, cl.execute(args.toArray(new String[0])), err.toString());
        assertTrue(err.toString().contains(message), err.toString());
        assertFalse(Files.exists(store), "the store was created although the options were refused");
    }
}
