package dev.strata.lsm.policy.stack;

import dev.strata.lsm.policy.ComponentId;
import dev.strata.lsm.policy.ComponentView;
import dev.strata.lsm.policy.LevelView;
import dev.strata.lsm.policy.MergePolicies;
import dev.strata.lsm.policy.MergePolicy;
import dev.strata.lsm.policy.MergePolicyFactory;
import dev.strata.lsm.policy.MergeTask;
import dev.strata.lsm.policy.PolicyParameters;
import dev.strata.lsm.policy.RunView;
import dev.strata.lsm.policy.TreeView;
import dev.strata.lsm.policy.WriteAdmission;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Prefix and concurrent decide as AsterixDB's PrefixMergePolicy and ConcurrentMergePolicy
 * do, on hand-made stacks (sizes oldest first, a trailing {@code *} marks a busy component).
 * Each case is one the pre-fix policies decided differently.
 */
class StackDecisionsTest {

    private static MergePolicy policy(String name, Map<String, String> params) {
        MergePolicyFactory f = MergePolicies.find(name);
        return f.create(PolicyParameters.resolve(name, f.parameters(), params));
    }

    private static MergePolicy prefix() {
        return policy("prefix", Map.of("max-mergable-component-size", "256", "max-tolerance-component-count", "5"));
    }

    /** A view of level 0 from "s1 s2 ..." oldest first; component i has file number i + 1. */
    private static TreeView stack(String sizes) {
        String[] parts = sizes.trim().split("\\s+");
        List<RunView> runs = new ArrayList<>();
        for (int i = parts.length - 1; i >= 0; i--) {
            boolean busy = parts[i].endsWith("*");
            long size = Long.parseLong(busy ? parts[i].substring(0, parts[i].length() - 1) : parts[i]);
            runs.add(new RunView(List.of(ComponentView.builder(new ComponentId(i + 1, 0)).sizeBytes(size)
                    .entries(1, 0).userBytes(size).keyRange(new byte[] {0}, new byte[] {1})
                    .seqnos(10L * i, 10L * i + 9).creation(i, 0).busy(busy).build())));
        }
        return new TreeView(List.of(new LevelView(0, runs)), parts.length, null, null);
    }

    /** The merges picked, as "[first..last]" oldest-first positions (1-based), space separated. */
    private static String picks(MergePolicy p, String sizes) {
        StringBuilder sb = new StringBuilder();
        for (MergeTask t : p.pickMerges(stack(sizes))) {
            long lo = t.inputs().stream().mapToLong(ComponentId::fileNumber).min().orElseThrow();
            long hi = t.inputs().stream().mapToLong(ComponentId::fileNumber).max().orElseThrow();
            assertEquals(hi - lo + 1, t.inputs().size(), "contiguous inputs");
            sb.append(sb.length() > 0 ? " " : "").append('[').append(lo).append("..").append(hi).append(']');
        }
        return sb.toString();
    }

    @Test
    void prefixConsidersRunsThatEndAtALargeComponent() {
        // Old: only the newest run of small components ([1]) was looked at.
        assertEquals("[1..3]", picks(prefix(), "100 100 100 1000 1"));
    }

    @Test
    void prefixToleranceTakesEveryComponentUpToTheNewest() {
        // Old: merged the first five.
        assertEquals("[1..6]", picks(prefix(), "1 1 1 1 1 1"));
        assertEquals("", picks(prefix(), "1 1 1 1"));
    }

    @Test
    void prefixKeepsAddingWhenTheRatioFailsAtTheSizeLimit() {
        // 200+100 exceeds 256 but 200 >= 1.2 x 100; adding the next 100 meets the ratio. Old: gave up on 200.
        assertEquals("[1..3]", picks(prefix(), "200 100 100 50"));
    }

    @Test
    void prefixSkipsAStartThatCannotMeetTheRatio() {
        assertEquals("[2..6]", picks(prefix(), "200 10 10 10 10 10"));
        assertEquals("", picks(prefix(), "200 10 10 10 10"));
    }

    @Test
    void prefixRunsOneMergeAtATime() {
        assertEquals("", picks(prefix(), "100* 100* 1 1 1 1 1 1"));
        assertEquals("[1..6]", picks(prefix(), "1 1 1 1 1 1"));
    }

    @Test
    void prefixStopsWritersWhileTheRunItWouldMergeReachesTheTolerance() {
        MergePolicy p = prefix();
        assertEquals(WriteAdmission.GO, p.admission(stack("1 1 1 1")));
        // Nothing runs: pickMerges starts the merge of all five on this view, and nothing lags beside it.
        assertEquals("[1..5]", picks(p, "1 1 1 1 1"));
        assertEquals(WriteAdmission.GO, p.admission(stack("1 1 1 1 1")));
        // The run pickMerges starts is [1..3] (size rule); the five after the large one still lag beside it.
        assertEquals("[1..3]", picks(p, "100 100 100 1000 1 1 1 1 1"));
        assertEquals(WriteAdmission.STOP, p.admission(stack("100 100 100 1000 1 1 1 1 1")));
        // A merge runs; the five idle ones behind it lag.
        assertEquals(WriteAdmission.STOP, p.admission(stack("100* 100* 1 1 1 1 1")));
        assertEquals(WriteAdmission.GO, p.admission(stack("100* 100* 1 1 1 1")));
        // Large components never count.
        assertEquals(WriteAdmission.GO, p.admission(stack("1000 1000 1000 1000 1000 1000")));
    }

    @Test
    void concurrentMergesEverythingWhenStoppedWithNoQualifyingWindow() {
        MergePolicy p = policy("concurrent", Map.of("max-component-count", "3"));
        // No window of >= 3 with its oldest <= 1.2 x the younger ones; writers are stopped at 3.
        assertEquals(WriteAdmission.STOP, p.admission(stack("1000 100 10")));
        assertEquals("[1..3]", picks(p, "1000 100 10"));
        // Below the maximum nothing is forced.
        assertEquals("", picks(policy("concurrent", Map.of("max-component-count", "4")), "1000 100 10"));
        // A merge is running: it will release the writers, so no full merge.
        assertEquals("", picks(p, "1000* 100* 10 1"));
    }

    @Test
    void concurrentWindowsAsAsterixDb() {
        MergePolicy p = policy("concurrent", Map.of());
        // Oldest 1000 fails; next window [2..4]: 10 <= 1.2 x 20.
        assertEquals("[2..4]", picks(p, "1000 10 10 10"));
        // Only the newest idle run is looked at.
        assertEquals("[4..6]", picks(p, "10 10 10* 10 10 10"));
        // Window capped at max-merge-count 10 from its oldest.
        assertEquals("[1..10]", picks(p, "1 1 1 1 1 1 1 1 1 1 1 1"));
    }
}
