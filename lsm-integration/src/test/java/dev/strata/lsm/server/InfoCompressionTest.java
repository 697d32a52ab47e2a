package dev.strata.lsm.server;

import dev.strata.lsm.StoreConfig;
import dev.strata.lsm.StoreStats;
import dev.strata.lsm.Compression;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code INFO strata} shows, per level, the logical (uncompressed) and stored bytes of the live
 * tables and their compression ratio, as {@link StoreStats} gives them: on an lz4 node with
 * compressible values the stored bytes are well below the logical ones, and on a node without
 * compression they are equal (ratio 1).
 */
class InfoCompressionTest {
    @TempDir
    Path dir;

    @Test
    void infoStrataShowsLogicalAndStoredBytesPerLevelAndTheRatio() {
        Map<String, String> lz4 = infoAfterLoad(dir.resolve("lz4"), Compression.LZ4);
        assertEquals("lz4", lz4.get("compression"));
        double ratio = Double.parseDouble(lz4.get("compression_ratio"));
        assertTrue(ratio > 2, "compressible values compress: " + lz4);
        long logical = sum(lz4.get("logical_bytes_per_level"));
        long stored = sum(lz4.get("stored_bytes_per_level"));
        assertTrue(stored > 0 && logical > 2 * stored, lz4.toString());
        assertEquals(String.format(Locale.ROOT, "%.3f", (double) logical / stored), lz4.get("compression_ratio"));

        Map<String, String> none = infoAfterLoad(dir.resolve("none"), Compression.NONE);
        assertEquals("none", none.get("compression"));
        assertEquals("1.000", none.get("compression_ratio"));
        assertEquals(none.get("logical_bytes_per_level"), none.get("stored_bytes_per_level"));
        assertTrue(sum(none.get("stored_bytes_per_level")) > stored, "uncompressed takes more: " + none);
    }

    /** Loads a node over a fresh store with {@code codec}, flushes, and returns INFO strata, checked against StoreStats. */
    private static Map<String, String> infoAfterLoad(Path dir, Compression codec) {
        StoreConfig config = StoreConfig.builder().compression(codec).memtableBytes(1 << 20).build();
        try (TestNode node = new TestNode(dir, config, ServerOptions.defaults());
             Jedis j = new Jedis("127.0.0.1", node.port(), OneNodeTest.CLIENT_TIMEOUT_MILLIS)) {
            redis.clients.jedis.Pipeline p = j.pipelined();
            for (int i = 0; i < 20_000; i++) {
                p.set("key:" + i, "value " + i + " " + "compressible text ".repeat(6));
            }
            p.sync();
            node.server.store().flush();
            node.server.store().awaitMerges();
            Map<String, String> info = parse(j.info("strata"));
            StoreStats s = node.server.store().stats();
            assertEquals(perLevel(s.logicalBytesByLevel()), info.get("logical_bytes_per_level"), info.toString());
            assertEquals(perLevel(s.storedBytesByLevel()), info.get("stored_bytes_per_level"), info.toString());
            assertTrue(info.get("compression_ratio_per_level").startsWith("l0="), info.toString());
            assertTrue(info.containsKey("decompressions") && info.containsKey("decompression_seconds"), info.toString());
            return info;
        }
    }

    private static String perLevel(long[] values) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < values.length; i++) {
            b.append(i == 0 ? "" : ",").append("l").append(i).append('=').append(values[i]);
        }
        return b.toString();
    }

    private static long sum(String perLevel) {
        long total = 0;
        for (String part : perLevel.split(",")) {
            total += Long.parseLong(part.substring(part.indexOf('=') + 1));
        }
        return total;
    }

    private static Map<String, String> parse(String info) {
        Map<String, String> out = new HashMap<>();
        for (String line : info.split("\r\n")) {
            int colon = line.indexOf(':');
            if (colon > 0 && !line.startsWith("#")) {
                out.put(line.substring(0, colon), line.substring(colon + 1));
            }
        }
        return out;
    }
}
