package dev.strata.lsm.server;

import dev.strata.lsm.LsmStore;
import dev.strata.lsm.StoreConfig;
import dev.strata.lsm.StoreStats;
import dev.strata.lsm.io.IoPurpose;

import java.lang.management.ManagementFactory;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/** INFO's text and CONFIG GET's values. */
final class ServerInfo {
    private final LsmStore store;
    private final ServerMetrics metrics;
    private final ServerOptions options;
    private final long startedAtMillis = System.currentTimeMillis();
    private volatile int port;

    ServerInfo(LsmStore store, ServerMetrics metrics, ServerOptions options) {
        this.store = store;
        this.metrics = metrics;
        this.options = options;
    }

    void port(int port) {
        this.port = port;
    }

    /** What CONFIG GET answers: enough for redis-benchmark and redis-cli not to warn. */
    Map<String, String> configValues() {
        StoreConfig c = store.config();
        Map<String, String> m = new LinkedHashMap<>();
        m.put("bind", options.bind());
        m.put("port", Integer.toString(port));
        m.put("dir", store.directory().toString());
        m.put("databases", "1");
        m.put("maxclients", Integer.toString(options.maxClients()));
        m.put("maxmemory", "0");
        m.put("maxmemory-policy", "noeviction");
        m.put("proto-max-bulk-len", Long.toString(options.maxBulkBytes()));
        m.put("requirepass", "");
        m.put("save", "");
        m.put("appendonly", "yes");
        m.put("appendfsync", switch (c.walMode()) {
            case SYNC -> "always";
            case ASYNC -> "no";
            case NONE -> "no";
        });
        m.put("timeout", "0");
        m.put("strata-wal-mode", c.walMode().name().toLowerCase(Locale.ROOT));
        m.put("strata-merge-policy", c.mergePolicy());
        m.put("strata-memtable-bytes", Long.toString(c.memtableBytes()));
        return m;
    }

