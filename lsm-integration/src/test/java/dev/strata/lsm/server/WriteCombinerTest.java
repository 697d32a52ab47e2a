package dev.strata.lsm.server;

import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Plain writes of every connection go to the node's one writer ({@link WriteCombiner}), which
 * applies those of several connections as one write batch; everything else runs on the
 * connection's command thread. These check what a client sees: increments from many
 * connections are neither lost nor doubled, each connection reads its own writes, and one
 * connection's commands run in the order sent while its batches move between the two threads.
 */
class WriteCombinerTest extends OneNodeTest {
    @Test
    void concurrentClientsWritesAreCombinedWithoutLosingAnIncrementOrAnOwnWrite() throws Exception {
        int clients = 12;
        int rounds = 400;
        ExecutorService pool = Executors.newFixedThreadPool(clients);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int c = 0; c < clients; c++) {
                int client = c;
                done.add(pool.submit(() -> {
                    try (Jedis j = client()) {
                        for (int i = 0; i < rounds; i++) {
                            String own = "wc:own:" + client;
                            j.set(own, "v" + i);
                            // The next command goes to the command thread: it must see the write.
                            assertEquals("v" + i, j.get(own));
                            j.incr("wc:shared");
                            j.incrBy("wc:by:" + (i % 3), 2);
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get();
            }
        } finally {
            pool.shutdownNow();
        }
        try (Jedis j = client()) {
            assertEquals(Integer.toString(clients * rounds), j.get("wc:shared"));
            long byTotal = 0;
            for (int k = 0; k < 3; k++) {
                byTotal += Long.parseLong(j.get("wc:by:" + k));
            }
            assertEquals(2L * clients * rounds, byTotal);
            for (int c = 0; c < clients; c++) {
                assertEquals("v" + (rounds - 1), j.get("wc:own:" + c));
            }
        }
    }

    @Test
    void oneConnectionsCommandsRunInOrderAcrossTheWriterAndItsCommandThread() throws IOException {
        StringBuilder expected = new StringBuilder();
        try (Socket s = new Socket("127.0.0.1", node.port())) {
            s.setSoTimeout(CLIENT_TIMEOUT_MILLIS);
            OutputStream out = s.getOutputStream();
            for (int round = 0; round < 40; round++) {
                // Plain writes alone (the writer's), then reads and a hash write (the command
                // thread's), sent without waiting for replies, each in its own socket write.
                StringBuilder writes = new StringBuilder();
                for (int k = 0; k < 50; k++) {
                    writes.append(cmd("SET", "wo:" + k, round + ":" + k));
                    expected.append("+OK\r\n");
                }
                writes.append(cmd("INCR", "wo:n"));
                expected.append(':').append(round + 1).append("\r\n");
                out.write(writes.toString().getBytes(StandardCharsets.UTF_8));
                out.flush();
                String reads = cmd("GET", "wo:" + (round % 50)) + cmd("GET", "wo:n")
                        + cmd("HSET", "wo:h", "f", Integer.toString(round));
                String value = round + ":" + (round % 50);
                expected.append('$').append(value.length()).append("\r\n").append(value).append("\r\n");
                String n = Integer.toString(round + 1);
                expected.append('$').append(n.length()).append("\r\n").append(n).append("\r\n");
                expected.append(round == 0 ? ":1\r\n" : ":0\r\n");
                out.write(reads.getBytes(StandardCharsets.UTF_8));
                out.flush();
            }
            // After QUIT nothing more runs, though the SET behind it is a plain write.
            out.write((cmd("QUIT") + cmd("SET", "wo:after-quit", "x")).getBytes(StandardCharsets.UTF_8));
            out.flush();
            expected.append("+OK\r\n");
            InputStream in = s.getInputStream();
            ByteArrayOutputStream got = new ByteArrayOutputStream();
            in.transferTo(got);
            assertEquals(expected.toString(), got.toString(StandardCharsets.UTF_8));
        }
        try (Jedis j = client()) {
            assertEquals(null, j.get("wo:after-quit"));
            assertEquals("39", j.hget("wo:h", "f"));
        }
    }

    @Test
    void repliesTheEventLoopAnswersFromMemoryStayAheadOfLaterCommands() throws IOException {
        try (Jedis j = client()) {
            j.set("wm:a", "one");
        }
        try (Socket s = new Socket("127.0.0.1", node.port())) {
            s.setSoTimeout(CLIENT_TIMEOUT_MILLIS);
            StringBuilder pipeline = new StringBuilder();
            StringBuilder expected = new StringBuilder();
            for (int i = 0; i < 200; i++) {
                // The first GET of each round is answered on the event loop (the key is in the
                // memtable and nothing is out); the SET and the GET behind it go to the threads.
                String before = i == 0 ? "one" : "v" + (i - 1);
                String after = "v" + i;
                pipeline.append(cmd("GET", "wm:a")).append(cmd("SET", "wm:a", after)).append(cmd("GET", "wm:a"));
                expected.append('$').append(before.length()).append("\r\n").append(before).append("\r\n")
                        .append("+OK\r\n")
                        .append('$').append(after.length()).append("\r\n").append(after).append("\r\n");
                if (i % 20 == 19) {
                    s.getOutputStream().write(pipeline.toString().getBytes(StandardCharsets.UTF_8));
                    s.getOutputStream().flush();
                    pipeline.setLength(0);
                }
            }
            s.shutdownOutput();
            ByteArrayOutputStream got = new ByteArrayOutputStream();
            s.getInputStream().transferTo(got);
            assertEquals(expected.toString(), got.toString(StandardCharsets.UTF_8));
        }
    }

    private static String cmd(String... args) {
        StringBuilder sb = new StringBuilder("*").append(args.length).append("\r\n");
        for (String a : args) {
            sb.append('$').append(a.getBytes(StandardCharsets.UTF_8).length).append("\r\n").append(a).append("\r\n");
        }
        return sb.toString();
    }
}
