package dev.strata.lsm.server;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * A node whose file-descriptor limit is below {@code --max-clients}: it lowers the limit at
 * start and says so, refuses the connections over it, keeps accepting after more clients
 * than descriptors have tried, and stops cleanly on SIGTERM. Before, 1,100 idle connections
 * against a limit of 1,024 exhausted the descriptors, the first log record could not load
 * the time-zone file, and the acceptor thread died: no new connection was ever answered.
 */
class DescriptorLimitTest {
    private static final int FD_LIMIT = 512;
    private static final Pattern READY = Pattern.compile("listening on 127\\.0\\.0\\.1:(\\d+)");
    private static final Pattern MAX_CLIENTS = Pattern.compile("max clients (\\d+)");

    @Test
    void moreClientsThanDescriptorsAreRefusedAndTheNodeKeepsAccepting(@TempDir Path dir) throws Exception {
        assumeTrue(Files.isExecutable(Path.of("/bin/bash")), "needs bash for ulimit");
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Path log = dir.resolve("node.log");
        ProcessBuilder pb = new ProcessBuilder("/bin/bash", "-c", "ulimit -n " + FD_LIMIT + " && exec \"$0\" \"$@\"",
                java, "-Xmx256m", "-XX:+UseSerialGC", "-XX:-UsePerfData",
                "-cp", System.getProperty("java.class.path"), StrataServer.class.getName(),
                "--dir", dir.resolve("data").toString(), "--port", "0", "--command-threads", "4", "--warm-up-seconds", "0");
        pb.redirectErrorStream(true);
        pb.redirectOutput(log.toFile());
        Process node = pb.start();
        List<Socket> held = new ArrayList<>();
        try {
            Matcher ready = awaitReady(node, log);
            int port = Integer.parseInt(ready.group(1));
            // More connections than the node has descriptors: every one is answered, with PONG or,
            // over the limit, with a refusal. (Before, the acceptor died when descriptors ran out.)
            int refused = 0;
            for (int i = 0; i < FD_LIMIT + 100; i++) {
                Socket s = new Socket("127.0.0.1", port);
                s.setSoTimeout(10_000);
                held.add(s);
                String reply;
                try {
                    reply = roundTrip(s);
                } catch (java.net.SocketTimeoutException e) {
                    throw new AssertionError("connection " + i + " was never answered: " + Files.readString(log));
                }
                if (reply.startsWith("-ERR max number of clients reached")) {
                    refused++;
                } else {
                    assertEquals("+PONG", reply, "connection " + i);
                }
            }
            Matcher m = MAX_CLIENTS.matcher(Files.readString(log));
            assertTrue(m.find(), "the ready line does not state max clients: " + Files.readString(log));
            int maxClients = Integer.parseInt(m.group(1));
            assertTrue(maxClients > 0 && maxClients < FD_LIMIT, "max clients not lowered: " + maxClients);
            assertTrue(Files.readString(log).contains("--max-clients 10000 lowered to " + maxClients),
                    Files.readString(log));
            assertEquals(FD_LIMIT + 100 - maxClients, refused, "refused connections");
            for (Socket s : held) {
                s.close();
            }
            held.clear();
            // The node still accepts and answers new connections once the old ones are gone.
            boolean answered = false;
            for (int attempt = 0; attempt < 200 && !answered; attempt++) {
                try (Socket s = new Socket("127.0.0.1", port)) {
                    s.setSoTimeout(30_000);
                    String reply = roundTrip(s);
                    answered = reply.equals("+PONG");
                    if (!answered) {
                        // Closed connections not yet seen by the node still hold their slots.
                        assertTrue(reply.startsWith("-ERR max number of clients reached"), reply);
                        Thread.sleep(50);
                    }
                }
            }
            assertTrue(answered, "no new connection was answered");
            node.destroy();
            assertTrue(node.waitFor(60, TimeUnit.SECONDS), "node did not stop on SIGTERM");
            String output = Files.readString(log);
            assertFalse(output.contains("Exception") || output.contains("Error"), output);
        } finally {
            for (Socket s : held) {
                s.close();
            }
            node.destroyForcibly();
            node.waitFor(30, TimeUnit.SECONDS);
        }
    }

    /** Sends a PING and reads the reply line (an error reply may come before the PING is read). */
    private static String roundTrip(Socket s) throws IOException {
        try {
            s.getOutputStream().write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
            s.getOutputStream().flush();
        } catch (IOException e) {
            // Refused and closed already: the reply is waiting to be read.
        }
        InputStream in = s.getInputStream();
        StringBuilder line = new StringBuilder();
        int c;
        while ((c = in.read()) >= 0 && c != '\n') {
            if (c != '\r') {
                line.append((char) c);
            }
        }
        return line.toString();
    }

    private static Matcher awaitReady(Process node, Path log) throws Exception {
        for (int i = 0; i < 1200; i++) {
            String out = Files.exists(log) ? Files.readString(log) : "";
            Matcher m = READY.matcher(out);
            if (m.find()) {
                return m;
            }
            assertTrue(node.isAlive(), "node exited: " + out);
            Thread.sleep(50);
        }
        throw new AssertionError("node not ready within 60 s: " + Files.readString(log));
    }
}
