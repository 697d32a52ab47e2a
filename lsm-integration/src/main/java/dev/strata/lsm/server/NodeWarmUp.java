package dev.strata.lsm.server;

import dev.strata.lsm.LsmStore;
import dev.strata.lsm.StoreConfig;
import dev.strata.lsm.io.ScratchDirectories;
import io.micrometer.core.instrument.MeterRegistry;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Runs the node's own request path before it accepts clients, so that its first clients meet
 * compiled code rather than the JIT's interpreter and profiling tiers. A fresh JVM spends its
 * first few hundred thousand requests compiling: on two CPUs the C2 compiler took more CPU per
 * request than the node's own threads (docs/benchmarks.md, "Node throughput", sessions 17 to
 * 22, and "Node warm-up", session 23).
 *
 * <p>The warm-up serves a <em>scratch</em> store — a new directory beside the node's
 * ({@code .NAME.warm-up-PID-*}, {@link ScratchDirectories}: one a killed node left is deleted
 * by the next), opened with the node's own store configuration — through a {@link RespServer}
 * on a free loopback port and on the node's own {@link NodeThreads}: the same Netty pipeline,
 * decoder, command handler, write combiner, store code and threads the node then serves with.
 * It sends the commands clients send most, in rounds of {@link #PHASES}: {@code SET},
 * {@code GET} and {@code INCR}, unpipelined and in pipelines of {@value #PIPELINE}, from
 * {@value #CONNECTIONS} connections at a time, every connection new in each phase and starting
 * as clients do (a PING, redis-benchmark's CONFIG GETs), with a flush every
 * {@value #ROUNDS_PER_FLUSH} rounds so GETs read tables and the block cache as well as
 * memtables. It stops after a round in which the JIT compiled for less than
 * {@value #QUIET_PERCENT}% of the round's time (what the traffic makes hot is compiled), or once
 * its time budget is spent. Then it closes that server (not the threads) and deletes the
 * directory. The node's own store (opened first, so that a store which cannot be opened
 * fails the start at once) is never touched by it. The client is the JDK's blocking sockets, so no client code shares the
 * server's Netty profile.
 *
 * <p>Not thread-safe; {@link #run} is called once, before the node starts.
 */
final class NodeWarmUp {
    /** Connections the warm-up sends from at once, each on its own thread. */
    static final int CONNECTIONS = 20;
    /** Commands in each pipelined round trip of the warm-up. */
    static final int PIPELINE = 16;
    /** Distinct keys the warm-up writes and reads (and counters it increments). */
    static final int KEYS = 100_000;
    /** Bytes of each value the warm-up sets (redis-benchmark's {@code -d 100}). */
    static final int VALUE_BYTES = 100;
    /** Requests of one round (all phases, all connections). */
    static final int ROUND_REQUESTS = 100_000;
    /** The store is flushed after every this many rounds. */
    static final int ROUNDS_PER_FLUSH = 4;
    /** A round in which the JIT compiled for less than this share of its time ends the warm-up. */
    static final int QUIET_PERCENT = 10;
    /** The most seconds {@code --warm-up-seconds} may give. */
    static final int MAX_SECONDS = 600;

    /** One phase of a round: every connection sends {@code command}s in round trips of {@code pipeline}. */
    record Phase(String command, int pipeline, int weight) {
    }

    /** The phases of one round, each with its share (weight) of the round's requests. */
    static final List<Phase> PHASES = List.of(new Phase("SET", 1, 6), new Phase("GET", 1, 6),
            new Phase("INCR", 1, 2), new Phase("SET", PIPELINE, 20), new Phase("GET", PIPELINE, 20),
            new Phase("INCR", PIPELINE, 4));

    /**
     * What a warm-up did.
     *
     * @param requests requests sent (and answered)
     * @param rounds rounds run
     * @param nanos time taken, the scratch store's opening and deletion included
     * @param quiet whether it ended because the JIT had become quiet (else its time was up)
     */
    record Result(long requests, int rounds, long nanos, boolean quiet) {
        /** The seconds it took, to one decimal. */
        String seconds() {
            return String.format(java.util.Locale.ROOT, "%.1f", nanos / 1e9);
        }

        /** One phrase for the node's ready line. */
        String describe() {
            return "warmed up with " + requests + " requests in " + seconds() + " s ("
                    + (quiet ? "JIT quiet" : "time limit") + ")";
        }
    }

    private NodeWarmUp() {
    }

    /**
     * Warms the node up against a scratch store beside {@code storeDir}, configured as
     * {@code nodeConfig} (the configuration the node's store is opened with,
     * {@link RespServer#storeConfig} applied), served on {@code threads}, for at most about
     * {@code budget} (at least one round), then deletes the scratch store.
     *
     * @param storeDir the node's store directory (its parent must exist or be creatable)
     * @param nodeConfig the node's store configuration
     * @param options the node's options (limits; the warm-up listens on a free loopback port
     *     without a password and without TLS)
     * @param registry where the scratch server's meters go (a registry of the kind the node's are in, thrown away after)
     * @param threads the threads the node will serve with (they serve the scratch store first and stay up)
     * @param budget the time after which no new phase starts
     * @return what it did
     * @throws UncheckedIOException if the scratch directory cannot be made, or a connection fails
     * @throws IllegalStateException if the scratch server answers a command wrongly
     */
    static Result run(Path storeDir, StoreConfig nodeConfig, ServerOptions options, MeterRegistry registry,
                      NodeThreads threads, java.time.Duration budget) {
        return run(storeDir, nodeConfig, options, registry, threads, budget, ROUND_REQUESTS);
    }

    /** {@link #run(Path, StoreConfig, ServerOptions, MeterRegistry, NodeThreads, java.time.Duration)} with rounds of {@code roundRequests}. */
    static Result run(Path storeDir, StoreConfig nodeConfig, ServerOptions options, MeterRegistry registry,
                      NodeThreads threads, java.time.Duration budget, int roundRequests) {
        long start = System.nanoTime();
        long deadline = start + budget.toNanos();
        Path absolute = storeDir.toAbsolutePath();
        Path scratch;
        try {
            Files.createDirectories(absolute.getParent());
            scratch = ScratchDirectories.create(absolute.getParent(), absolute.getFileName().toString(), "warm-up");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot make the warm-up's scratch directory beside " + absolute, e);
        }
        AtomicLong sent = new AtomicLong();
        Rounds rounds;
        try {
            LsmStore store = LsmStore.open(scratch, nodeConfig.toBuilder().meterRegistry(registry).build());
            RespServer server;
            try {
                // Room for the warm-up's connections even under a small --max-clients.
                ServerOptions scratchOptions = options.withBind("127.0.0.1").withPort(0).withRequirePass(null)
                        .withMaxClients(Math.max(options.maxClients(), 2 * CONNECTIONS));
                server = RespServer.start(store, scratchOptions, registry, null, threads);
            } catch (RuntimeException e) {
                store.close();
                throw e;
            }
            try {
                rounds = drive(server, deadline, roundRequests, sent);
            } finally {
                server.close();
            }
        } finally {
            try {
                ScratchDirectories.delete(scratch);
            } catch (IOException e) {
                // The next warm-up deletes it once this process is gone.
                System.err.println("strata-server: warm-up's scratch directory " + scratch + " not deleted: " + e);
            }
        }
        return new Result(sent.get(), rounds.run(), System.nanoTime() - start, rounds.quiet());
    }

    /**
     * Sends rounds of {@link #PHASES} until a round leaves the JIT quiet or the deadline passes
     * (checked before each phase; the first round always runs whole). All connections are in
     * the same phase at a time, as clients of one kind load a node; each phase connects anew, as
     * clients come and go, so accepting, connecting and closing are in the profile too.
     * Returns the rounds run whole and whether the JIT became quiet.
     */
    private static Rounds drive(RespServer server, long deadline, int roundRequests, AtomicLong sent) {
        InetSocketAddress address = new InetSocketAddress("127.0.0.1", server.port());
        long perConnection = roundRequests / CONNECTIONS;
        int weights = PHASES.stream().mapToInt(Phase::weight).sum();
        java.lang.management.CompilationMXBean jit = java.lang.management.ManagementFactory.getCompilationMXBean();
        boolean timed = jit != null && jit.isCompilationTimeMonitoringSupported();
        for (int round = 0; ; round++) {
            long jitBefore = timed ? jit.getTotalCompilationTime() : 0;
            long roundStart = System.nanoTime();
            for (Phase phase : PHASES) {
                if (round > 0 && System.nanoTime() >= deadline) {
                    return new Rounds(round, false);
                }
                long n = Math.max(phase.pipeline(), perConnection * phase.weight() / weights);
                int seed = round * PHASES.size() + PHASES.indexOf(phase);
                runAll(address, seed, c -> c.phase(phase.command(), n, phase.pipeline()), sent);
            }
            long wallMillis = (System.nanoTime() - roundStart) / 1_000_000;
            if (timed && (jit.getTotalCompilationTime() - jitBefore) * 100 < wallMillis * QUIET_PERCENT) {
                return new Rounds(round + 1, true);
            }
            if (System.nanoTime() >= deadline) {
                return new Rounds(round + 1, false);
            }
            if (round % ROUNDS_PER_FLUSH == ROUNDS_PER_FLUSH - 1) {
                server.store().flush();
            }
        }
    }

    /** How {@link #drive} ended: the rounds run whole, and whether the JIT was quiet after the last. */
    private record Rounds(int run, boolean quiet) {
    }

    /** Work a connection does in a phase; returns the requests it sent. */
    private interface ClientWork {
        long run(Client c) throws IOException;
    }

    /** Runs {@code work} on {@link #CONNECTIONS} new connections at once, each on its own thread. */
    private static void runAll(InetSocketAddress address, int seed, ClientWork work, AtomicLong sent) {
        List<Thread> threads = new ArrayList<>();
        List<Throwable> failures = java.util.Collections.synchronizedList(new ArrayList<>());
        for (int i = 0; i < CONNECTIONS; i++) {
            int id = seed * CONNECTIONS + i;
            Thread t = new Thread(() -> {
                try (Client c = new Client(address, id)) {
                    sent.addAndGet(c.handshake() + work.run(c));
                } catch (IOException | RuntimeException e) {
                    failures.add(e);
                }
            }, "strata-server-warm-up-client");
            threads.add(t);
            t.start();
        }
        for (Thread t : threads) {
            try {
                t.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while warming up", e);
            }
        }
        if (!failures.isEmpty()) {
            Throwable f = failures.get(0);
            if (f instanceof IOException io) {
                throw new UncheckedIOException("warm-up connection failed: " + io.getMessage(), io);
            }
            throw (RuntimeException) f;
        }
    }

    /** What clients commonly send first: a PING, and redis-benchmark's CONFIG GETs. */
    private static final byte[] HANDSHAKE = ("*1\r\n$4\r\nPING\r\n"
            + "*3\r\n$6\r\nCONFIG\r\n$3\r\nGET\r\n$4\r\nsave\r\n"
            + "*3\r\n$6\r\nCONFIG\r\n$3\r\nGET\r\n$10\r\nappendonly\r\n").getBytes(StandardCharsets.US_ASCII);
    private static final byte[] SET = "*3\r\n$3\r\nSET\r\n".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] GET = "*2\r\n$3\r\nGET\r\n".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] INCR = "*2\r\n$4\r\nINCR\r\n".getBytes(StandardCharsets.US_ASCII);
    /** The warm-up's keys: {@code key:} and twelve digits, as redis-benchmark's. */
    private static final byte[] KEY_PREFIX = "key:".getBytes(StandardCharsets.US_ASCII);
    /** The warm-up's counters: {@code counter:} and twelve digits. */
    private static final byte[] COUNTER_PREFIX = "counter:".getBytes(StandardCharsets.US_ASCII);
    private static final int KEY_DIGITS = 12;

    /** One connection of the warm-up's client: blocking, one request buffer and one reply buffer. */
    private static final class Client implements AutoCloseable {
        private final SocketChannel channel;
        private final SplittableRandom random;
        private final ByteBuffer out = ByteBuffer.allocate(64 << 10);
        private final ByteBuffer in = ByteBuffer.allocate(256 << 10);
        private final byte[] value = new byte[VALUE_BYTES];

        Client(InetSocketAddress address, int id) {
            try {
                channel = SocketChannel.open(address);
                channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
            } catch (IOException e) {
                throw new UncheckedIOException("warm-up cannot connect to its scratch server at " + address, e);
            }
            random = new SplittableRandom(id);
            random.nextBytes(value);
            // Printable, as redis-benchmark's: the value's bytes do not matter to the path.
            for (int i = 0; i < value.length; i++) {
                value[i] = (byte) ('a' + (value[i] & 0x0f));
            }
        }

        /** Sends {@link #HANDSHAKE} and reads its three replies; returns 3. */
        long handshake() throws IOException {
            out.clear();
            out.put(HANDSHAKE);
            out.flip();
            while (out.hasRemaining()) {
                channel.write(out);
            }
            awaitReplies("handshake", 3);
            return 3;
        }

        /**
         * Sends {@code n} {@code command}s on random keys in round trips of {@code pipeline},
         * reading each round trip's replies before the next; returns {@code n}.
         */
        long phase(String command, long n, int pipeline) throws IOException {
            long done = 0;
            while (done < n) {
                int batch = (int) Math.min(pipeline, n - done);
                out.clear();
                for (int i = 0; i < batch; i++) {
                    request(command);
                }
                out.flip();
                while (out.hasRemaining()) {
                    channel.write(out);
                }
                awaitReplies(command, batch);
                done += batch;
            }
            return done;
        }

        private void request(String command) {
            int k = random.nextInt(KEYS);
            switch (command) {
                case "SET" -> {
                    out.put(SET);
                    key(KEY_PREFIX, k);
                    bulk(value);
                }
                case "GET" -> {
                    out.put(GET);
                    key(KEY_PREFIX, k);
                }
                case "INCR" -> {
                    out.put(INCR);
                    key(COUNTER_PREFIX, k);
                }
                default -> throw new IllegalArgumentException(command);
            }
        }

        /** Puts the bulk string of the key {@code prefix} and {@code k} in {@value #KEY_DIGITS} digits. */
        private void key(byte[] prefix, int k) {
            length(prefix.length + KEY_DIGITS);
            out.put(prefix);
            int at = out.position();
            for (int i = KEY_DIGITS - 1, n = k; i >= 0; i--, n /= 10) {
                out.put(at + i, (byte) ('0' + n % 10));
            }
            out.position(at + KEY_DIGITS);
            out.put((byte) '\r').put((byte) '\n');
        }

        private void bulk(byte[] b) {
            length(b.length);
            out.put(b);
            out.put((byte) '\r').put((byte) '\n');
        }

        /** Puts a bulk string's header, {@code $LENGTH} and CRLF. */
        private void length(int length) {
            out.put((byte) '$');
            int digits = out.position();
            for (int n = length; n > 0 || out.position() == digits; n /= 10) {
                out.put((byte) ('0' + n % 10));
            }
            // The length's digits were put least significant first: reverse them.
            for (int i = digits, j = out.position() - 1; i < j; i++, j--) {
                byte t = out.get(i);
                out.put(i, out.get(j));
                out.put(j, t);
            }
            out.put((byte) '\r').put((byte) '\n');
        }

        /** Reads until {@code count} replies are complete; each must be one {@code command} gives. */
        private void awaitReplies(String command, int count) throws IOException {
            in.clear();
            int parsed = 0;
            int at = 0;
            while (parsed < count) {
                int end = replyEnd(at);
                if (end < 0) {
                    if (!in.hasRemaining()) {
                        throw new IllegalStateException("warm-up: a reply to " + command + " longer than the buffer");
                    }
                    if (channel.read(in) < 0) {
                        throw new IOException("the warm-up's scratch server closed the connection");
                    }
                    continue;
                }
                check(command, in.get(at));
                at = end;
                parsed++;
            }
            if (at != in.position()) {
                throw new IllegalStateException("warm-up: more replies than " + command + " commands sent");
            }
        }

        /** The end of the reply starting at {@code at} in {@code in}'s bytes read so far, or -1 if incomplete. */
        private int replyEnd(int at) {
            int limit = in.position();
            int line = lineEnd(at, limit);
            if (line < 0) {
                return -1;
            }
            byte type = in.get(at);
            if (type != '$' && type != '*') {
                return line;
            }
            int length = Integer.parseInt(new String(in.array(), at + 1, line - 2 - at - 1, StandardCharsets.US_ASCII));
            if (length < 0) {
                return line;
            }
            if (type == '*') {
                int end = line;
                for (int i = 0; i < length && end >= 0; i++) {
                    end = replyEnd(end);
                }
                return end;
            }
            int end = line + length + 2;
            return end <= limit ? end : -1;
        }

        /** The position after the CRLF ending the line at {@code at}, or -1 if it is not all read. */
        private int lineEnd(int at, int limit) {
            byte[] a = in.array();
            for (int i = at; i + 1 < limit; i++) {
                if (a[i] == '\r' && a[i + 1] == '\n') {
                    return i + 2;
                }
            }
            return -1;
        }

        private static void check(String command, byte type) {
            boolean ok = switch (command) {
                case "SET" -> type == '+';
                case "GET" -> type == '$';
                case "INCR" -> type == ':';
                case "handshake" -> type == '+' || type == '*';
                default -> false;
            };
            if (!ok) {
                throw new IllegalStateException("warm-up: " + command + " was answered with a reply of type '"
                        + (char) type + "'");
            }
        }

        @Override
        public void close() {
            try {
                channel.close();
            } catch (IOException e) {
                // Nothing was pending on it.
            }
        }
    }
}
