package dev.strata.lsm.bench;

import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/**
 * Captures {@code System.out} and {@code System.err} around each test, for commands that
 * print. Use with {@code @RegisterExtension final StandardStreams streams = new StandardStreams();}.
 */
public final class StandardStreams implements BeforeEachCallback, AfterEachCallback {
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();
    private PrintStream originalOut;
    private PrintStream originalErr;

    @Override
    public void beforeEach(ExtensionContext context) {
        originalOut = System.out;
        originalErr = System.err;
        System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
        System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    @Override
    public void afterEach(ExtensionContext context) {
        System.setOut(originalOut);
        System.setErr(originalErr);
    }

    /** Everything printed to standard output so far in this test. */
    public String out() {
        return out.toString(StandardCharsets.UTF_8);
    }

    /** Everything printed to standard error so far in this test. */
    public String err() {
        return err.toString(StandardCharsets.UTF_8);
    }
}
