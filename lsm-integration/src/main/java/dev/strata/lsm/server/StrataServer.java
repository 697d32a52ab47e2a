package dev.strata.lsm.server;

import dev.strata.lsm.LsmStore;
import dev.strata.lsm.StoreConfig;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
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

    public static void main(String[] args) {
        CommandLine cl = new CommandLine(new StrataServer());
        cl.setExecutionExceptionHandler((ex, line, parsed) -> {
            System.err.println("strata-server: " + ex.getMessage());
            return 2;
        });
        int rc = cl.execute(args);
        if (rc != 0) {
            System.exit(rc);
        }
        // rc 0: the node was stopped by a signal; the JVM is already exiting through the shutdown hook.
    }

    @Override
    public Integer call() {
        ServerOptions options = new ServerOptions(bind, port, requirePass, maxClients, maxBulkBytes, maxArrayLength,
                maxInlineBytes, maxCommandBytes, commandThreads);
        StoreConfig user = config == null ? StoreConfig.builder().build() : StoreConfig.fromXml(config);
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        if (user.meterRegistry() == null) {
            user = user.toBuilder().meterRegistry(registry).build();
        }
        LsmStore store = LsmStore.open(dir, RespServer.storeConfig(user));
        RespServer server;
        try {
            server = RespServer.start(store, options, user.meterRegistry());
        } catch (RuntimeException e) {
            store.close();
            throw e;
        }
        if (server.maxClients() < maxClients) {
            System.out.println("strata-server: --max-clients " + maxClients + " lowered to " + server.maxClients()
                    + ": the file descriptor limit is " + DescriptorBudget.processLimit()
                    + " and the store and the JVM need some (raise it with ulimit -n)");
        }
        CountDownLatch stopped = new CountDownLatch(1);
        Thread hook = new Thread(() -> {
            server.close();
            stopped.countDown();
        }, "strata-server-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        System.out.println(READY + ": listening on " + server.address().getAddress().getHostAddress() + ":"
                + server.port() + " (dir " + store.directory() + ", merge policy " + store.config().mergePolicy()
                + ", WAL " + store.config().walMode().name().toLowerCase(java.util.Locale.ROOT)
                + ", max clients " + server.maxClients() + (requirePass != null ? ", password required" : "") + ")");
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
