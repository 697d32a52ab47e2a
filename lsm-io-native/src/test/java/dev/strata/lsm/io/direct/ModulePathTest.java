package dev.strata.lsm.io.direct;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The module boundary (docs/engine.md, "Modules"): the jars of lsm-core, lsm-policies and
 * lsm-io-native as modules. An application module compiled against them on the module path
 * opens a store configured in XML with a policy of lsm-policies and the native storage IO,
 * both found through their modules' {@code provides}, and reads its data back in a JVM
 * started with {@code java --module-path ... -m}; a module that imports an engine or sstable
 * class does not compile. (The other tests run on the class path.)
 */
class ModulePathTest {
    /** The module path: the three Strata modules and their dependencies, none of the test tools. */
    private static String modulePath;

    @BeforeAll
    static void modulePath() {
        String cp = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        List<String> entries = new ArrayList<>();
        for (String e : cp.split(File.pathSeparator)) {
            String n = e.replace('\\', '/').toLowerCase(Locale.ROOT);
            if (e.isEmpty() || !Files.exists(Path.of(e)) || n.endsWith("/test-classes") || n.contains("junit")
                    || n.contains("opentest4j") || n.contains("apiguardian") || n.contains("lsm-testkit")
                    || n.contains("surefire")) {
                continue;
            }
            entries.add(e);
        }
        modulePath = String.join(File.pathSeparator, entries);
        assertTrue(entries.stream().anyMatch(e -> e.contains("lsm-core")), "lsm-core on the path: " + modulePath);
        assertTrue(entries.stream().anyMatch(e -> e.contains("lsm-policies")), "lsm-policies on the path: " + modulePath);
    }

