package dev.strata.lsm.crash;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * A child JVM of a kill test: started on the test's class path with a main class and
 * arguments, its stdout read line by line (the child's protocol), killed with SIGKILL by
 * {@link #kill}. Used from one test thread; the lines are collected by a reader thread.
 */
final class KilledChild implements AutoCloseable {
    /** Exit status of a process killed by SIGKILL, as Process reports it. */
    private static final int SIGKILL_EXIT = 128 + 9;

    private final Process process;
    private final Path stderr;
    private final List<String> lines = new ArrayList<>();
    private final Thread reader;
    private boolean eof;

    private KilledChild(Process process, Path stderr) {
        this.process = process;
        this.stderr = stderr;
        this.reader = new Thread(this::readLines, "killed-child-stdout");
        reader.setDaemon(true);
        reader.start();
    }

    /** Starts {@code main} with {@code args}; its stderr goes to {@code stderr}. */
    static KilledChild start(Class<?> main, Path stderr, String... args) throws IOException {
        String java = ProcessHandle.current().info().command().orElse(
                Path.of(System.getProperty("java.home"), "bin", "java").toString());
        List<String> command = new ArrayList<>(List.of(java, "-Xmx256m", "-XX:+UseSerialGC", "-XX:-UsePerfData",
                "-XX:TieredStopAtLevel=1", "-cp", System.getProperty("java.class.path"), main.getName()));
        command.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(command);
        pb.redirectError(stderr.toFile());
        Process p = pb.start();
        p.getOutputStream().close();
        return new KilledChild(p, stderr);
    }

    private void readLines() {
        try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(),
                StandardCharsets.US_ASCII))) {
            String line;
            while ((line = in.readLine()) != null) {
                synchronized (this) {
                    lines.add(line);
                    notifyAll();
                }
            }
        } catch (IOException e) {
            // the kill ends the stream
        } finally {
            synchronized (this) {
                eof = true;
                notifyAll();
            }
        }
    }

    /** Every line the child printed so far. */
    synchronized List<String> lines() {
        return List.copyOf(lines);
    }

    /**
     * Waits until a line after the first {@code from} lines matches; returns its index.
     *
     * @throws AssertionError if the child ends or {@code timeoutMs} passes first (with its stderr)
     */
    synchronized int await(int from, Predicate<String> match, long timeoutMs, String what) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        int i = from;
        while (true) {
            for (; i < lines.size(); i++) {
                if (match.test(lines.get(i))) {
                    return i;
                }
            }
            long left = deadline - System.nanoTime();
            if (eof || left <= 0) {
                fail("child: " + what + " did not come (" + (eof ? "the child ended" : "timed out") + "); last lines "
                        + lines.subList(Math.max(0, lines.size() - 5), lines.size()) + "; stderr:\n" + stderrText());
            }
            wait(Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)));
        }
    }

    /** SIGKILLs the child, which must still be running; returns every line it printed. */
    List<String> kill() throws Exception {
        assertTrue(process.isAlive(), "the child died on its own; stderr:\n" + stderrText());
        assertTrue(process.toHandle().destroyForcibly(), "could not SIGKILL the child");
        assertTrue(process.waitFor(30, TimeUnit.SECONDS), "the killed child did not end");
        assertEquals(SIGKILL_EXIT, process.exitValue(), "the child was not killed by us; stderr:\n" + stderrText());
        reader.join(TimeUnit.SECONDS.toMillis(30));
        synchronized (this) {
            assertTrue(eof, "the child's stdout did not end");
        }
        return lines();
    }

    private String stderrText() {
        try {
            return Files.readString(stderr);
        } catch (IOException e) {
            return "(cannot read " + stderr + ": " + e + ")";
        }
    }

    @Override
    public void close() throws InterruptedException {
        if (process.isAlive()) {
            process.destroyForcibly();
            process.waitFor(30, TimeUnit.SECONDS);
        }
    }
}
