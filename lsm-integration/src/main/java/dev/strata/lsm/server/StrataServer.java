package dev.strata.lsm.server;

import dev.strata.lsm.LsmStore;
import dev.strata.lsm.StoreConfig;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.composite.CompositeMeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;

/**
 * {@code strata-server}: a Strata store in {@code --dir} served to Redis clients. Prints one
 * line starting {@value #READY} when it accepts connections; SIGTERM (or SIGINT) closes the
 * connections and then the store cleanly.
 */
@Command(name = "strata-server", mixinStandardHelpOptions = true, versionProvider = StrataServer.Version.class,
        description = "Serves a Strata store over the Redis protocol (RESP2).")
public final class StrataServer implements Callable<Integer> {
    /** The start of the line printed once the node accepts connections. */
    public static final String READY = "strata-server ready";
    /** The most seconds of the warm-up the node runs before it accepts clients, unless told otherwise. */
    static final int DEFAULT_WARM_UP_SECONDS = 20;

    @Option(names = "--dir", required = true, description = "the store's directory (created if missing)")
    Path dir;

    @Option(names = "--port", defaultValue = "6380", description = "TCP port (0 picks a free one); default ${DEFAULT-VALUE}")
    int port;

    @Option(names = "--bind", defaultValue = ServerOptions.DEFAULT_BIND, description = "address to listen on; default ${DEFAULT-VALUE}")
    String bind;

    @Option(names = "--config", description = "the store's XML configuration (WAL mode, merge policy, ...); default async WAL")
    Path config;

    @Option(names = "--requirepass", description = "password clients must AUTH with")
    String requirePass;

    @Option(names = "--max-clients", defaultValue = "" + ServerOptions.DEFAULT_MAX_CLIENTS,
            description = "connections served at once; default ${DEFAULT-VALUE}")
    int maxClients;

    @Option(names = "--max-bulk-bytes", defaultValue = "" + ServerOptions.DEFAULT_MAX_BULK_BYTES,
            description = "largest key or value in a command; default ${DEFAULT-VALUE}")
    int maxBulkBytes;

    @Option(names = "--max-array-length", defaultValue = "" + ServerOptions.DEFAULT_MAX_ARRAY_LENGTH,
            description = "most arguments in one command; default ${DEFAULT-VALUE}")
    int maxArrayLength;

    @Option(names = "--max-inline-bytes", defaultValue = "" + ServerOptions.DEFAULT_MAX_INLINE_BYTES,
            description = "longest inline command; default ${DEFAULT-VALUE}")
    int maxInlineBytes;

    @Option(names = "--max-command-bytes", defaultValue = "" + ServerOptions.DEFAULT_MAX_COMMAND_BYTES,
            description = "most bytes of arguments in one command; default ${DEFAULT-VALUE}")
    long maxCommandBytes;

    @Option(names = "--command-threads", defaultValue = "" + ServerOptions.DEFAULT_COMMAND_THREADS,
            description = "threads running commands; default ${DEFAULT-VALUE}")
    int commandThreads;

    @Option(names = "--tls-cert", paramLabel = "FILE",
            description = "serve TLS with this PEM certificate (chain); needs --tls-key")
    Path tlsCert;

    @Option(names = "--tls-key", paramLabel = "FILE", description = "the PEM private key (PKCS#8) of --tls-cert")
    Path tlsKey;

    @Option(names = "--tls-ca-cert", paramLabel = "FILE",
            description = "require client certificates signed by this PEM CA certificate")
    Path tlsCaCert;

    @Option(names = "--warm-up-seconds", paramLabel = "S", defaultValue = "" + DEFAULT_WARM_UP_SECONDS,
            description = "before accepting clients, send SET, GET and INCR requests through the node's own request "
                    + "path and threads to a scratch store beside --dir (deleted after) until the JIT has compiled "
                    + "what they make hot, for at most about S seconds, so the first clients meet compiled code; "
                    + "0 skips it; default ${DEFAULT-VALUE}")
    int warmUpSeconds;

    @Option(names = "--metrics-port", paramLabel = "N",
            description = "serve Prometheus metrics at http://BIND:N/metrics (0 picks a free port); default none")
    Integer metricsPort;

    public static void main(String[] args) {
        int rc = commandLine().execute(args);
        if (rc != 0) {
            System.exit(rc);
        }
        // rc 0: the node was stopped by a signal; the JVM is already exiting through the shutdown hook.
    }

    /** The command line: an error while starting is printed as one line and exits with 2. */
    static CommandLine commandLine() {
        CommandLine cl = new CommandLine(new StrataServer());
        cl.setExecutionExceptionHandler((ex, line, parsed) -> {
            line.getErr().println("strata-server: " + ex.getMessage());
            line.getErr().flush();
            return 2;
        });
        return cl;
    }

