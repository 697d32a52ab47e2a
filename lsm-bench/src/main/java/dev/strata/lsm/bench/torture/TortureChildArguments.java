package dev.strata.lsm.bench.torture;

import dev.strata.lsm.WalSyncMode;
import dev.strata.lsm.bench.ParsingConverter;
import dev.strata.lsm.io.IoPurpose;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The command line {@link TortureRun} starts a {@link TortureChild} with, parsed once by picocli
 * into typed values: numbers, paths and enums by picocli's converters, fault kinds by
 * {@link FaultInjectingStorageIO.Kind#parse}, the policy's {@code k=v,...} list by
 * {@link PolicyChoice#parseParams} ({@code PolicyParameters.parseAssignments}; the policy itself
 * resolves the values when the child builds its {@code StoreConfig}). A bad value is refused
 * before anything is opened, with a {@link CommandLine.ParameterException} naming the option and
 * the value. Immutable.
 *
 * @param dir           the store's directory
 * @param state         the expected-state file
 * @param failureFile   where the child writes why it failed
 * @param seed          the seed of every random choice the child makes
 * @param policy        the merge policy's name
 * @param params        the merge policy's raw parameters, in the order given
 * @param walMode       the WAL mode
 * @param memtableBytes the memtable size
 * @param faultRate     the chance, in [0, 1], that a write site starts a burst of faults
 * @param faultKinds    the faults injected into the files of {@code faultTargets} other than the WAL
 * @param walFaultKinds the faults injected into WAL files, when {@code faultTargets} holds the WAL
 * @param faultTargets  the files that see faults, by purpose
 */
record TortureChildArguments(Path dir, Path state, Path failureFile, long seed, String policy,
                             Map<String, String> params, WalSyncMode walMode, long memtableBytes, double faultRate,
                             Set<FaultInjectingStorageIO.Kind> faultKinds,
                             Set<FaultInjectingStorageIO.Kind> walFaultKinds, Set<IoPurpose> faultTargets) {

    /**
     * Parses a child's command line ({@code --name value} pairs; an empty list option, such as
     * {@code --fault-kinds}, is left out: it defaults to none).
     *
     * @throws CommandLine.ParameterException naming the option and the bad value, a missing
     *     required option or an unknown one
     */
    static TortureChildArguments parse(String... argv) {
        Options o = new Options();
        CommandLine cli = new CommandLine(o).setCaseInsensitiveEnumValuesAllowed(true);
        cli.parseArgs(argv);
        if (!(o.faultRate >= 0 && o.faultRate <= 1)) {
            throw new CommandLine.ParameterException(cli, "Invalid value for option '--fault-rate': " + o.faultRate
                    + " is not in [0, 1]");
        }
        Map<String, String> params;
        try {
            params = PolicyChoice.parseParams(o.params);
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(cli, "Invalid value for option '--params': " + e.getMessage());
        }
        return new TortureChildArguments(o.dir, o.state, o.failureFile, o.seed, o.policy, params, o.walMode,
                o.memtableBytes, o.faultRate, set(o.faultKinds), set(o.walFaultKinds), targets(o.faultTargets));
    }

    /** The command line of these arguments, as {@link #parse} reads it back. */
    List<String> toArgs() {
        List<String> a = new ArrayList<>(List.of("--dir", dir.toString(), "--state", state.toString(),
                "--failure-file", failureFile.toString(), "--seed", Long.toString(seed), "--policy", policy,
                "--params", PolicyChoice.paramList(params), "--wal-mode", walMode.name().toLowerCase(java.util.Locale.ROOT),
                "--memtable-bytes", Long.toString(memtableBytes), "--fault-rate", Double.toString(faultRate)));
        addList(a, "--fault-kinds", faultKinds);
        addList(a, "--wal-fault-kinds", walFaultKinds);
        addList(a, "--fault-targets", faultTargets);
        return a;
    }

    private static void addList(List<String> args, String option, Set<? extends Enum<?>> values) {
        if (!values.isEmpty()) {
            args.add(option);
            args.add(values.stream().map(v -> v.name().toLowerCase(java.util.Locale.ROOT))
                    .collect(java.util.stream.Collectors.joining(",")));
        }
    }

    private static Set<FaultInjectingStorageIO.Kind> set(List<FaultInjectingStorageIO.Kind> kinds) {
        Set<FaultInjectingStorageIO.Kind> s = EnumSet.noneOf(FaultInjectingStorageIO.Kind.class);
        s.addAll(kinds);
        return s;
    }

    private static Set<IoPurpose> targets(List<IoPurpose> purposes) {
        Set<IoPurpose> s = EnumSet.noneOf(IoPurpose.class);
        s.addAll(purposes);
        return s;
    }

    /** The picocli model of the command line; {@link #parse} turns it into the record. */
    @Command(name = "torture-child")
    static final class Options {
        @Option(names = "--dir", required = true)
        Path dir;

        @Option(names = "--state", required = true)
        Path state;

        @Option(names = "--failure-file", required = true)
        Path failureFile;

        @Option(names = "--seed", defaultValue = "1")
        long seed;

        @Option(names = "--policy", required = true)
        String policy;

        @Option(names = "--params", defaultValue = "")
        String params;

        @Option(names = "--wal-mode", defaultValue = "async")
        WalSyncMode walMode;

        @Option(names = "--memtable-bytes", defaultValue = "65536")
        long memtableBytes;

        @Option(names = "--fault-rate", defaultValue = "0")
        double faultRate;

        @Option(names = "--fault-kinds", split = ",", converter = KindConverter.class)
        List<FaultInjectingStorageIO.Kind> faultKinds = new ArrayList<>();

        @Option(names = "--wal-fault-kinds", split = ",", converter = KindConverter.class)
        List<FaultInjectingStorageIO.Kind> walFaultKinds = new ArrayList<>();

        @Option(names = "--fault-targets", split = ",")
        List<IoPurpose> faultTargets = new ArrayList<>();
    }

    /** A fault kind, by {@link FaultInjectingStorageIO.Kind#parse}. */
    static final class KindConverter extends ParsingConverter<FaultInjectingStorageIO.Kind> {
        KindConverter() {
            super(FaultInjectingStorageIO.Kind::parse);
        }
    }
}
