package dev.strata.lsm;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The README's embedding example compiles and runs, and its XML example is a valid configuration. */
class ReadmeExampleTest {
    @TempDir
    Path tmp;

    private static String readme() throws Exception {
        Path p = Path.of("..", "README.md");
        if (!Files.exists(p)) {
            p = Path.of("README.md");
        }
        return Files.readString(p);
    }

    private static String block(String text, String lang) {
        return block(text, lang, "");
    }

    /** The first ```lang block of the README that contains {@code marker}. */
    private static String block(String text, String lang, String marker) {
        Matcher m = Pattern.compile("```" + lang + "\\n(.*?)```", Pattern.DOTALL).matcher(text);
        while (m.find()) {
            if (m.group(1).contains(marker)) {
                return m.group(1);
            }
        }
        throw new AssertionError("README has no ```" + lang + " block containing " + marker);
    }

    @Test
    void embeddingExampleCompilesAndRuns() throws Exception {
        String source = block(readme(), "java");
        Path src = tmp.resolve("src");
        Files.createDirectories(src);
        Files.writeString(src.resolve("EmbeddingExample.java"), source);
        Path classes = Files.createDirectories(tmp.resolve("classes"));
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        ByteArrayOutputStream diagnostics = new ByteArrayOutputStream();
        int rc = javac.run(null, diagnostics, diagnostics, "-d", classes.toString(),
                "-cp", System.getProperty("java.class.path"), src.resolve("EmbeddingExample.java").toString());
        assertEquals(0, rc, "javac: " + diagnostics.toString(StandardCharsets.UTF_8));

        PrintStream original = System.out;
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (URLClassLoader loader = new URLClassLoader(new URL[] {classes.toUri().toURL()},
                getClass().getClassLoader())) {
            System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
            Method main = loader.loadClass("EmbeddingExample").getMethod("main", String[].class);
            main.invoke(null, (Object) new String[] {tmp.resolve("data").toString()});
        } finally {
            System.setOut(original);
        }
        String printed = out.toString(StandardCharsets.UTF_8);
        assertTrue(printed.contains("snapshot still sees Edsger"), printed);
        assertTrue(printed.contains("session:1 after deleteRange: null"), printed);
        assertTrue(printed.contains("user:1 = Ada") && printed.contains("user:2 = Grace"), printed);
        assertTrue(!printed.contains("user:3 = Edsger"), printed);
        assertTrue(printed.contains("StoreStats[flushes=1"), printed);
    }

    @Test
    void xmlExampleIsAValidConfiguration() throws Exception {
        Path xml = tmp.resolve("store.xml");
        Files.writeString(xml, block(readme(), "xml", "<store>"));
        StoreConfig config = StoreConfig.fromXml(xml);
        assertEquals("size-tiered", config.mergePolicy());
        assertEquals("4", config.mergePolicyParams().get("fanout"));
        assertEquals(64L << 20, config.memtableBytes());
    }
}
