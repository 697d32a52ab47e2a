package dev.strata.lsm.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.strata.lsm.policy.sim.FlushLengths;
import dev.strata.lsm.policy.sim.Semantics;
import dev.strata.lsm.policy.sim.SimulationResult;
import dev.strata.lsm.policy.sim.Simulator;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.Styler;
import org.knowm.xchart.style.markers.SeriesMarkers;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

/**
 * {@code simulate}: runs a registered merge policy — the same class the store runs — over
 * simulated flushes and reports write amplification and component counts.
 */
@Command(name = "simulate", mixinStandardHelpOptions = true,
        description = "Simulate a merge policy under the bounded-depth paper's cost model.")
public final class SimulateCommand implements Callable<Integer> {

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Option(names = "--policy", required = true, description = "policy name, e.g. binomial")
    String policy;

    @Option(names = "--param", description = "policy parameter NAME=VALUE (repeatable)", mapFallbackValue = "")
    Map<String, String> params = new LinkedHashMap<>();

    @Option(names = "--flushes", defaultValue = "20000", description = "flushes to simulate (default ${DEFAULT-VALUE})")
    long flushes;

    @Option(names = "--flush-length", defaultValue = "uniform", converter = FlushLengthConverter.class,
            description = "uniform | random:A:B | file:PATH (default ${DEFAULT-VALUE})")
    FlushLengths.Spec flushLength;

    @Option(names = "--seed", defaultValue = "1", description = "seed for random flush lengths (default ${DEFAULT-VALUE})")
    long seed;

    @Option(names = "--semantics", defaultValue = "model", converter = SemanticsConverter.class,
            description = "model | flush-then-merge (default ${DEFAULT-VALUE})")
    Semantics semantics;

    @Option(names = "--component-overhead", defaultValue = "0",
            description = "fixed bytes per component that merging saves (default ${DEFAULT-VALUE}: the paper's model)")
    long componentOverhead;

    @Option(names = "--checkpoints", split = ",", description = "flush counts to report, e.g. 1000,3000,5000")
    List<Long> checkpoints = new ArrayList<>();

    @Option(names = "--json", description = "print one JSON object to stdout")
    boolean json;

    @Option(names = "--csv", description = "write write amplification and component count per flush to FILE")
    Path csv;

    @Option(names = "--plot", description = "draw write amplification and component count against flushes (PNG)")
    Path plot;

    @Override
    public Integer call() throws IOException {
        if (flushes < 1) {
            throw usage("--flushes must be at least 1, got " + flushes);
        }
        long[] cps = checkpoints.stream().mapToLong(Long::longValue).toArray();
        for (long c : cps) {
            if (c < 1 || c > flushes) {
                throw usage("checkpoint " + c + " is outside 1.." + flushes);
            }
        }
        Simulator sim;
        try {
            sim = Simulator.of(policy, params, semantics, flushLength.lengths(seed))
                    .componentOverhead(componentOverhead);
        } catch (IllegalArgumentException e) {
            throw usage(e.getMessage());
        }
        SimulationResult r = sim.run(flushes, cps);
        if (json) {
            ObjectMapper mapper = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
            System.out.println(mapper.writeValueAsString(toJson(r)));
        } else {
            printTable(r);
        }
        if (csv != null) {
            writeCsv(r, csv);
        }
        if (plot != null) {
            writePlot(r, plot);
        }
        return 0;
    }

    /** {@code --flush-length}, parsed once by {@link FlushLengths.Spec#parse}; a bad spec is a usage error naming it. */
    static final class FlushLengthConverter extends ParsingConverter<FlushLengths.Spec> {
        FlushLengthConverter() {
            super(FlushLengths.Spec::parse);
        }
    }

    /** {@code --semantics}, by {@link Semantics#parse}. */
    static final class SemanticsConverter extends ParsingConverter<Semantics> {
        SemanticsConverter() {
            super(Semantics::parse);
        }
    }

    private CommandLine.ParameterException usage(String message) {
        return new CommandLine.ParameterException(spec.commandLine(), message);
    }

    static Map<String, Object> toJson(SimulationResult r) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("policy", r.policy());
        m.put("params", r.params());
        m.put("flushes", r.flushes());
        m.put("semantics", r.semantics().label());
        m.put("flushLength", r.flushLengths());
        m.put("writeAmplification", r.writeAmplification());
        m.put("avgComponentCount", r.avgComponentCount());
        m.put("maxComponentCount", r.maxComponentCount());
        List<Map<String, Object>> cps = new ArrayList<>();
        for (SimulationResult.Checkpoint c : r.checkpoints()) {
            Map<String, Object> x = new LinkedHashMap<>();
            x.put("flushes", c.flushes());
            x.put("writeAmplification", c.writeAmplification());
            x.put("avgComponentCount", c.avgComponentCount());
            cps.add(x);
        }
        m.put("checkpoints", cps);
        return m;
    }

    private static void printTable(SimulationResult r) {
        System.out.printf("policy %s %s, %d flushes (%s), %s semantics%n", r.policy(), r.params(), r.flushes(),
                r.flushLengths(), r.semantics().label());
        System.out.printf("%12s  %20s  %20s%n", "flushes", "write amplification", "avg component count");
        for (SimulationResult.Checkpoint c : r.checkpoints()) {
            System.out.printf("%12d  %20.3f  %20.3f%n", c.flushes(), c.writeAmplification(), c.avgComponentCount());
        }
        System.out.printf("%12s  %20.3f  %20.3f%n", "final", r.writeAmplification(), r.avgComponentCount());
        System.out.printf("max component count %d%n", r.maxComponentCount());
    }

    private static void writeCsv(SimulationResult r, Path file) throws IOException {
        try (PrintWriter out = new PrintWriter(Files.newBufferedWriter(file))) {
            out.println("flushes,writeAmplification,componentCount,avgComponentCount");
            for (SimulationResult.Point p : r.series()) {
                out.printf("%d,%.6f,%d,%.6f%n", p.flushes(), p.writeAmplification(), p.componentCount(),
                        p.avgComponentCount());
            }
        }
    }

    private static void writePlot(SimulationResult r, Path file) throws IOException {
        XYChart chart = new XYChartBuilder().width(1000).height(600)
                .title(r.policy() + " " + r.params() + " (" + r.semantics().label() + ")")
                .xAxisTitle("flushes").yAxisTitle("write amplification").build();
        chart.getStyler().setLegendPosition(Styler.LegendPosition.InsideNW);
        chart.setYAxisGroupTitle(1, "average component count");
        chart.getStyler().setYAxisGroupPosition(1, Styler.YAxisPosition.Right);
        double[] x = r.series().stream().mapToDouble(SimulationResult.Point::flushes).toArray();
        double[] wa = r.series().stream().mapToDouble(SimulationResult.Point::writeAmplification).toArray();
        double[] count = r.series().stream().mapToDouble(SimulationResult.Point::avgComponentCount).toArray();
        XYSeries s1 = chart.addSeries("write amplification", x, wa);
        s1.setMarker(SeriesMarkers.NONE);
        XYSeries s2 = chart.addSeries("average component count", x, count);
        s2.setMarker(SeriesMarkers.NONE);
        s2.setYAxisGroup(1);
        String name = file.toString();
        if (name.toLowerCase().endsWith(".png")) {
            name = name.substring(0, name.length() - 4);
        }
        BitmapEncoder.saveBitmap(chart, name, BitmapEncoder.BitmapFormat.PNG);
    }
}
