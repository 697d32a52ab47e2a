package dev.strata.lsm.policy.vlsm;

import dev.strata.lsm.policy.MergePolicy;
import dev.strata.lsm.policy.PolicyParameters;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** {@code split-flush}: a flush is written as SSTs of at most S_M; off by default (one SST per flush). */
class VlsmSplitFlushTest {
    private static MergePolicy create(Map<String, String> params) {
        VlsmPolicyFactory f = new VlsmPolicyFactory();
        return f.create(PolicyParameters.resolve("vlsm", f.parameters(), params));
    }

    @Test
    void splitFlushAsksForSstSizedFlushTables() {
        assertEquals(1L << 20, create(Map.of("sst-bytes", "1MiB", "split-flush", "true")).flushTableBytes());
        assertEquals(Long.MAX_VALUE, create(Map.of("sst-bytes", "1MiB")).flushTableBytes(), "default: one SST");
        assertEquals(Long.MAX_VALUE, create(Map.of("sst-bytes", "1MiB", "split-flush", "false")).flushTableBytes());
    }

    @Test
    void overlapNoneIsAChoiceAndABadOneIsNamed() {
        create(Map.of("overlap", "none"));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> create(Map.of("overlap", "naive")));
        assertEquals(true, e.getMessage().contains("none"), e.getMessage());
    }
}
