package dev.strata.lsm.bench.torture;

import dev.strata.lsm.WalSyncMode;
import dev.strata.lsm.io.IoPurpose;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link TortureChildArguments}: the child's command line is parsed once into typed values, the
 * parent's command line for it reads back to the same values, and a bad value is refused by name.
 */
class TortureChildArgumentsTest {
    private static final TortureChildArguments ARGS = new TortureChildArguments(Path.of("/tmp/store"),
            Path.of("/tmp/state"), Path.of("/tmp/failure"), -42, "binomial", Map.of("k", "6"), WalSyncMode.NONE,
            1L << 16, 0.25, EnumSet.of(FaultInjectingStorageIO.Kind.EIO, FaultInjectingStorageIO.Kind.TORN),
            EnumSet.noneOf(FaultInjectingStorageIO.Kind.class), EnumSet.of(IoPurpose.WAL, IoPurpose.MERGE));

    @Test
    void theParentsCommandLineReadsBackToTheSameValues() {
        assertEquals(ARGS, TortureChildArguments.parse(ARGS.toArgs().toArray(String[]::new)));
    }

    @Test
    void leftOutOptionsTakeTheirDefaults() {
        TortureChildArguments a = TortureChildArguments.parse("--dir", "d", "--state", "s", "--failure-file", "f",
                "--policy", "size-tiered");
        assertEquals(1, a.seed());
        assertEquals(WalSyncMode.ASYNC, a.walMode());
        assertEquals(65536, a.memtableBytes());
        assertEquals(0.0, a.faultRate());
        assertEquals(Map.of(), a.params());
        assertTrue(a.faultKinds().isEmpty() && a.walFaultKinds().isEmpty() && a.faultTargets().isEmpty());
    }

    @Test
    void aBadValueIsRefusedNamingTheOptionAndTheValue() {
        assertRefused("--seed", "x1", "--seed", "'x1'");
        assertRefused("--memtable-bytes", "64k", "--memtable-bytes", "'64k'");
        assertRefused("--fault-rate", "often", "--fault-rate", "'often'");
        assertRefused("--fault-rate", "1.5", "--fault-rate", "1.5 is not in [0, 1]");
        assertRefused("--wal-mode", "fsync", "--wal-mode", "'fsync'");
        assertRefused("--fault-kinds", "eio,flood", "--fault-kinds", "unknown fault kind 'flood'");
        assertRefused("--fault-targets", "wal,disk", "--fault-targets", "'disk'");
        assertRefused("--params", "k=6,k=7", "--params", "parameter 'k' is given twice");
        assertRefused("--params", "k", "--params", "bad parameter 'k'");
        assertRefused("--colour", "blue", "--colour");
    }

    @Test
    void aMissingRequiredOptionIsRefusedByName() {
        CommandLine.ParameterException e = assertThrows(CommandLine.ParameterException.class,
                () -> TortureChildArguments.parse("--dir", "d", "--state", "s", "--failure-file", "f"));
        assertTrue(e.getMessage().contains("--policy"), e.getMessage());
    }

    private static void assertRefused(String option, String value, String... parts) {
        List<String> argv = new ArrayList<>(List.of("--dir", "d", "--state", "s", "--failure-file", "f", "--policy",
                "size-tiered"));
        argv.add(option);
        argv.add(value);
        CommandLine.ParameterException e = assertThrows(CommandLine.ParameterException.class,
                () -> TortureChildArguments.parse(argv.toArray(String[]::new)));
        for (String p : parts) {
            assertTrue(e.getMessage().contains(p), "'" + e.getMessage() + "' should contain '" + p + "'");
        }
    }
}
