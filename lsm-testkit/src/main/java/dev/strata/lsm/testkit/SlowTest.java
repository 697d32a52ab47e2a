package dev.strata.lsm.testkit;

import org.junit.jupiter.api.Tag;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * A test of the slow lane: it runs only with {@code mvn -B verify -Pslow} (or
 * {@code mvn -B test -Pslow}), never in the README's {@code mvn -B verify}, which excludes the
 * JUnit tag {@value #TAG}. The usual use is the full-size run of a long test whose scaled-down
 * run stays in the fast lane: a subclass that inherits every test and only adds this tag, e.g.
 * <pre>{@code
 * @SlowTest
 * class ModelBasedStoreSlowTest extends ModelBasedStoreTest {
 * }
 * }</pre>
 * Sizes come from {@link TestScale}, and the slow profile sets {@code strata.test.multiplier}.
 */
@Documented
@Inherited
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.TYPE, ElementType.METHOD, ElementType.ANNOTATION_TYPE})
@Tag("slow")
public @interface SlowTest {
    /** The JUnit tag, as the parent pom's surefire configuration names it. */
    String TAG = "slow";
}
