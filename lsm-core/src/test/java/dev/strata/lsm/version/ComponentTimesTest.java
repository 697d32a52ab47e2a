package dev.strata.lsm.version;

import dev.strata.lsm.policy.ComponentId;
import dev.strata.lsm.policy.ComponentView;
import org.junit.jupiter.api.Test;

import java.util.List;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

class ComponentTimesTest {
    static Component component(long n, String min, String max, long tombstones, long created, long oldestTombstone) {
        return new Component(new ComponentMeta(new ComponentId(n, 0), 100, 10, tombstones, 50, min.getBytes(UTF_8),
                max.getBytes(UTF_8), 1, 2, n, created, oldestTombstone), null);
    }

    @Test
    void outputTakesTheOldestTombstoneOfOverlappingInputs() {
        Component oldDeletes = component(1, "a", "f", 3, 1000, 1000);
        Component newerDeletes = component(2, "g", "p", 3, 2000, 2000);
        Component noDeletes = component(3, "a", "z", 0, 500, ComponentView.NO_TOMBSTONE);
        Component left = component(10, "a", "f", 2, 5000, 5000);
        Component right = component(11, "g", "z", 1, 5000, 5000);
        Component clean = component(12, "q", "z", 0, 5000, ComponentView.NO_TOMBSTONE);
        List<Component> out = ComponentTimes.inherit(List.of(left, right, clean),
                List.of(oldDeletes, newerDeletes, noDeletes));
        assertEquals(1000, out.get(0).meta().oldestTombstoneMillis(), "left overlaps only the oldest deletes");
        assertEquals(2000, out.get(1).meta().oldestTombstoneMillis(), "right overlaps only the newer deletes");
        assertSame(clean, out.get(2), "an output without tombstones is unchanged");
        assertEquals(5000, out.get(0).meta().creationTimeMillis(), "creation time stays the output's own");
    }

    @Test
    void outputOutsideEveryInputRangeTakesTheOldestOverall() {
        Component in1 = component(1, "a", "b", 1, 3000, 3000);
        Component in2 = component(2, "c", "d", 1, 4000, 4000);
        Component out = component(10, "x", "y", 1, 9000, 9000);
        assertEquals(3000, ComponentTimes.inherit(List.of(out), List.of(in1, in2)).get(0).meta().oldestTombstoneMillis());
    }
}
