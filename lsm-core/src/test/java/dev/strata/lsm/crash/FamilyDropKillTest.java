package dev.strata.lsm.crash;

import dev.strata.lsm.ColumnFamily;
import dev.strata.lsm.Cursor;
import dev.strata.lsm.LsmStore;
import dev.strata.lsm.version.FamilyCatalog;
import org.junit.jupiter.api.condition.DisabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * SIGKILLs a process inside {@code dropColumnFamily} ({@link FamilyDropChild}): held before
 * the catalog records the drop, the family comes back whole — its tables and its writes only
 * the WAL held; held after the drop is durable but before any file of it is deleted, the
 * family is gone, its directory is deleted at open, and the other families are untouched.
 */
@DisabledOnOs(OS.WINDOWS)
class FamilyDropKillTest {
    @TempDir
    Path tmp;

    @ParameterizedTest
    @ValueSource(strings = {"before", "after"})
    void aKillDuringADropLeavesTheFamilyWholeOrGone(String when) throws Exception {
        Path dir = tmp.resolve("store");
        String java = ProcessHandle.current().info().command().orElse(
                Path.of(System.getProperty("java.home"), "bin", "java").toString());
        Path stderr = tmp.resolve("child.err");
        ProcessBuilder pb = new ProcessBuilder(java, "-Xmx192m", "-XX:+UseSerialGC", "-XX:-UsePerfData",
                "-cp", System.getProperty("java.class.path"), FamilyDropChild.class.getName(), dir.toString(), when);
        pb.redirectError(stderr.toFile());
        Process p = pb.start();
        try (BufferedReader in = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.US_ASCII))) {
            p.getOutputStream().close();
            String line = in.readLine();
            assertEquals("HELD", line, "the child did not stop inside the drop; stderr:\n" + Files.readString(stderr));
            assertTrue(p.toHandle().destroyForcibly());
            assertTrue(p.waitFor(30, TimeUnit.SECONDS));
            assertEquals(128 + 9, p.exitValue(), "killed by SIGKILL");
        } finally {
            if (p.isAlive()) {
                p.destroyForcibly();
            }
        }
        Path doomedDir = FamilyCatalog.familyDirectory(dir, 1);
        boolean hadTables;
        try (var files = Files.list(doomedDir)) {
            hadTables = files.anyMatch(f -> f.getFileName().toString().endsWith(".sst"));
        }
        assertTrue(hadTables, "the doomed family's tables are still on disk when the kill lands");
        try (LsmStore store = LsmStore.open(dir)) {
            List<String> names = store.listColumnFamilies().stream().map(ColumnFamily::name).toList();
            ColumnFamily keep = store.columnFamily("keep");
            for (int i = 0; i < FamilyDropChild.KEYS; i++) {
                assertArrayEquals(FamilyDropChild.value(i, "keep"), store.get(keep, FamilyDropChild.key(i)));
                assertArrayEquals(FamilyDropChild.value(i, "default"), store.get(FamilyDropChild.key(i)));
            }
            if (when.equals("before")) {
                assertEquals(List.of("default", "doomed", "keep"), names, "the drop was not recorded");
                ColumnFamily doomed = store.columnFamily("doomed");
                int n = 0;
                try (Cursor c = store.scan(doomed, null, null)) {
                    while (c.next()) {
                        n++;
                    }
                }
                assertEquals(FamilyDropChild.KEYS, n, "the family is whole: tables and WAL-only writes");
                for (int i = 0; i < FamilyDropChild.KEYS; i++) {
                    assertArrayEquals(FamilyDropChild.value(i, "doomed"), store.get(doomed, FamilyDropChild.key(i)));
                }
            } else {
                assertEquals(List.of("default", "keep"), names, "the drop was durable");
                assertFalse(Files.exists(doomedDir), "the dropped family's directory is deleted at open");
            }
        }
    }
}
