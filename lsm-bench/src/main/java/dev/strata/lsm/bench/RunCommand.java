package dev.strata.lsm.bench;

import dev.strata.lsm.bench.workload.WorkloadOptions;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * {@code run}: a workload list on one engine in a fresh directory — throughput, latency
 * percentiles per operation, write and space amplification and the engine's own counters.
 */
@Command(name = "run", mixinStandardHelpOptions = true,
        description = "Run workloads (db_bench and YCSB) on one engine and report throughput, latency and "
                + "amplification.")
public final class RunCommand implements Callable<Integer> {

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Option(names = "--engine", defaultValue = "strata",
            description = "strata | rocksdb | leveldb (default ${DEFAULT-VALUE})")
    String engine;

    @Mixin
    WorkloadOptions options;

    @Override
    public Integer call() throws IOException, InterruptedException {
        return options.call(spec, List.of(engine), 1);
    }
}
