package dev.strata.lsm.bench.workload;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;
import java.util.function.ToDoubleFunction;

/**
 * Medians over rounds, one row per engine and workload, with each engine's throughput as a
 * ratio of the first engine's. Medians rather than means: a shared, noisy machine produces
 * the occasional outlier round, and a median ignores it.
 *
 * @param engines in the order given (the first is the ratios' base)
 * @param rounds rounds run
 * @param rows engine-major: every workload of the first engine, then the next engine
 * @param descriptions each engine's settings, by engine
 * @param durability each engine's durability, by engine
 * @param ingestMethods how each engine's ingest workload loads files, by engine (engines without one absent)
 */
public record Summary(List<String> engines, int rounds, List<Row> rows, Map<String, String> descriptions,
                      Map<String, String> durability, Map<String, String> ingestMethods) {

    /**
     * One engine and workload, medians over rounds.
     *
     * @param ratioToFirst opsPerSec over the first engine's for the same workload; NaN when either
     *     engine did not support the workload
     * @param misses the largest miss count of any round (a correctness signal, not a median)
     * @param peakSpaceAmplification the directory's peak (sampled once a second, allocated blocks
     *     where du works) over the live bytes at the end; null when empty
     * @param peakAllocatedBytes the directory's peak allocated bytes (-1 without du)
     * @param peakApparentBytes the directory's peak file lengths
     * @param engineCounters numeric counters: medians; others: those of the median-throughput round
     * @param writeSource the /proc/self/io counter behind the write amplification
     * @param diskSource what the space amplification counts
     * @param perRound opsPerSec, writeAmplification and spaceAmplification of each round, in round order
     * @param notSupported why the engine could not run the workload (the figures are then empty), or null
     */
    public record Row(String engine, String workload, int position, String distribution, long ops,
                      double opsPerSec, double ratioToFirst, Latency latency, Map<Operation, Latency> byOperation,
                      long backgroundOps, long misses, Double writeAmplification,
                      Double cumulativeWriteAmplification, Double spaceAmplification,
                      Double spaceAmplificationApparent, Double peakSpaceAmplification, long peakAllocatedBytes,
                      long peakApparentBytes, double settleSeconds, Map<String, Object> engineCounters,
                      String writeSource, String diskSource, Map<String, List<Double>> perRound, int rounds,
                      String notSupported) {

        /** True when the engine ran the workload. */
        public boolean supported() {
            return notSupported == null;
        }
    }

    /** Summarises {@code runs}: for each round, the engine runs in any order. */
    public static Summary of(List<String> engines, List<List<EngineRun.Result>> runs) {
        Map<String, String> descriptions = new LinkedHashMap<>();
        Map<String, String> durability = new LinkedHashMap<>();
        Map<String, String> ingestMethods = new LinkedHashMap<>();
        List<Row> rows = new ArrayList<>();
        Map<Integer, Double> firstEngineOps = new LinkedHashMap<>();
        for (String engine : engines) {
            List<EngineRun.Result> mine = runs.stream().flatMap(List::stream)
                    .filter(r -> r.engine().equals(engine)).toList();
            if (mine.isEmpty()) {
                continue;
            }
            descriptions.put(engine, mine.get(0).description());
            durability.put(engine, mine.get(0).durability());
            if (mine.get(0).ingestMethod() != null) {
                ingestMethods.put(engine, mine.get(0).ingestMethod());
            }
            int workloads = mine.get(0).workloads().size();
            for (int w = 0; w < workloads; w++) {
                int position = w;
                List<WorkloadResult> rounds = mine.stream().map(r -> r.workloads().get(position)).toList();
                Row row = row(rounds, firstEngineOps.get(position));
                firstEngineOps.putIfAbsent(position, row.supported() ? row.opsPerSec() : Double.NaN);
                rows.add(row);
            }
        }
        return new Summary(List.copyOf(engines), runs.size(), rows, descriptions, durability, ingestMethods);
    }

    private static Row row(List<WorkloadResult> rounds, Double firstOps) {
        WorkloadResult any = rounds.get(0);
        String notSupported = rounds.stream().map(WorkloadResult::notSupported).filter(Objects::nonNull).findFirst()
                .orElse(null);
        double ops = median(rounds, WorkloadResult::opsPerSec);
        WorkloadResult medianRound = rounds.stream()
                .min(Comparator.comparingDouble(r -> Math.abs(r.opsPerSec() - ops))).orElseThrow();
        Map<Operation, Latency> byOperation = new LinkedHashMap<>();
        for (Operation op : Operation.values()) {
            List<Latency> l = rounds.stream().filter(r -> r.latencyByOperation().containsKey(op))
                    .map(r -> Latency.of(r.latencyByOperation().get(op))).toList();
            if (!l.isEmpty()) {
                byOperation.put(op, medianLatency(l));
            }
        }
        return new Row(any.engine(), any.workload(), any.position(), any.distribution(),
                Math.round(median(rounds, r -> r.ops())), ops,
                notSupported != null || (firstOps != null && firstOps.isNaN()) ? Double.NaN
                        : firstOps == null || firstOps == 0 ? 1.0 : ops / firstOps,
                medianLatency(rounds.stream().map(r -> Latency.of(r.latency())).toList()), byOperation,
                Math.round(median(rounds, r -> r.backgroundOps())),
                rounds.stream().mapToLong(WorkloadResult::misses).max().orElse(0),
                medianOrNull(rounds, WorkloadResult::writeAmplification),
                medianOrNull(rounds, WorkloadResult::cumulativeWriteAmplification),
                medianOrNull(rounds, WorkloadResult::spaceAmplification),
                medianOrNull(rounds, WorkloadResult::spaceAmplificationApparent),
                medianOrNull(rounds, WorkloadResult::peakSpaceAmplification),
                Math.round(median(rounds, r -> r.peakDisk().allocatedBytes())),
                Math.round(median(rounds, r -> r.peakDisk().apparentBytes())),
                median(rounds, WorkloadResult::settleSeconds),
                medianCounters(rounds, medianRound), any.writeSource(), any.disk().source(), perRound(rounds),
                rounds.size(), notSupported);
    }

    private static Map<String, List<Double>> perRound(List<WorkloadResult> rounds) {
        Map<String, List<Double>> m = new LinkedHashMap<>();
        m.put("opsPerSec", rounds.stream().map(WorkloadResult::opsPerSec).toList());
        // Null for a read-only workload's write amplification; Stream.toList keeps nulls.
        m.put("writeAmplification", rounds.stream().map(WorkloadResult::writeAmplification).toList());
        m.put("spaceAmplification", rounds.stream().map(WorkloadResult::spaceAmplification).toList());
        m.put("peakSpaceAmplification", rounds.stream().map(WorkloadResult::peakSpaceAmplification).toList());
        return m;
    }

    private static Latency medianLatency(List<Latency> l) {
        return new Latency(Math.round(median(l, x -> x.count())), median(l, Latency::p50), median(l, Latency::p90),
                median(l, Latency::p99), median(l, Latency::p999), median(l, Latency::max));
    }

    private static Map<String, Object> medianCounters(List<WorkloadResult> rounds, WorkloadResult medianRound) {
        Map<String, Object> out = new LinkedHashMap<>();
        for (Map.Entry<String, Object> e : medianRound.engineCounters().entrySet()) {
            String key = e.getKey();
            if (e.getValue() instanceof Number) {
                List<Number> values = rounds.stream().map(r -> r.engineCounters().get(key))
                        .filter(v -> v instanceof Number).map(v -> (Number) v).toList();
                double m = median(values, Number::doubleValue);
                boolean integral = values.stream().allMatch(v -> v instanceof Long || v instanceof Integer);
                out.put(key, integral && m == Math.rint(m) ? (Object) Math.round(m) : (Object) m);
            } else {
                out.put(key, e.getValue());
            }
        }
        return out;
    }

    /** The median of {@code f} over {@code items}: the middle value, or the mean of the middle two. */
    static <T> double median(List<T> items, ToDoubleFunction<T> f) {
        double[] v = items.stream().mapToDouble(f).sorted().toArray();
        if (v.length == 0) {
            return Double.NaN;
        }
        int mid = v.length / 2;
        return v.length % 2 == 1 ? v[mid] : (v[mid - 1] + v[mid]) / 2;
    }

    private static <T> Double medianOrNull(List<T> items, Function<T, Double> f) {
        List<Double> present = items.stream().map(f).filter(Objects::nonNull).toList();
        return present.isEmpty() ? null : median(present, Double::doubleValue);
    }

    /** The rows of {@code engine}, in workload order. */
    public List<Row> rowsOf(String engine) {
        return rows.stream().filter(r -> r.engine().equals(engine)).toList();
    }
}
