package dev.strata.lsm.server;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * {@code lsm-integration/node-java-opts}, the JVM options {@code ./strata-server} and the
 * measuring scripts run the node with: a 1 GiB heap, and C1 only on a machine of at most two
 * CPUs (docs/server.md, "Running it").
 */
class NodeJavaOptsTest {
    @Test
    void heapAlwaysAndC1OnlyOnTwoCpusOrFewer() throws Exception {
        assumeTrue(Files.isExecutable(Path.of("/bin/bash")), "needs bash");
        Path script = Path.of("node-java-opts");
        assumeTrue(Files.isRegularFile(script), "run from the lsm-integration module directory");
        int cpus = Integer.parseInt(run("nproc"));
        List<String> expected = cpus <= 2
                ? List.of("-Xms1g", "-Xmx1g", "-XX:TieredStopAtLevel=1")
                : List.of("-Xms1g", "-Xmx1g");
        assertEquals(expected, List.of(run("/bin/bash", script.toString()).split(" ")));
    }

    /** Single-CPU affinity: the script must see one CPU and choose C1 only. */
    @Test
    void oneCpuGetsC1Only() throws Exception {
        assumeTrue(Files.isExecutable(Path.of("/usr/bin/taskset")), "needs taskset");
        assertEquals("-Xms1g -Xmx1g -XX:TieredStopAtLevel=1",
                run("/usr/bin/taskset", "-c", "0", "/bin/bash", "node-java-opts"));
    }

    private static String run(String... cmd) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.US_ASCII).trim();
        assertEquals(0, p.waitFor(), out);
        return out;
    }
}
