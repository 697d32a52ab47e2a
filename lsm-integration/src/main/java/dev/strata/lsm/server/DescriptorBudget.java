package dev.strata.lsm.server;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.OperatingSystemMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

/**
 * How many connections the process's file-descriptor limit leaves room for. Every
 * connection holds a descriptor, and so do the store's files (write-ahead log, tables,
 * manifest), the JVM's jars and the listening socket; a node that runs out cannot accept
 * (and its store cannot open a table), so {@code --max-clients} is lowered to fit at start.
 *
 * <p>The reserve kept for everything but clients: the descriptors open now, twice the
 * files in the store's directory plus {@value #STORE_HEADROOM} for the tables the store
 * will write, and {@value #ACCEPT_BURST} for connections accepted in one go before the
 * node refuses the ones over the limit.
 */
final class DescriptorBudget {
    static final int STORE_HEADROOM = 128;
    static final int ACCEPT_BURST = 32;

    private DescriptorBudget() {
    }

    /**
     * The connections to allow: {@code requested}, or fewer when the descriptor limit is lower.
     *
     * @param limit the process's descriptor limit, or -1 when unknown (nothing is lowered)
     * @param openNow descriptors open now
     * @param storeFiles files in the store's directory
     * @return the number of connections, at least 0
     */
    static int maxClients(int requested, long limit, long openNow, long storeFiles) {
        if (limit < 0) {
            return requested;
        }
        long reserve = openNow + 2 * storeFiles + STORE_HEADROOM + ACCEPT_BURST;
        return (int) Math.max(0, Math.min(requested, limit - reserve));
    }

    /** The process's descriptor limit, or -1 when the platform does not tell. */
    static long processLimit() {
        OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
        return os instanceof com.sun.management.UnixOperatingSystemMXBean unix ? unix.getMaxFileDescriptorCount() : -1;
    }

    /** Descriptors the process has open, or 0 when the platform does not tell. */
    static long openNow() {
        OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
        return os instanceof com.sun.management.UnixOperatingSystemMXBean unix
                ? Math.max(0, unix.getOpenFileDescriptorCount()) : 0;
    }

    /** Files in {@code dir} (not recursive: the store keeps its files in its directory). */
    static long filesIn(Path dir) {
        try (Stream<Path> s = Files.list(dir)) {
            return s.count();
        } catch (IOException e) {
            return 0;
        }
    }
}
