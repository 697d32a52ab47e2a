package dev.strata.lsm.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import dev.strata.lsm.ConfigException;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A configuration document can make the reader open nothing outside itself. A local HTTP
 * server counts requests, so "nothing was fetched" is observed, not assumed.
 */
class XmlConfigSecurityTest {
    @TempDir
    Path dir;

    private HttpServer server;
    private final AtomicInteger requests = new AtomicInteger();

    @BeforeEach
    void startServer() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/", exchange -> {
            requests.incrementAndGet();
            byte[] body = "<!ENTITY leak \"fetched\">".getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(200, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        server.start();
    }

    @AfterEach
    void stopServer() {
        server.stop(0);
    }

    private String url(String path) {
        return "http://127.0.0.1:" + server.getAddress().getPort() + path;
    }

    @Test
    void externalEntityOnALocalFileIsRejectedWithoutReadingIt() throws IOException {
        Path secret = dir.resolve("secret.txt");
        Files.writeString(secret, "12345");
        String xml = "<!DOCTYPE store [<!ENTITY xxe SYSTEM \"" + secret.toUri() + "\">]>\n"
                + "<store>\n  <background threads=\"&xxe;\"/>\n</store>\n";
        ConfigException e = assertThrows(ConfigException.class, () -> XmlConfigTest.read(xml));
        assertTrue(e.getMessage().startsWith("test.xml:1:10: "), e.getMessage());
        assertTrue(e.getMessage().contains("DOCTYPE"), e.getMessage());
        assertFalse(e.getMessage().contains("12345"), e.getMessage());
    }

    @Test
    void externalDtdIsRejectedWithoutFetchingIt() {
        String xml = "<!DOCTYPE store SYSTEM \"" + url("/store.dtd") + "\">\n<store/>\n";
        ConfigException e = assertThrows(ConfigException.class, () -> XmlConfigTest.read(xml));
        assertTrue(e.getMessage().startsWith("test.xml:1:10: "), e.getMessage());
        assertTrue(e.getMessage().contains("DOCTYPE"), e.getMessage());
        assertEquals(0, requests.get());
    }

    @Test
    void internalEntityExpansionIsRejected() {
        String xml = """
                <?xml version="1.0"?>
                <!DOCTYPE store [
                  <!ENTITY a "1111111111">
                  <!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">
                  <!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;">
                ]>
                <store><manifest rewriteBytes="&c;"/></store>
                """;
        ConfigException e = assertThrows(ConfigException.class, () -> XmlConfigTest.read(xml));
        assertTrue(e.getMessage().startsWith("test.xml:2:10: "), e.getMessage());
        assertTrue(e.getMessage().contains("DOCTYPE"), e.getMessage());
    }

    @Test
    void schemaLocationHintIsIgnored() {
        // The hint names a schema that would allow anything; the shipped schema still applies.
        String xml = "<store xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\"\n"
                + "       xsi:noNamespaceSchemaLocation=\"" + url("/any.xsd") + "\">\n"
                + "  <background threads=\"3\"/>\n</store>\n";
        assertEquals(3, XmlConfigTest.read(xml).backgroundThreads());
        assertEquals(0, requests.get());
    }

    @Test
    void xincludeIsNotProcessed() {
        String xml = "<store xmlns:xi=\"http://www.w3.org/2001/XInclude\">\n"
                + "  <xi:include href=\"" + url("/more.xml") + "\"/>\n</store>\n";
        ConfigException e = assertThrows(ConfigException.class, () -> XmlConfigTest.read(xml));
        assertTrue(e.getMessage().startsWith("test.xml:2:"), e.getMessage());
        assertTrue(e.getMessage().contains("include"), e.getMessage());
        assertEquals(0, requests.get());
    }
}
