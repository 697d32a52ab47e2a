package dev.strata.lsm.server;

import dev.strata.lsm.LsmStore;
import io.micrometer.core.instrument.MeterRegistry;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.handler.ssl.SslContext;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.redis.ErrorRedisMessage;
import io.netty.handler.codec.redis.RedisEncoder;
import io.netty.util.concurrent.GlobalEventExecutor;

import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A storage node: an {@link LsmStore} served over the Redis protocol (RESP2) with Netty.
 * One event loop group accepts and decodes; commands run on a separate group of command
 * threads (a connection's commands stay on one, in order), since store calls block.
 * {@link #close()} stops accepting, closes every connection and then the store.
 */
public final class RespServer implements AutoCloseable {
    private final LsmStore store;
    private final ServerOptions options;
    private final ServerMetrics metrics;
    private final RespCommands commands;
    private final ServerInfo info;
    /** TLS for every connection, or null for plain TCP. */
    private final SslContext tls;
    /** The acceptor, event loops, command threads and writer this server runs on. */
    private final NodeThreads threads;
    /** Whether {@link #threads} are this server's own, stopped when it closes (else they outlive it). */
    private final boolean ownThreads;
    /** Applies the plain writes of every connection as shared write batches. */
    private final WriteCombiner writer;
    /** Runs {@link HashSweeper#tick} (one daemon thread). */
    private final java.util.concurrent.ScheduledExecutorService sweeperThread =
            java.util.concurrent.Executors.newSingleThreadScheduledExecutor(r -> {
                Thread t = new Thread(r, "strata-server-hash-sweeper");
                t.setDaemon(true);
                return t;
            });
    private final ChannelGroup clients = new DefaultChannelGroup(GlobalEventExecutor.INSTANCE);
    private final AtomicLong nextClientId = new AtomicLong();
    private Channel serverChannel;
    private volatile boolean closed;

    private RespServer(LsmStore store, ServerOptions options, MeterRegistry registry, SslContext tls,
                       NodeThreads threads) {
        this.store = store;
        this.ownThreads = threads == null;
        this.threads = threads != null ? threads : new NodeThreads(options.commandThreads());
        this.tls = tls;
        this.options = options;
        this.metrics = new ServerMetrics(registry);
        this.info = new ServerInfo(store, metrics, options);
        // Expiry times are the store's clock (StoreConfig.clock(), the system clock unless set),
        // the one the store's ValueExpiry is asked at, so a test can move time for both.
        java.time.InstantSource clock = store.config().clock();
        this.commands = new RespCommands(store, info, options.requirePass(), clock::millis);
        this.writer = new WriteCombiner(commands, metrics, this.threads.writer);
        HashSweeper sweeper = commands.hashSweeper();
        io.micrometer.core.instrument.FunctionCounter.builder("strata.server.hash.fields.reclaimed", sweeper,
                HashSweeper::deletedTotal).description("fields of deleted hashes removed by the sweeper").register(registry);
    }

    /**
     * Serves {@code store} as {@code options} say. The store must have been opened with
     * {@link #storeConfig} applied (for expiry in merges); the server closes it on {@link #close()}.
     *
     * @throws java.io.UncheckedIOException if the address cannot be bound (nothing is left running)
     */
    public static RespServer start(LsmStore store, ServerOptions options, MeterRegistry registry) {
        return start(store, options, registry, null);
    }

    /**
     * Serves {@code store} as {@link #start(LsmStore, ServerOptions, MeterRegistry)} does, over
     * TLS when {@code tls} is not null (see {@link NodeTls#serverContext}): every connection
     * starts with a handshake, and nothing is read from it before.
     */
    public static RespServer start(LsmStore store, ServerOptions options, MeterRegistry registry, SslContext tls) {
        return start(store, options, registry, tls, null);
    }

    /**
     * Serves {@code store} as {@link #start(LsmStore, ServerOptions, MeterRegistry, SslContext)}
     * does, on {@code threads} when not null: they are not stopped when this server closes (its
     * connections are, and the store), and may serve another server after it.
     */
    static RespServer start(LsmStore store, ServerOptions options, MeterRegistry registry, SslContext tls,
                            NodeThreads threads) {
        loadLogging();
        NodeKeys.checkFormat(store);
        int fit = DescriptorBudget.maxClients(options.maxClients(), DescriptorBudget.processLimit(),
                DescriptorBudget.openNow(), DescriptorBudget.filesIn(store.directory()));
        if (fit < 1) {
            throw new IllegalStateException("the file descriptor limit (" + DescriptorBudget.processLimit()
                    + ") leaves no room for connections beside the store's files; raise it (ulimit -n)");
        }
        RespServer s = new RespServer(store, options.withMaxClients(fit), registry, tls, threads);
        try {
            s.bind();
            s.sweeperThread.scheduleWithFixedDelay(s::sweepTick, HashSweeper.TICK_MILLIS, HashSweeper.TICK_MILLIS,
                    TimeUnit.MILLISECONDS);
            return s;
        } catch (RuntimeException e) {
            s.shutdownThreads();
            throw e;
        }
    }

    /**
     * Loads what the first log record needs while descriptors are plentiful: JUL's formatter
     * reads the JDK's time-zone data from a file, and a node out of descriptors (when the
     * first warning is logged) could not open it; the failure would kill the logging thread.
     */
    private static void loadLogging() {
        java.util.TimeZone.getDefault();
        new java.util.logging.SimpleFormatter().format(
                new java.util.logging.LogRecord(java.util.logging.Level.INFO, "strata-server"));
        io.netty.util.internal.logging.InternalLoggerFactory.getInstance(RespServer.class);
    }

    /** The connections served at once: the configured number, lowered to fit the descriptor limit. */
    public int maxClients() {
        return options.maxClients();
    }

    /**
     * Merge operands in a row a hot counter may have in the memtable before an INCR is written
     * as its value ({@link dev.strata.lsm.StoreConfig#maxSuccessiveMerges()}), unless the
     * user's configuration sets a bound: each INCR reads the counter, combining up to this
     * many operands. Chosen by measurement (docs/benchmarks.md, "INCR: read-modify-write
     * against a merge operand").
     */
    static final int MAX_SUCCESSIVE_MERGES = 16;

    /**
     * The store configuration the node needs on top of the user's: values expire in merges,
     * the store's value limit has room for the node's value header, so that the user's
     * {@code maxValueBytes} is what a client may send (at most {@code 2^30 - 9} bytes), and
     * INCR's operands are combined by {@link NodeIncrOperator}, with a successive-merge bound
     * ({@link #MAX_SUCCESSIVE_MERGES} unless the user sets one).
     *
     * @throws dev.strata.lsm.ConfigException if the user's configuration names another merge operator
     */
    public static dev.strata.lsm.StoreConfig storeConfig(dev.strata.lsm.StoreConfig user) {
        if (user.mergeOperator() != null && !user.mergeOperator().equals(NodeIncrOperator.NAME)) {
            throw new dev.strata.lsm.ConfigException("the node's store combines INCR operands with merge operator "
                    + NodeIncrOperator.NAME + ", not " + user.mergeOperator() + ": leave <mergeOperator> out (or name "
                    + NodeIncrOperator.NAME + ")", "mergeOperator", null);
        }
        return user.toBuilder().valueExpiry(StoredValue.EXPIRY)
                .maxValueBytes(StoredValue.storeLimit(user.maxValueBytes()))
                .mergeOperator(NodeIncrOperator.NAME)
                .maxSuccessiveMerges(user.maxSuccessiveMerges() > 0 ? user.maxSuccessiveMerges() : MAX_SUCCESSIVE_MERGES)
                .build();
    }

    /** The network transport the node serves with: {@code epoll} or {@code nio}. */
    static String transport() {
        return NodeThreads.EPOLL ? "epoll" : "nio";
    }

    private void bind() {
        ServerBootstrap b = new ServerBootstrap()
                .group(threads.boss, threads.workers)
                .channel(NodeThreads.EPOLL ? io.netty.channel.epoll.EpollServerSocketChannel.class : NioServerSocketChannel.class)
                .option(ChannelOption.SO_BACKLOG, 1024)
                .option(ChannelOption.SO_REUSEADDR, true)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childOption(ChannelOption.SO_KEEPALIVE, true)
                // A client's FIN ends its input only: the commands it sent before are still
                // answered (CommandHandler closes the connection once they are).
                .childOption(ChannelOption.ALLOW_HALF_CLOSURE, true)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        initConnection(ch);
                    }
                });
        try {
            serverChannel = b.bind(new InetSocketAddress(options.bind(), options.port())).syncUninterruptibly().channel();
        } catch (Exception e) {
            throw new java.io.UncheckedIOException("cannot listen on " + options.bind() + ":" + options.port() + ": "
                    + e.getMessage(), e instanceof java.io.IOException io ? io : new java.io.IOException(e));
        }
        info.port(port());
    }

    private void initConnection(SocketChannel ch) {
        metrics.accepted.increment();
        long open = metrics.connections.incrementAndGet();
        ch.closeFuture().addListener(f -> metrics.connections.decrementAndGet());
        if (tls != null) {
            ch.pipeline().addLast("tls", tls.newHandler(ch.alloc()));
        }
        if (open > options.maxClients()) {
            metrics.refused.increment();
            ch.pipeline().addLast(new RedisEncoder());
            ch.writeAndFlush(new ErrorRedisMessage("ERR max number of clients reached"))
                    .addListener(ChannelFutureListener.CLOSE);
            return;
        }
        clients.add(ch);
        Session session = new Session(nextClientId.incrementAndGet(), String.valueOf(ch.remoteAddress()),
                commands.openAccess());
        ch.pipeline()
                .addLast("decoder", new RespDecoder(options))
                .addLast("commands", new CommandHandler(commands, metrics, session, threads.commandThreads.next(), writer));
    }

    private void sweepTick() {
        try {
            commands.hashSweeper().tick();
        } catch (RuntimeException e) {
            // A closing store ends the sweep; anything else is reported and the sweep goes on next tick.
            if (!closed) {
                java.util.logging.Logger.getLogger(RespServer.class.getName())
                        .warning("hash field sweep failed: " + e);
            }
        }
    }

    /** Deletes every hash field no live hash owns, at once (the sweeper does it paced); returns how many. */
    long sweepHashGarbage() {
        return commands.hashSweeper().sweepAll();
    }

    /** The port the node listens on. */
    public int port() {
        return ((InetSocketAddress) serverChannel.localAddress()).getPort();
    }

    /** The address the node listens on. */
    public InetSocketAddress address() {
        return (InetSocketAddress) serverChannel.localAddress();
    }

    public LsmStore store() {
        return store;
    }

    /** Stops accepting, closes every connection (replies in flight are flushed), then closes the store. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            if (serverChannel != null) {
                serverChannel.close().syncUninterruptibly();
            }
            clients.close().awaitUninterruptibly(10, TimeUnit.SECONDS);
        } finally {
            shutdownThreads();
            store.close();
        }
    }

    private void shutdownThreads() {
        // No interrupt: a thread interrupted in file I/O would close the store's channel.
        sweeperThread.shutdown();
        try {
            sweeperThread.awaitTermination(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (ownThreads) {
            threads.close();
        } else {
            // Commands already running finish before the store closes; the threads go on.
            threads.awaitQueued();
        }
    }
}
