package dev.strata.lsm.bench;

import dev.strata.lsm.policy.sim.FlushLengths;
import dev.strata.lsm.policy.sim.Semantics;
import dev.strata.lsm.policy.sim.SimulationResult;
import dev.strata.lsm.policy.sim.Simulator;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

/**
 * {@code policy-table}: the shape of Table I of the bounded-depth paper — write
 * amplification and average component count after 1,000 … 20,000 uniform flushes for each
 * policy and k — from the simulator (model semantics), beside the paper's observed
 * AsterixDB figures, as a Markdown table.
 */
@Command(name = "policy-table", mixinStandardHelpOptions = true,
        description = "Simulated Table I of the bounded-depth paper beside its observed figures (Markdown).")
public final class PolicyTableCommand implements Callable<Integer> {

    @Option(names = "--policies", split = ",", defaultValue = "bigtable,binomial,exploring,minlatency",
            description = "policies (default ${DEFAULT-VALUE})")
    List<String> policies;

    @Option(names = "--k", split = ",", defaultValue = "3,4,5,6,7,8,10", description = "depth bounds (default ${DEFAULT-VALUE})")
    List<Integer> ks;

    @Option(names = "--checkpoints", split = ",", defaultValue = "1000,3000,5000,10000,20000",
            description = "flush counts (default ${DEFAULT-VALUE})")
    List<Long> checkpoints;

    /** Paper figures keyed by "policy,k,n": {write amplification, average count}, or absent. */
    static Map<String, double[]> paperTable() throws IOException {
        Map<String, double[]> m = new HashMap<>();
        try (BufferedReader in = new BufferedReader(new InputStreamReader(
                PolicyTableCommand.class.getResourceAsStream("paper-table-1.csv"), StandardCharsets.UTF_8))) {
            for (String line = in.readLine(); line != null; line = in.readLine()) {
                if (line.startsWith("#") || line.startsWith("policy,")) {
                    continue;
                }
                String[] f = line.split(",", -1);
                if (!f[3].isEmpty()) {
                    m.put(f[0] + "," + f[1] + "," + f[2], new double[] {Double.parseDouble(f[3]), Double.parseDouble(f[4])});
                }
            }
        }
        return m;
    }

    @Override
    public Integer call() throws IOException {
        Map<String, double[]> paper = paperTable();
        long[] cps = checkpoints.stream().mapToLong(Long::longValue).sorted().toArray();
        long flushes = cps[cps.length - 1];
        StringBuilder header = new StringBuilder("| policy | k |");
        StringBuilder rule = new StringBuilder("|---|---|");
        for (long n : cps) {
            header.append(" n=").append(n).append(" |");
            rule.append("---|");
        }
        System.out.println("Each cell: simulated WA / observed WA; simulated / observed average component count.");
        System.out.println();
        System.out.println(header);
        System.out.println(rule);
        for (String policy : policies) {
            for (int k : ks) {
                SimulationResult r = Simulator.of(policy, Map.of("k", String.valueOf(k)), Semantics.MODEL,
                        FlushLengths.parse("uniform", 0)).run(flushes, cps);
                StringBuilder row = new StringBuilder("| ").append(policy).append(" | ").append(k).append(" |");
                for (SimulationResult.Checkpoint c : r.checkpoints()) {
                    double[] p = paper.get(policy + "," + k + "," + c.flushes());
                    row.append(String.format(" %.2f / %s; %.2f / %s |", c.writeAmplification(),
                            p == null ? "–" : String.format("%.2f", p[0]), c.avgComponentCount(),
                            p == null ? "–" : String.format("%.2f", p[1])));
                }
                System.out.println(row);
            }
        }
        return 0;
    }
}
