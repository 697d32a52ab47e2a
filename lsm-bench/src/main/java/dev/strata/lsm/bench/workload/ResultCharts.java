package dev.strata.lsm.bench.workload;

import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramIterationValue;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.Styler;
import org.knowm.xchart.style.markers.SeriesMarkers;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * PNG charts of an {@link Comparison.Outcome}, one series per engine: throughput over time
 * and write amplification over time (first round: time series of different rounds do not
 * average meaningfully), and one latency CDF per workload (histograms of all rounds added).
 */
public final class ResultCharts {
    private static final int WIDTH = 1000;
    private static final int HEIGHT = 600;

    private ResultCharts() {
    }

    /** Writes the charts into {@code dir} (created if needed) and returns the files written. */
    public static List<Path> write(Comparison.Outcome outcome, Path dir) throws IOException {
        Files.createDirectories(dir);
        List<Path> written = new ArrayList<>();
        List<EngineRun.Result> firstRound = outcome.rounds().get(0);
        List<String> engines = outcome.summary().engines();

        XYChart throughput = chart("Throughput over time (round 1)", "seconds since the engine opened",
                "ops/s (1-second buckets)");
        XYChart wa = chart("Write amplification over time (round 1)", "seconds since the engine opened",
                "process bytes written / user bytes written");
        for (String engine : engines) {
            EngineRun.Result run = firstRound.stream().filter(r -> r.engine().equals(engine)).findFirst()
                    .orElseThrow();
            addSeries(throughput, engine, run.timeline().throughput());
            addSeries(wa, engine, run.timeline().writeAmplification());
        }
        written.add(save(throughput, dir.resolve("throughput.png")));
        written.add(save(wa, dir.resolve("write-amplification.png")));

        int workloads = firstRound.get(0).workloads().size();
        for (int w = 0; w < workloads; w++) {
            String workload = firstRound.get(0).workloads().get(w).workload();
            XYChart cdf = chart("Latency CDF: " + workload + " (all rounds)", "latency (microseconds, log scale)",
                    "fraction of requests at or below");
            cdf.getStyler().setXAxisLogarithmic(true);
            cdf.getStyler().setLegendPosition(Styler.LegendPosition.InsideSE);
            int series = 0;
            for (String engine : engines) {
                Histogram h = new Histogram(Recorder.SIGNIFICANT_DIGITS);
                int position = w;
                outcome.rounds().stream().flatMap(List::stream).filter(r -> r.engine().equals(engine))
                        .forEach(r -> h.add(r.workloads().get(position).latency()));
                if (h.getTotalCount() == 0) {
                    continue; // an engine that does not support the workload (ingest on leveldb)
                }
                addSeries(cdf, engine, cdf(h));
                series++;
            }
            if (series > 0) {
                written.add(save(cdf, dir.resolve("latency-cdf-" + (w + 1) + "-" + workload + ".png")));
            }
        }
        return written;
    }

    /** (latency in microseconds, cumulative fraction) at each recorded value of {@code h}. */
    static List<double[]> cdf(Histogram h) {
        List<double[]> points = new ArrayList<>();
        long total = h.getTotalCount();
        if (total == 0) {
            return points;
        }
        for (HistogramIterationValue v : h.recordedValues()) {
            points.add(new double[] {Math.max(1e-3, h.highestEquivalentValue(v.getValueIteratedTo()) / 1e3),
                    (double) v.getTotalCountToThisValue() / total});
        }
        return points;
    }

    private static XYChart chart(String title, String x, String y) {
        XYChart c = new XYChartBuilder().width(WIDTH).height(HEIGHT).title(title).xAxisTitle(x).yAxisTitle(y).build();
        c.getStyler().setLegendPosition(Styler.LegendPosition.InsideNE);
        return c;
    }

    private static void addSeries(XYChart chart, String name, List<double[]> points) {
        if (points.isEmpty()) {
            // XChart rejects empty series; a run shorter than a second has no time series.
            points = List.of(new double[] {0, 0});
        }
        double[] x = points.stream().mapToDouble(p -> p[0]).toArray();
        double[] y = points.stream().mapToDouble(p -> p[1]).toArray();
        XYSeries s = chart.addSeries(name, x, y);
        s.setMarker(SeriesMarkers.NONE);
    }

    private static Path save(XYChart chart, Path file) throws IOException {
        String name = file.toString();
        BitmapEncoder.saveBitmap(chart, name.substring(0, name.length() - ".png".length()),
                BitmapEncoder.BitmapFormat.PNG);
        return file;
    }
}
