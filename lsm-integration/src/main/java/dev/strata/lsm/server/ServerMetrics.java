package dev.strata.lsm.server;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionTimer;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * The node's meters: {@code strata.server.commands} (a function timer per command name: count
 * and total time), {@code strata.server.connections} (open now), and counters of connections
 * accepted and refused and of protocol errors. Unknown command names are counted under
 * {@code unknown} so a client cannot make the registry grow without bound.
 *
 * <p>Recording is two {@link LongAdder} additions per run of commands (a pipeline's SETs or
 * GETs are recorded once with their count), without allocation: a Micrometer {@code Timer}
 * per command (its time-window maximum and unit conversions) was 10% of the command threads'
 * samples with {@code -P 16}. There is no maximum or percentile per command. Thread safe.
 */
final class ServerMetrics {
    private final MeterRegistry registry;
    private final Map<String, Stats> timers = new ConcurrentHashMap<>();
    /** The timers by the upper-case names of known commands (the hot path: no case conversion). */
    private final Map<String, Stats> byCommand = new ConcurrentHashMap<>();
    final AtomicLong connections = new AtomicLong();
    final Counter accepted;
    final Counter refused;
    final Counter protocolErrors;
    final LongAdder commandsProcessed = new LongAdder();

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
        record(command, 1, nanos);
    }

    /** Counts {@code count} executions of {@code command} (upper case) that took {@code nanos} in all. */
    void record(String command, int count, long nanos) {
        commandsProcessed.add(count);
        Stats t = byCommand.get(command);
        if (t == null) {
            boolean known = CommandNames.KNOWN.contains(command);
            String name = known ? command.toLowerCase(java.util.Locale.ROOT) : "unknown";
            t = timers.computeIfAbsent(name, this::register);
            if (known) {
                byCommand.putIfAbsent(command, t);
            }
        }
        t.calls.add(count);
        t.nanos.add(nanos);
    }

    private Stats register(String name) {
        Stats s = new Stats();
        FunctionTimer.builder("strata.server.commands", s, x -> x.calls.sum(), x -> x.nanos.sum(), TimeUnit.NANOSECONDS)
                .tag("command", name).description("commands executed, and their total time").register(registry);
        return s;
    }

    /** One command's count and total nanoseconds. */
    private static final class Stats {
        final LongAdder calls = new LongAdder();
        final LongAdder nanos = new LongAdder();
    }

    /** Calls and total microseconds per command name executed so far (for INFO). */
    Map<String, long[]> commandStats() {
        Map<String, long[]> out = new java.util.TreeMap<>();
        timers.forEach((n, t) -> out.put(n, new long[] {t.calls.sum(), t.nanos.sum() / 1000}));
        return out;
    }
}
