package dev.strata.lsm.server;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The node's meters: {@code strata.server.commands} (a timer per command name, so count
 * and latency), {@code strata.server.connections} (open now), and counters of connections
 * accepted and refused and of protocol errors. Unknown command names are counted under
 * {@code unknown} so a client cannot make the registry grow without bound.
 */
final class ServerMetrics {
    private final MeterRegistry registry;
    private final Map<String, Timer> timers = new ConcurrentHashMap<>();
    /** The timers by the upper-case names of known commands (the hot path: no case conversion). */
    private final Map<String, Timer> byCommand = new ConcurrentHashMap<>();
    final AtomicLong connections = new AtomicLong();
    final Counter accepted;
    final Counter refused;
    final Counter protocolErrors;
    final AtomicLong commandsProcessed = new AtomicLong();

    ServerMetrics(MeterRegistry registry) {
        this.registry = registry;
        Gauge.builder("strata.server.connections", connections, AtomicLong::get)
                .description("client connections open now").register(registry);
        accepted = Counter.builder("strata.server.connections.accepted").register(registry);
        refused = Counter.builder("strata.server.connections.refused")
                .description("connections closed at once because the limit was reached").register(registry);
        protocolErrors = Counter.builder("strata.server.protocol.errors")
                .description("connections closed for a protocol error or an input limit").register(registry);
    }

    /** Counts one execution of {@code command} (upper case) that took {@code nanos}. */
    void record(String command, long nanos) {
        commandsProcessed.incrementAndGet();
        Timer t = byCommand.get(command);
        if (t == null) {
            String name = CommandNames.KNOWN.contains(command) ? command.toLowerCase(java.util.Locale.ROOT) : "unknown";
            t = timers.computeIfAbsent(name, n -> Timer.builder("strata.server.commands").tag("command", n)
                    .description("commands executed, and their latency").register(registry));
            if (CommandNames.KNOWN.contains(command)) {
                byCommand.putIfAbsent(command, t);
            }
        }
        t.record(nanos, java.util.concurrent.TimeUnit.NANOSECONDS);
    }

    /** Calls and total microseconds per command name executed so far (for INFO). */
    Map<String, long[]> commandStats() {
        Map<String, long[]> out = new java.util.TreeMap<>();
        timers.forEach((n, t) -> out.put(n, new long[] {t.count(),
                (long) t.totalTime(java.util.concurrent.TimeUnit.MICROSECONDS)}));
        return out;
    }
}
