package dev.strata.lsm.policies;

import dev.strata.lsm.LsmStore;
import dev.strata.lsm.StoreConfig;
import dev.strata.lsm.StoreStats;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * AsterixDB's flow control in the real store: writers that the policy stops are always
 * released. The timeout only detects a hang (the work takes well under a second); it is no
 * performance threshold.
 */
class FlowControlStoreTest {
    private static final Duration HANG = Duration.ofSeconds(120);

    @TempDir
    Path tmp;

    private StoreStats ingest(String policy, Map<String, String> params, int flushes) {
        StoreConfig config = StoreConfig.builder().memtableBytes(16 * 1024).blockCacheBytes(0)
                .mergePolicy(policy, params).build();
        return assertTimeoutPreemptively(HANG, () -> {
            Random rnd = new Random(42);
            try (LsmStore store = LsmStore.open(tmp.resolve(policy), config)) {
                byte[] last = null;
                byte[] lastKey = null;
                while (store.stats().flushCount() < flushes) {
                    for (int i = 0; i < 100; i++) {
                        byte[] key = new byte[16];
                        byte[] value = new byte[100];
                        rnd.nextBytes(key);
                        rnd.nextBytes(value);
                        store.put(key, value);
                        lastKey = key;
                        last = value;
                    }
                }
                store.flush();
                store.awaitMerges();
                assertArrayEquals(last, store.get(lastKey));
                return store.stats();
            }
        }, () -> policy + " " + params + ": writers waited for " + HANG + " (hung)");
    }

    @Test
    void concurrentReleasesWritersWhenNoWindowQualifiesAtTheMaximumCount() {
        // max-component-count below min-merge-count: no window can ever qualify, so before the
        // fix writers stopped at 4 components for ever.
        StoreStats s = ingest("concurrent", Map.of("min-merge-count", "5", "max-component-count", "4"), 40);
        assertEquals(0, s.policyErrors(), "policy errors");
        assertTrue(s.flushCount() >= 40, s.toString());
        assertTrue(s.mergeCount() > 0, "full merges ran: " + s);
        assertTrue(s.componentCount() <= 4, s.toString());
    }

    @Test
    void prefixWritersProceedUnderFlowControl() {
        StoreStats s = ingest("prefix", Map.of("max-mergable-component-size", "256KiB",
                "max-tolerance-component-count", "3"), 40);
        assertEquals(0, s.policyErrors(), "policy errors");
        assertTrue(s.mergeCount() > 0, s.toString());
    }
}
