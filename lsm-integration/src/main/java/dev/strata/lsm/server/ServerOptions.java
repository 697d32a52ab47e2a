package dev.strata.lsm.server;

/**
 * How a node listens and what input it accepts.
 *
 * @param bind address to listen on (127.0.0.1 unless told otherwise)
 * @param port TCP port (0 picks a free one)
 * @param requirePass password clients must AUTH with, or null for none
 * @param maxClients connections served at once; one more is answered with an error and closed
 * @param maxBulkBytes largest bulk string (a key or value) a command may carry
 * @param maxArrayLength most arguments in one command
 * @param maxInlineBytes longest inline command (or unterminated protocol line)
 * @param maxCommandBytes most bytes of bulk strings in one command
 * @param commandThreads threads that run commands (each connection's commands run in order on one)
 */
public record ServerOptions(String bind, int port, String requirePass, int maxClients, int maxBulkBytes,
                            int maxArrayLength, int maxInlineBytes, long maxCommandBytes, int commandThreads) {
    public static final String DEFAULT_BIND = "127.0.0.1";
    public static final int DEFAULT_PORT = 6380;
    public static final int DEFAULT_MAX_CLIENTS = 10_000;
    public static final int DEFAULT_MAX_BULK_BYTES = 64 << 20;
    public static final int DEFAULT_MAX_ARRAY_LENGTH = 1 << 20;
    public static final int DEFAULT_MAX_INLINE_BYTES = 64 << 10;
    public static final long DEFAULT_MAX_COMMAND_BYTES = 256L << 20;
    public static final int DEFAULT_COMMAND_THREADS = 32;

    public ServerOptions {
        if (bind == null || bind.isBlank()) {
            throw new IllegalArgumentException("bind address must not be empty");
        }
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("port " + port + " is out of range (0 to 65535)");
        }
        if (requirePass != null && requirePass.isEmpty()) {
            throw new IllegalArgumentException("requirepass must not be empty (leave it out for no password)");
        }
        positive("maxClients", maxClients);
        positive("maxBulkBytes", maxBulkBytes);
        positive("maxArrayLength", maxArrayLength);
        if (maxInlineBytes < 64) {
            throw new IllegalArgumentException("maxInlineBytes must be at least 64, was " + maxInlineBytes);
        }
        if (maxCommandBytes < maxBulkBytes) {
            throw new IllegalArgumentException("maxCommandBytes (" + maxCommandBytes
                    + ") must be at least maxBulkBytes (" + maxBulkBytes + ")");
        }
        positive("commandThreads", commandThreads);
    }

    private static void positive(String name, long v) {
        if (v <= 0) {
            throw new IllegalArgumentException(name + " must be positive, was " + v);
        }
    }

    /** The defaults: 127.0.0.1:6380, no password. */
    public static ServerOptions defaults() {
        return new ServerOptions(DEFAULT_BIND, DEFAULT_PORT, null, DEFAULT_MAX_CLIENTS, DEFAULT_MAX_BULK_BYTES,
                DEFAULT_MAX_ARRAY_LENGTH, DEFAULT_MAX_INLINE_BYTES, DEFAULT_MAX_COMMAND_BYTES, DEFAULT_COMMAND_THREADS);
    }

    public ServerOptions withBind(String b) {
        return new ServerOptions(b, port, requirePass, maxClients, maxBulkBytes, maxArrayLength, maxInlineBytes,
                maxCommandBytes, commandThreads);
    }

    public ServerOptions withPort(int p) {
        return new ServerOptions(bind, p, requirePass, maxClients, maxBulkBytes, maxArrayLength, maxInlineBytes,
                maxCommandBytes, commandThreads);
    }

    public ServerOptions withRequirePass(String pass) {
        return new ServerOptions(bind, port, pass, maxClients, maxBulkBytes, maxArrayLength, maxInlineBytes,
                maxCommandBytes, commandThreads);
    }

    public ServerOptions withMaxClients(int clients) {
        return new ServerOptions(bind, port, requirePass, clients, maxBulkBytes, maxArrayLength, maxInlineBytes,
                maxCommandBytes, commandThreads);
    }

    public ServerOptions withLimits(int clients, int bulkBytes, int arrayLength, int inlineBytes, long commandBytes) {
        return new ServerOptions(bind, port, requirePass, clients, bulkBytes, arrayLength, inlineBytes,
                commandBytes, commandThreads);
    }
}
