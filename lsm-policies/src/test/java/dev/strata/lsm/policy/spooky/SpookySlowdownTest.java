package dev.strata.lsm.policy.spooky;

import dev.strata.lsm.policy.ComponentId;
import dev.strata.lsm.policy.ComponentView;
import dev.strata.lsm.policy.LevelView;
import dev.strata.lsm.policy.MergePolicies;
import dev.strata.lsm.policy.MergePolicy;
import dev.strata.lsm.policy.RunView;
import dev.strata.lsm.policy.StoreSettings;
import dev.strata.lsm.policy.TreeView;
import dev.strata.lsm.policy.WriteAdmission;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** Spooky's slowdown depth: from β ({@code l0-slowdown-trigger}) to the stop trigger (issue 36). */
class SpookySlowdownTest {

    private static TreeView tree(int files) {
        List<RunView> l0 = new ArrayList<>();
        for (int i = 0; i < files; i++) {
            long id = 100 + i;
            l0.add(new RunView(List.of(ComponentView.builder(new ComponentId(id, 0)).sizeBytes(100).entries(100, 0)
                    .userBytes(100).keyRange("a".getBytes(StandardCharsets.UTF_8), "z".getBytes(StandardCharsets.UTF_8))
                    .seqnos(10L * (files - i) + 1, 10L * (files - i) + 10).creation(id, 0).build())));
        }
        return new TreeView(List.of(new LevelView(0, l0)), 0, new byte[0], null, List.of(), 0, new StoreSettings(100));
    }

    @Test
    void theDepthRisesFromTheSlowdownTriggerToTheStopTrigger() {
        MergePolicy p = MergePolicies.create("spooky", Map.of("l0-slowdown-trigger", "4", "l0-stop-trigger", "9"));
        assertEquals(WriteAdmission.GO, p.admission(tree(3)));
        assertEquals(WriteAdmission.SLOW_DOWN, p.admission(tree(4)));
        assertEquals(0.0, p.slowdownDepth(tree(4)), 1e-12);
        assertEquals(0.4, p.slowdownDepth(tree(6)), 1e-12);
        assertEquals(0.8, p.slowdownDepth(tree(8)), 1e-12);
        assertEquals(1.0, p.slowdownDepth(tree(9)), 1e-12);
        assertEquals(1.0, p.slowdownDepth(tree(30)), 1e-12);
        MergePolicy equal = MergePolicies.create("spooky", Map.of("l0-slowdown-trigger", "9", "l0-stop-trigger", "9"));
        assertEquals(1.0, equal.slowdownDepth(tree(9)), 1e-12);
    }
}
