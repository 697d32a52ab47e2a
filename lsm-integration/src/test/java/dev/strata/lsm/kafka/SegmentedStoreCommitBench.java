package dev.strata.lsm.kafka;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.kstream.Windowed;
import org.apache.kafka.streams.kstream.internals.SessionWindow;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.SessionStore;
import org.apache.kafka.streams.state.WindowStore;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.Comparator;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;

/**
 * The store's own cost per record under a commit per record, as {@code TopologyTestDriver}
 * drives it, without Kafka Streams' processing around it: a window store doing what a
 * tumbling count does (fetch the key's window, put the count, commit) and a session store
 * doing what a session aggregate does (find the key's sessions, remove the merged ones, put
 * the new one, commit). Reports records/s by wall time and by the thread's CPU time (less
 * disturbed by other processes on a shared machine), medians of {@code --rounds}. Uses only
 * the stores' public API, so the same source runs against an older build. A measurement,
 * not a test: {@code java -cp ... dev.strata.lsm.kafka.SegmentedStoreCommitBench}.
 */
public final class SegmentedStoreCommitBench {
    private static final TopicPartition CHANGELOG = new TopicPartition("bench-changelog", 0);

    private SegmentedStoreCommitBench() {
    }

    public static void main(String[] args) throws Exception {
        int records = 50_000;
        int keys = 10_000;
        int rounds = 5;
        Path base = Path.of(System.getProperty("java.io.tmpdir"), "strata-commit-bench");
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--records" -> records = Integer.parseInt(args[++i]);
                case "--keys" -> keys = Integer.parseInt(args[++i]);
                case "--rounds" -> rounds = Integer.parseInt(args[++i]);
                case "--dir" -> base = Path.of(args[++i]);
                default -> throw new IllegalArgumentException("unknown option " + args[i]
                        + " (--records N --keys N --rounds N --dir DIR)");
            }
        }
        System.out.printf(Locale.ROOT, "SegmentedStoreCommitBench: %,d records over %,d keys, a commit per record, "
                + "%d rounds, java %s%n", records, keys, rounds, System.getProperty("java.version"));
        window(base, records / 5, keys);   // warm-up
        session(base, records / 5, keys);
        double[][] w = new double[2][rounds];
        double[][] s = new double[2][rounds];
        for (int r = 0; r < rounds; r++) {
            double[] wr = window(base, records, keys);
            double[] sr = session(base, records, keys);
            w[0][r] = wr[0];
            w[1][r] = wr[1];
            s[0][r] = sr[0];
            s[1][r] = sr[1];
            System.out.printf(Locale.ROOT, "  round %d: window %,9.0f records/s (%,9.0f by CPU), session %,9.0f "
                    + "(%,9.0f by CPU)%n", r, wr[0], wr[1], sr[0], sr[1]);
        }
        System.out.printf(Locale.ROOT, "median: window %,.0f records/s (%,.0f by CPU), session %,.0f (%,.0f by CPU)%n",
                median(w[0]), median(w[1]), median(s[0]), median(s[1]));
    }

    private static double median(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        return sorted[sorted.length / 2];
    }

    private static Bytes key(int k) {
        return Bytes.wrap(String.format(Locale.ROOT, "key-%06d", k).getBytes(StandardCharsets.UTF_8));
    }

    /** records/s by wall time and by CPU time of a tumbling count over {@code records}. */
    private static double[] window(Path base, int records, int keys) throws IOException {
        Path dir = fresh(base.resolve("window"));
        WindowStore<Bytes, byte[]> store = StrataStores.persistentWindowStore("w", Duration.ofDays(1),
                Duration.ofMinutes(1), false).get();
        TestStoreContext context = new TestStoreContext(dir.toFile(), 0, false);
        store.init(context, store);
        Random random = new Random(7);
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        long cpu = threads.getCurrentThreadCpuTime();
        long start = System.nanoTime();
        for (int i = 0; i < records; i++) {
            context.processing("input", 0, i);
            Bytes k = key(random.nextInt(keys));
            long windowStart = i - i % 60_000;
            byte[] old = store.fetch(k, windowStart);
            long count = old == null ? 1 : ByteBuffer.wrap(old).getLong() + 1;
            store.put(k, ByteBuffer.allocate(Long.BYTES).putLong(count).array(), windowStart);
            store.commit(Map.of(CHANGELOG, (long) i));
        }
        double wall = (System.nanoTime() - start) / 1e9;
        double cpuSeconds = (threads.getCurrentThreadCpuTime() - cpu) / 1e9;
        store.close();
        fresh(dir);
        return new double[] {records / wall, records / cpuSeconds};
    }

    /** records/s by wall time and by CPU time of a 5-minute-gap session aggregate over {@code records}. */
    private static double[] session(Path base, int records, int keys) throws IOException {
        Path dir = fresh(base.resolve("session"));
        SessionStore<Bytes, byte[]> store = StrataStores.persistentSessionStore("s", Duration.ofDays(1)).get();
        TestStoreContext context = new TestStoreContext(dir.toFile(), 0, false);
        store.init(context, store);
        Random random = new Random(7);
        long gap = 300_000;
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        long cpu = threads.getCurrentThreadCpuTime();
        long start = System.nanoTime();
        for (int i = 0; i < records; i++) {
            context.processing("input", 0, i);
            Bytes k = key(random.nextInt(keys));
            long t = i;
            long sessionStart = t;
            long sessionEnd = t;
            long count = 1;
            try (KeyValueIterator<Windowed<Bytes>, byte[]> it = store.findSessions(k, t - gap, t + gap)) {
                while (it.hasNext()) {
                    var kv = it.next();
                    sessionStart = Math.min(sessionStart, kv.key.window().start());
                    sessionEnd = Math.max(sessionEnd, kv.key.window().end());
                    count += ByteBuffer.wrap(kv.value).getLong();
                    store.remove(kv.key);
                }
            }
            store.put(new Windowed<>(k, new SessionWindow(sessionStart, sessionEnd)),
                    ByteBuffer.allocate(Long.BYTES).putLong(count).array());
            store.commit(Map.of(CHANGELOG, (long) i));
        }
        double wall = (System.nanoTime() - start) / 1e9;
        double cpuSeconds = (threads.getCurrentThreadCpuTime() - cpu) / 1e9;
        store.close();
        fresh(dir);
        return new double[] {records / wall, records / cpuSeconds};
    }

    private static Path fresh(Path dir) throws IOException {
        if (Files.exists(dir)) {
            try (Stream<Path> walk = Files.walk(dir)) {
                for (Path p : (Iterable<Path>) walk.sorted(Comparator.reverseOrder())::iterator) {
                    Files.delete(p);
                }
            }
        }
        Files.createDirectories(dir);
        return dir;
    }
}
