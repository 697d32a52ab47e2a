package dev.strata.lsm.testkit;

import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.TestExecutionExceptionHandler;

import java.util.List;

/**
 * Names the seed of a failed test: when a test that took a seed from {@link TestSeed} fails,
 * its failure gets a suppressed note (printed under the stack trace in the surefire output)
 * with the {@code -Dstrata.test.seed=N} that replays it, and the same line goes to stderr.
 * Registered for every test by JUnit's extension auto-detection, which the parent pom's
 * surefire configuration switches on.
 */
public final class SeedOnFailure implements BeforeEachCallback, TestExecutionExceptionHandler {

    @Override
    public void beforeEach(ExtensionContext context) {
        TestSeed.clear();
    }

    @Override
    public void handleTestExecutionException(ExtensionContext context, Throwable failure) throws Throwable {
        String note = note(context.getDisplayName());
        if (note != null) {
            failure.addSuppressed(new SeedNote(note));
            System.err.println(note);
        }
        throw failure;
    }

    /** The line that names the seeds the failed test took (the newest to replay), or null if it took none. */
    static String note(String test) {
        List<Long> seeds = TestSeed.used();
        if (seeds.isEmpty()) {
            return null;
        }
        long last = seeds.get(seeds.size() - 1);
        return test + " failed with seed " + (seeds.size() == 1 ? last : seeds) + "; replay with -D"
                + TestSeed.PROPERTY + "=" + last
                + (TestScale.multiplier() == 1 ? "" : " -D" + TestScale.PROPERTY + "=" + TestScale.multiplier());
    }

    /** The note added to a failure; no stack trace of its own. */
    static final class SeedNote extends RuntimeException {
        private static final long serialVersionUID = 1L;

        SeedNote(String message) {
            super(message, null, false, false);
        }
    }
}
