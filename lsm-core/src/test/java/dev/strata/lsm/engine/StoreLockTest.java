package dev.strata.lsm.engine;

import dev.strata.lsm.LsmStore;
import dev.strata.lsm.StoreException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.DisabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The directory lock: a second open of an open store fails in this process without
 * touching the first store's lock, so another process is still kept out; after close the
 * store opens again, here and elsewhere.
 */
class StoreLockTest {
    @TempDir
    Path tmp;

    /** Runs {@link OpenProbe} on {@code dir} in a fresh JVM and returns its report. */
    private static String openInAnotherProcess(Path dir) throws IOException, InterruptedException {
        String java = ProcessHandle.current().info().command().orElse(
                Path.of(System.getProperty("java.home"), "bin", "java").toString());
        Process p = new ProcessBuilder(java, "-Xmx64m", "-XX:+UseSerialGC", "-XX:-UsePerfData",
                "-cp", System.getProperty("java.class.path"), OpenProbe.class.getName(), dir.toString())
                .redirectErrorStream(true).start();
        p.getOutputStream().close();
        byte[] out = p.getInputStream().readAllBytes();
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "the probe process did not exit");
        return new String(out, StandardCharsets.UTF_8).trim();
    }

    @Test
    // Another process's open is refused through fcntl locks, which Windows does not have.
    @DisabledOnOs(OS.WINDOWS)
    void aFailedSecondOpenInTheSameProcessKeepsTheLock() throws Exception {
        Path dir = tmp.resolve("store");
        try (LsmStore store = LsmStore.open(dir)) {
            store.put("k".getBytes(), "v".getBytes());
            StoreException e = assertThrows(StoreException.class, () -> LsmStore.open(dir));
            assertTrue(e.getMessage().contains("already open in this process"), e.getMessage());
            // The same directory under another spelling is the same store.
            Path other = tmp.resolve("x").resolve("..").resolve("store");
            Files.createDirectories(tmp.resolve("x"));
            e = assertThrows(StoreException.class, () -> LsmStore.open(other));
            assertTrue(e.getMessage().contains("already open in this process"), e.getMessage());
            Path link = Files.createSymbolicLink(tmp.resolve("link"), dir);
            e = assertThrows(StoreException.class, () -> LsmStore.open(link));
            assertTrue(e.getMessage().contains("already open in this process"), e.getMessage());

            String report = openInAnotherProcess(dir);
            assertTrue(report.startsWith("REFUSED") && report.contains("another process"),
                    "another process could open the store while it was open here: " + report);
            store.put("k2".getBytes(), "v2".getBytes());
            assertArrayEquals("v".getBytes(), store.get("k".getBytes()));
        }
        try (LsmStore again = LsmStore.open(dir)) {
            assertArrayEquals("v2".getBytes(), again.get("k2".getBytes()));
        }
        String report = openInAnotherProcess(dir);
        assertTrue(report.startsWith("OPENED"), "closed store could not be opened by another process: " + report);
    }
}