    @Test
    void aModulePathApplicationOpensAStoreWithAPolicyFoundThroughProvides(@TempDir Path tmp) throws Exception {
        Path src = tmp.resolve("src");
        write(src.resolve("module-info.java"), """
                module strata.modulecheck {
                    requires dev.strata.lsm;
                }
                """);
        write(src.resolve("modulecheck/Main.java"), """
                package modulecheck;

                import dev.strata.lsm.LsmStore;
                import dev.strata.lsm.StoreConfig;
                import dev.strata.lsm.io.StorageIOs;
                import dev.strata.lsm.mergeop.MergeOperators;
                import dev.strata.lsm.policy.MergePolicies;

                import java.nio.charset.StandardCharsets;
                import java.nio.file.Path;
                import java.util.Arrays;

                public final class Main {
                    public static void main(String[] args) throws Exception {
                        Path xml = Path.of(args[0]);
                        Path dir = Path.of(args[1]);
                        System.out.println("policy binomial from "
                                + MergePolicies.find("binomial").getClass().getModule().getName());
                        System.out.println("storage IO native from "
                                + StorageIOs.find("native").getClass().getModule().getName());
                        System.out.println("merge operator uint64add from "
                                + MergeOperators.find("uint64add").getClass().getModule().getName());
                        StoreConfig config = StoreConfig.fromXml(xml);
                        int n = 3000;
                        try (LsmStore store = LsmStore.open(dir, config)) {
                            for (int i = 0; i < n; i++) {
                                store.put(key(i), ("value-" + i).getBytes(StandardCharsets.UTF_8));
                            }
                            store.flush();
                        }
                        int found = 0;
                        try (LsmStore store = LsmStore.open(dir, config)) {
                            for (int i = 0; i < n; i++) {
                                if (Arrays.equals(("value-" + i).getBytes(StandardCharsets.UTF_8), store.get(key(i)))) {
                                    found++;
                                }
                            }
                            System.out.println("policy of the store " + store.config().mergePolicy());
                        }
                        System.out.println("read back " + found + " of " + n);
                        System.out.println("LsmStore in module " + LsmStore.class.getModule().getName());
                    }

                    private static byte[] key(int i) {
                        return String.format("key-%08d", i).getBytes(StandardCharsets.UTF_8);
                    }
                }
                """);
        Path classes = tmp.resolve("classes");
        List<Diagnostic<? extends JavaFileObject>> errors = compile(src, classes);
        assertTrue(errors.isEmpty(), "the application compiles on the module path: " + errors);

        Path xml = tmp.resolve("store.xml");
        write(xml, """
                <store>
                  <memtable bytes="64KiB"/>
                  <mergePolicy name="binomial"/>
                  <mergeOperator name="uint64add"/>
                  <storageIO name="native"><param name="direct" value="false"/></storageIO>
                </store>
                """);
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        ProcessBuilder pb = new ProcessBuilder(java, "-Xmx256m", "--module-path",
                classes + File.pathSeparator + modulePath, "-m", "strata.modulecheck/modulecheck.Main",
                xml.toString(), tmp.resolve("db").toString()).redirectErrorStream(true);
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "the application finished");
        assertEquals(0, p.exitValue(), "exit status; output:\n" + out);
        List<String> lines = out.lines().toList();
        assertTrue(lines.contains("policy binomial from dev.strata.lsm.policies"), out);
        assertTrue(lines.contains("storage IO native from dev.strata.lsm.io.direct"), out);
        assertTrue(lines.contains("merge operator uint64add from dev.strata.lsm"), out);
        assertTrue(lines.contains("policy of the store binomial"), out);
        assertTrue(lines.contains("read back 3000 of 3000"), out);
        assertTrue(lines.contains("LsmStore in module dev.strata.lsm"), out);
    }

    @Test
    void aModuleCannotCompileAgainstTheEngineOrTheTables(@TempDir Path tmp) throws IOException {
        // lsm-core's internals, and one it exports to lsm-policies alone (read through requires transitive).
        List<String> internals = List.of("dev.strata.lsm.engine.Engine", "dev.strata.lsm.sstable.SSTableWriter",
                "dev.strata.lsm.version.Version", "dev.strata.lsm.merge.OutputCutter");
        Path src = tmp.resolve("src");
        write(src.resolve("module-info.java"), """
                module strata.intruder {
                    requires dev.strata.lsm.policies;
                }
                """);
        write(src.resolve("intruder/Intruder.java"), """
                package intruder;

                public final class Intruder {
                    public static String names() {
                        return dev.strata.lsm.LsmStore.class.getName() + %s;
                    }
                }
                """.formatted(internals.stream().map(c -> " + " + c + ".class.getName()").collect(Collectors.joining())));
        List<Diagnostic<? extends JavaFileObject>> errors = compile(src, tmp.resolve("classes"));
        String messages = errors.stream().map(d -> d.getMessage(Locale.ROOT)).collect(Collectors.joining("\n"));
        assertEquals(internals.size(), errors.size(), "one error per internal class, none for LsmStore: " + messages);
        for (String internal : internals) {
            String pkg = internal.substring(0, internal.lastIndexOf('.'));
            assertTrue(messages.contains("package " + pkg + " is not visible"), pkg + " in " + messages);
        }
    }

    private static List<Diagnostic<? extends JavaFileObject>> compile(Path src, Path out) throws IOException {
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        assertNotNull(javac, "the tests run on a JDK");
        Files.createDirectories(out);
        DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
        try (StandardJavaFileManager files = javac.getStandardFileManager(diagnostics, Locale.ROOT, StandardCharsets.UTF_8);
             var sources = Files.walk(src)) {
            List<File> java = sources.filter(f -> f.toString().endsWith(".java")).map(Path::toFile).toList();
            List<String> options = List.of("--release", "17", "--module-path", modulePath, "-d", out.toString());
            javac.getTask(null, files, diagnostics, options, null, files.getJavaFileObjectsFromFiles(java)).call();
        }
        return diagnostics.getDiagnostics().stream().filter(d -> d.getKind() == Diagnostic.Kind.ERROR).toList();
    }

    private static void write(Path file, String text) throws IOException {
        Files.createDirectories(file.getParent());
        Files.writeString(file, text);
    }
}
