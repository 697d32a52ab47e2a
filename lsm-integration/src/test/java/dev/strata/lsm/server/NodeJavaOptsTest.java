package dev.strata.lsm.server;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * {@code lsm-integration/node-java-opts}, the JVM options {@code ./strata-server} and the
 * measuring scripts run the node with: a 1 GiB heap and the JVM's default JIT, whatever the
 * number of CPUs (C1 only made short runs faster on two CPUs and a warm node slower:
 * docs/server.md, "JVM options").
 */
class NodeJavaOptsTest {
    @Test
    void aOneGibHeapAndTheDefaultJit() throws Exception {
        assumeTrue(Files.isExecutable(Path.of("/bin/bash")), "needs bash");
        Path script = Path.of("node-java-opts");
        assumeTrue(Files.isRegularFile(script), "run from the lsm-integration module directory");
        assertEquals("-Xms1g -Xmx1g", run("/bin/bash", script.toString()));
    }

    /** Single-CPU affinity changes nothing: the options do not depend on the CPUs. */
    @Test
    void oneCpuGetsTheSameOptions() throws Exception {
        assumeTrue(Files.isExecutable(Path.of("/usr/bin/taskset")), "needs taskset");
        assumeTrue(Files.isRegularFile(Path.of("node-java-opts")), "run from the lsm-integration module directory");
        assertEquals("-Xms1g -Xmx1g", run("/usr/bin/taskset", "-c", "0", "/bin/bash", "node-java-opts"));
    }

    private static String run(String... cmd) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.US_ASCII).trim();
        assertEquals(0, p.waitFor(), out);
        return out;
    }
}
