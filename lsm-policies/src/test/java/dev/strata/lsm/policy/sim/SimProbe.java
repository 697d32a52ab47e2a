package dev.strata.lsm.policy.sim;

import java.util.Map;

/** Manual probe: prints model-semantics figures in the shape of the paper's Table I. */
public final class SimProbe {
    public static void main(String[] args) {
        long[] cps = {1000, 3000, 5000, 10000, 20000};
        for (String p : new String[] {"bigtable", "binomial", "exploring", "minlatency", "constant"}) {
            for (int k : new int[] {3, 4, 5, 6, 7, 8, 10}) {
                SimulationResult r = Simulator.of(p, Map.of("k", String.valueOf(k)), Semantics.MODEL,
                        FlushLengths.parse("uniform", 1)).run(20000, cps);
                StringBuilder sb = new StringBuilder(p + " k=" + k);
                for (SimulationResult.Checkpoint c : r.checkpoints()) {
                    sb.append(String.format("  %.2f/%.2f", c.writeAmplification(), c.avgComponentCount()));
                }
                System.out.println(sb);
            }
        }
        long t0 = System.nanoTime();
        SimulationResult r = Simulator.of("binomial", Map.of("k", "10"), Semantics.MODEL,
                FlushLengths.parse("uniform", 1)).run(1_000_000, new long[0]);
        System.out.printf("binomial k=10 1e6 flushes: WA %.3f in %.2f s%n", r.writeAmplification(),
                (System.nanoTime() - t0) / 1e9);
    }
}
