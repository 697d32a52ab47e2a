package dev.strata.lsm.testkit;

import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * {@link SeedOnFailure} runs around every test without being named: the parent pom's surefire
 * configuration switches on JUnit's extension auto-detection, which finds it through
 * META-INF/services. Its before-each callback forgets the seeds of the previous test, so a
 * seed the first test took is gone when the second starts (this class clears nothing itself).
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class SeedOnFailureRegisteredTest {

    @Test
    @Order(1)
    void aTestTakesASeed() {
        TestSeed.use(1234);
        assertEquals(List.of(1234L), TestSeed.used());
    }

    @Test
    @Order(2)
    void theNextTestStartsWithNone() {
        assertEquals(List.of(), TestSeed.used(), "SeedOnFailure is not registered: the previous test's seed is still here");
    }
}
