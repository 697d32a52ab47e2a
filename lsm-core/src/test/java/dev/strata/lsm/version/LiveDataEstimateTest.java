package dev.strata.lsm.version;

import dev.strata.lsm.policy.ComponentId;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;

/** The live-data estimate counts no key twice, whatever the layout of overlapping runs. */
class LiveDataEstimateTest {
    private final AtomicLong files = new AtomicLong(1);

    /** A component of {@code entries} entries of {@code bytesPerEntry} user bytes, {@code tombstones} of them deletes. */
    private Component component(String min, String max, long entries, long tombstones, long bytesPerEntry) {
        long n = files.getAndIncrement();
        return new Component(new ComponentMeta(new ComponentId(n, 0), entries * bytesPerEntry * 2, entries, tombstones,
                entries * bytesPerEntry, min.getBytes(UTF_8), max.getBytes(UTF_8), n, n, n), null);
    }

    private static Run run(long id, Component... cs) {
        return new Run(id, List.of(cs));
    }

    private static Version version(List<List<Run>> levels) {
        return new Version(levels, 0, null);
    }

    @Test
    void emptyVersionHasNoLiveData() {
        assertEquals(0, LiveDataEstimate.of(version(List.of())));
    }

    @Test
    void overwritesInNewerRunsAreNotCountedAgain() {
        // Oldest run: all 1000 keys; three newer runs overwrite keys in the same range.
        Run full = run(1, component("a", "z", 1000, 0, 100));
        Version v = version(List.of(List.of(run(4, component("b", "y", 300, 0, 100)),
                run(3, component("a", "x", 300, 0, 100)), run(2, component("c", "z", 300, 0, 100)), full)));
        assertEquals(100_000, LiveDataEstimate.of(v), 1e-9);
    }

    @Test
    void disjointRunsAndComponentsAllCount() {
        // Sequential inserts: each run in its own key range, one run partitioned in two components.
        Version v = version(List.of(List.of(run(3, component("m", "p", 10, 0, 50)),
                run(2, component("a", "c", 20, 0, 50), component("d", "f", 20, 0, 50)))));
        assertEquals(50 * 50, LiveDataEstimate.of(v), 1e-9);
    }

    @Test
    void largestRunCountsFirstAcrossLevels() {
        // Leveled: the last level holds most data; an upper component overlapping it is left out,
        // a disjoint one counts.
        Version v = version(List.of(List.of(run(3, component("b", "c", 10, 0, 10))),
                List.of(run(2, component("x", "z", 5, 0, 10))),
                List.of(run(1, component("a", "m", 900, 0, 10)))));
        assertEquals(9000 + 50, LiveDataEstimate.of(v), 1e-9);
    }

    @Test
    void tombstonesAreNotLive() {
        Version v = version(List.of(List.of(run(1, component("a", "z", 1000, 250, 100)))));
        assertEquals(75_000, LiveDataEstimate.of(v), 1e-9);
    }

    @Test
    void overlappingRunsOfDifferentKeysAreUnderestimated() {
        // The documented limit: two runs of random new keys over the same range hold 2000 live keys,
        // metadata cannot tell them from overwrites, and only the larger run is counted.
        Version v = version(List.of(List.of(run(2, component("a", "z", 800, 0, 100)),
                run(1, component("a", "z", 1200, 0, 100)))));
        assertEquals(120_000, LiveDataEstimate.of(v), 1e-9);
    }
}