    @Override
    public Integer call() {
        ServerOptions options = new ServerOptions(bind, port, requirePass, maxClients, maxBulkBytes, maxArrayLength,
                maxInlineBytes, maxCommandBytes, commandThreads);
        if (metricsPort != null && (metricsPort < 0 || metricsPort > 65535)) {
            throw new IllegalArgumentException("--metrics-port " + metricsPort + " is out of range (0 to 65535)");
        }
        // Checked before the store opens: a bad TLS option changes nothing.
        io.netty.handler.ssl.SslContext tls = NodeTls.serverContext(tlsCert, tlsKey, tlsCaCert);
        StoreConfig user = config == null ? StoreConfig.builder().build() : StoreConfig.fromXml(config);
        PrometheusMeterRegistry prometheus = metricsPort == null ? null : new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        MeterRegistry registry = prometheus != null ? prometheus : new SimpleMeterRegistry();
        if (user.meterRegistry() == null) {
            user = user.toBuilder().meterRegistry(registry).build();
        } else if (prometheus != null) {
            // The configuration's registry keeps its meters; the endpoint sees them too.
            CompositeMeterRegistry both = new CompositeMeterRegistry();
            both.add(user.meterRegistry());
            both.add(prometheus);
            user = user.toBuilder().meterRegistry(both).build();
        }
        if (warmUpSeconds < 0 || warmUpSeconds > NodeWarmUp.MAX_SECONDS) {
            throw new IllegalArgumentException("--warm-up-seconds must be from 0 (no warm-up) to " + NodeWarmUp.MAX_SECONDS
                    + ", was " + warmUpSeconds);
        }
        StoreConfig nodeConfig = RespServer.storeConfig(user);
        // One set of threads for the warm-up's server and the node's: see NodeThreads.
        NodeThreads threads = new NodeThreads(options.commandThreads());
        try {
            return serve(options, tls, user, nodeConfig, prometheus, threads);
        } finally {
            threads.close();
        }
    }

    private Integer serve(ServerOptions options, io.netty.handler.ssl.SslContext tls, StoreConfig user,
                          StoreConfig nodeConfig, PrometheusMeterRegistry prometheus, NodeThreads threads) {
        // The node's store first: a store that cannot be opened (locked by another node, damaged)
        // fails the start before any time goes into warming up.
        LsmStore store = LsmStore.open(dir, nodeConfig);
        NodeWarmUp.Result warmUp = null;
        if (warmUpSeconds > 0) {
            System.out.println("strata-server: warming up for at most " + warmUpSeconds
                    + " s before accepting clients (--warm-up-seconds 0 skips it)");
            System.out.flush();
            // Meters of the same kind as the node's, thrown away with the scratch store.
            MeterRegistry scratch = prometheus != null ? new PrometheusMeterRegistry(PrometheusConfig.DEFAULT)
                    : new SimpleMeterRegistry();
            try {
                warmUp = NodeWarmUp.run(dir, nodeConfig, options, scratch, threads,
                        java.time.Duration.ofSeconds(warmUpSeconds));
            } catch (RuntimeException e) {
                // The node serves as well without it, only slower at first: said, not fatal.
                System.out.println("strata-server: warm-up failed, starting without it: " + e);
            }
        }
        RespServer server;
        MetricsEndpoint endpoint = null;
        try {
            server = RespServer.start(store, options, user.meterRegistry(), tls, threads);
        } catch (RuntimeException e) {
            store.close();
            throw e;
        }
        if (prometheus != null) {
            try {
                endpoint = MetricsEndpoint.start(prometheus, bind, metricsPort);
            } catch (RuntimeException e) {
                server.close();
                throw e;
            }
        }
        MetricsEndpoint metrics = endpoint;
        if (server.maxClients() < maxClients) {
            System.out.println("strata-server: --max-clients " + maxClients + " lowered to " + server.maxClients()
                    + ": the file descriptor limit is " + DescriptorBudget.processLimit()
                    + " and the store and the JVM need some (raise it with ulimit -n)");
        }
        CountDownLatch stopped = new CountDownLatch(1);
        Thread hook = new Thread(() -> {
            if (metrics != null) {
                metrics.close();
            }
            server.close();
            threads.close();
            stopped.countDown();
        }, "strata-server-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        System.out.println(READY + ": listening on " + server.address().getAddress().getHostAddress() + ":"
                + server.port() + " (dir " + store.directory() + ", merge policy " + store.config().mergePolicy()
                + ", WAL " + store.config().walMode().name().toLowerCase(java.util.Locale.ROOT)
                + ", max clients " + server.maxClients() + ", " + RespServer.transport() + " transport"
                + (requirePass != null ? ", password required" : "")
                + (tls != null ? ", TLS" + (tlsCaCert != null ? " with client certificates" : "") : "")
                + (metrics != null ? ", metrics on http://" + bind + ":" + metrics.port() + "/metrics" : "")
                + (warmUp != null ? ", " + warmUp.describe() : "")
                + ")");
        System.out.flush();
        try {
            stopped.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return 0;
    }

    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            return new String[] {"strata-server " + ServerInfo.version()};
        }
    }
}