    String render(String section, long approximateKeys) {
        boolean all = section.equals("all") || section.equals("everything");
        boolean dflt = section.equals("default") || all;
        StringBuilder sb = new StringBuilder();
        if (dflt || section.equals("server")) {
            long uptime = (System.currentTimeMillis() - startedAtMillis) / 1000;
            sb.append("# Server\r\n")
                    .append("redis_version:7.2.0\r\n")
                    .append("strata_version:").append(version()).append("\r\n")
                    .append("redis_mode:standalone\r\n")
                    .append("os:").append(System.getProperty("os.name")).append(' ')
                    .append(System.getProperty("os.version")).append(' ').append(System.getProperty("os.arch")).append("\r\n")
                    .append("process_id:").append(ProcessHandle.current().pid()).append("\r\n")
                    .append("java_version:").append(System.getProperty("java.version")).append("\r\n")
                    .append("tcp_port:").append(port).append("\r\n")
                    .append("uptime_in_seconds:").append(uptime).append("\r\n")
                    .append("uptime_in_days:").append(uptime / 86400).append("\r\n")
                    .append("\r\n");
        }
        if (dflt || section.equals("clients")) {
            sb.append("# Clients\r\n")
                    .append("connected_clients:").append(metrics.connections.get()).append("\r\n")
                    .append("maxclients:").append(options.maxClients()).append("\r\n")
                    .append("\r\n");
        }
        if (dflt || section.equals("memory")) {
            Runtime rt = Runtime.getRuntime();
            sb.append("# Memory\r\n")
                    .append("used_memory:").append(rt.totalMemory() - rt.freeMemory()).append("\r\n")
                    .append("jvm_heap_max:").append(rt.maxMemory()).append("\r\n")
                    .append("strata_memtable_bytes:").append(store.stats().memtableBytes()).append("\r\n")
                    .append("\r\n");
        }
        StoreStats s = store.stats();
        if (dflt || section.equals("persistence")) {
            sb.append("# Persistence\r\n")
                    .append("loading:0\r\n")
                    .append("aof_enabled:1\r\n")
                    .append("strata_wal_mode:").append(store.config().walMode().name().toLowerCase(Locale.ROOT)).append("\r\n")
                    .append("strata_flushes:").append(s.flushCount()).append("\r\n")
                    .append("strata_wal_bytes_written:").append(s.walBytesWritten()).append("\r\n")
                    .append("\r\n");
        }
        if (dflt || section.equals("stats")) {
            sb.append("# Stats\r\n")
                    .append("total_connections_received:").append((long) metrics.accepted.count()).append("\r\n")
                    .append("total_commands_processed:").append(metrics.commandsProcessed.sum()).append("\r\n")
                    .append("rejected_connections:").append((long) metrics.refused.count()).append("\r\n")
                    .append("total_error_replies_protocol:").append((long) metrics.protocolErrors.count()).append("\r\n")
                    .append("\r\n");
        }
        if (all || section.equals("commandstats")) {
            sb.append("# Commandstats\r\n");
            metrics.commandStats().forEach((name, v) -> sb.append("cmdstat_").append(name).append(":calls=")
                    .append(v[0]).append(",usec=").append(v[1]).append(",usec_per_call=")
                    .append(v[0] == 0 ? "0.00" : String.format(Locale.ROOT, "%.2f", (double) v[1] / v[0])).append("\r\n"));
            sb.append("\r\n");
        }
        if (dflt || section.equals("keyspace")) {
            sb.append("# Keyspace\r\n")
                    .append("db0:keys=").append(approximateKeys).append(",expires=0,avg_ttl=0,approximate=1\r\n")
                    .append("\r\n");
        }
        if (dflt || section.equals("strata")) {
            sb.append("# Strata\r\n")
                    .append("merge_policy:").append(store.config().mergePolicy())
                    .append(store.config().mergePolicyParams().isEmpty() ? "" : " " + store.config().mergePolicyParams())
                    .append("\r\n");
            int[] perLevel = s.componentsPerLevel();
            sb.append("components:").append(s.componentCount()).append("\r\n");
            StringBuilder levels = new StringBuilder();
            for (int i = 0; i < perLevel.length; i++) {
                levels.append(i == 0 ? "" : ",").append("l").append(i).append('=').append(perLevel[i]);
            }
            sb.append("components_per_level:").append(levels).append("\r\n")
                    .append("write_amplification:").append(fmt(s.writeAmplification())).append("\r\n")
                    .append("space_amplification:").append(fmt(s.spaceAmplification())).append("\r\n")
                    .append("stall_seconds:").append(fmt(s.stallNanos() / 1e9)).append("\r\n")
                    .append("flushes:").append(s.flushCount()).append("\r\n")
                    .append("merges:").append(s.mergeCount()).append("\r\n")
                    .append("policy_errors:").append(s.policyErrors()).append("\r\n")
                    .append("table_file_bytes:").append(s.tableFileBytes()).append("\r\n")
                    .append("live_logical_bytes:").append(Math.round(s.liveLogicalBytes())).append("\r\n");
            // Compression (StoreStats): per level, the bytes the live tables' pages take
            // uncompressed and as stored, and their ratio; tables keep the codec they were written with.
            long[] logical = s.logicalBytesByLevel();
            long[] stored = s.storedBytesByLevel();
            sb.append("compression:").append(store.config().compression().configName()).append("\r\n")
                    .append("logical_bytes_per_level:").append(perLevel(logical)).append("\r\n")
                    .append("stored_bytes_per_level:").append(perLevel(stored)).append("\r\n")
                    .append("compression_ratio:").append(fmt(s.compressionRatio())).append("\r\n");
            StringBuilder ratios = new StringBuilder();
            for (int i = 0; i < stored.length; i++) {
                ratios.append(i == 0 ? "" : ",").append("l").append(i).append('=').append(fmt(s.compressionRatio(i)));
            }
            sb.append("compression_ratio_per_level:").append(ratios).append("\r\n")
                    .append("decompressions:").append(s.decompressions()).append("\r\n")
                    .append("decompression_seconds:").append(fmt(s.decompressionNanos() / 1e9)).append("\r\n");
            for (IoPurpose p : IoPurpose.values()) {
                sb.append("bytes_written_").append(p.name().toLowerCase(Locale.ROOT)).append(':')
                        .append(s.bytesWritten(p)).append("\r\n");
            }
            sb.append("last_sequence:").append(s.lastSequence()).append("\r\n").append("\r\n");
        }
        return sb.toString();
    }

    /** {@code l0=N,l1=N,...}, one entry per level. */
    private static String perLevel(long[] values) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < values.length; i++) {
            b.append(i == 0 ? "" : ",").append("l").append(i).append('=').append(values[i]);
        }
        return b.toString();
    }

    private static String fmt(double d) {
        return Double.isNaN(d) ? "0" : String.format(Locale.ROOT, "%.3f", d);
    }

    static String version() {
        String v = ServerInfo.class.getPackage().getImplementationVersion();
        return v == null ? "dev" : v;
    }

    static long uptimeMillis() {
        return ManagementFactory.getRuntimeMXBean().getUptime();
    }
}
