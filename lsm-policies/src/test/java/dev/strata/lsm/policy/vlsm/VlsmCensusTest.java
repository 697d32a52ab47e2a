package dev.strata.lsm.policy.vlsm;

import dev.strata.lsm.LsmStore;
import dev.strata.lsm.StoreConfig;
import dev.strata.lsm.StoreStats;
import dev.strata.lsm.policy.ComponentId;
import dev.strata.lsm.policy.ComponentView;
import dev.strata.lsm.policy.MergePolicies;
import dev.strata.lsm.policy.MergeTask;
import dev.strata.lsm.policies.RecordingPolicy;
import dev.strata.lsm.policy.TreeView;
import dev.strata.lsm.testkit.TestScale;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link VlsmCensus} inside a store: the census a {@code vlsm} instance keeps equals what a
 * brute-force pass over the views of its own decisions finds — every level-1 vSST counted
 * once, when a decision first sees it, good by count when at most f level-2 SSTs intersect
 * it and good by bytes when the level-2 bytes it intersects are at most f times its own; every
 * level-1 → level-2 merge counted once its level-1 inputs have left level 1, with the bytes
 * the decision took — and the bytes the engine wrote under the merge kind {@code l1-to-l2}
 * are those merges' input bytes (unique keys: nothing is dropped), within the tables'
 * per-file overhead.
 */
class VlsmCensusTest {
    private static final int F = 8;

    @Test
    void theCensusCountsEveryNewVsstAndEveryCompletedWindow(@TempDir Path dir) {
        VlsmPolicy vlsm = (VlsmPolicy) MergePolicies.create("vlsm", Map.of("sst-bytes", "64KiB", "growth",
                Integer.toString(F)));
        RecordingPolicy<Void> recorded = new RecordingPolicy<>(vlsm, (p, v) -> null);
        StoreConfig config = StoreConfig.builder().memtableBytes(64 << 10).maxImmutableMemtables(1)
                .blockCacheBytes(1 << 20).mergePolicy(recorded).build();
        SplittableRandom random = new SplittableRandom(5);
        byte[] value = new byte[112];
        StoreStats stats;
        try (LsmStore store = LsmStore.open(dir, config)) {
            for (long i = 0; i < TestScale.scaled(25_000); i++) {
                byte[] key = ByteBuffer.allocate(16).putLong(random.nextLong()).putLong(i).array();
                random.nextBytes(value);
                store.put(key, value);
            }
            store.awaitMerges();
            stats = store.stats();
            assertEquals(0, stats.policyErrors());
        }
        VlsmCensus census = vlsm.census();

        long vssts = 0, vsstBytes = 0, goodCount = 0, goodCountBytes = 0, goodBytes = 0, goodBytesBytes = 0;
        long intersected = 0;
        long merges = 0, moved = 0, merged = 0;
        Set<ComponentId> seen = new HashSet<>();
        List<long[]> pendingBytes = new ArrayList<>();
        List<Set<ComponentId>> pendingIds = new ArrayList<>();
        for (RecordingPolicy.Decision<Void> d : recorded.decisions()) {
            TreeView v = d.view();
            List<ComponentView> level1 = VlsmTraceTest.files(v, 1);
            List<ComponentView> level2 = v.levels().size() > 2 ? VlsmTraceTest.files(v, 2) : List.of();
            Set<ComponentId> now = new HashSet<>();
            for (ComponentView c : level1) {
                now.add(c.id());
                if (seen.contains(c.id())) {
                    continue;
                }
                int o = 0;
                long ob = 0;
                for (ComponentView b : level2) {
                    if (Arrays.compareUnsigned(b.minKey(), c.maxKey()) <= 0
                            && Arrays.compareUnsigned(b.maxKey(), c.minKey()) >= 0) {
                        o++;
                        ob += b.sizeBytes();
                    }
                }
                vssts++;
                vsstBytes += c.sizeBytes();
                intersected += o;
                if (o <= F) {
                    goodCount++;
                    goodCountBytes += c.sizeBytes();
                }
                if (ob <= (long) F * c.sizeBytes()) {
                    goodBytes++;
                    goodBytesBytes += c.sizeBytes();
                }
            }
            seen = now;
            for (int i = pendingIds.size() - 1; i >= 0; i--) {
                Set<ComponentId> ids = pendingIds.get(i);
                if (ids.stream().noneMatch(now::contains)) {
                    merges++;
                    moved += pendingBytes.get(i)[0];
                    merged += pendingBytes.get(i)[1];
                    pendingIds.remove(i);
                    pendingBytes.remove(i);
                }
            }
            for (MergeTask t : d.tasks()) {
                if (!t.kindLabel().equals(VlsmPolicy.KIND_L1)) {
                    continue;
                }
                Set<ComponentId> in = new HashSet<>(t.inputs());
                Set<ComponentId> ids = new HashSet<>();
                long l1 = 0, l2 = 0;
                for (ComponentView c : level1) {
                    if (in.contains(c.id())) {
                        ids.add(c.id());
                        l1 += c.sizeBytes();
                    }
                }
                for (ComponentView c : level2) {
                    if (in.contains(c.id())) {
                        l2 += c.sizeBytes();
                    }
                }
                pendingIds.add(ids);
                pendingBytes.add(new long[] {l1, l2});
            }
        }
        System.out.printf("vlsm census: %s; good by count %.1f%%, by bytes %.1f%%, L1->L2 amplification %.2f; "
                + "engine bytes by kind %s%n", census, 100 * census.goodShareByCount(), 100
                * census.goodShareByBytes(), census.level1ToLevel2Amplification(), stats.bytesWrittenByKind());
        assertEquals(new VlsmCensus(vssts, vsstBytes, goodCount, goodCountBytes, goodBytes, goodBytesBytes,
                intersected, merges, moved, merged, census.poorWindows()), census);
        // Poor by count is rare here (more than f = 8 level-2 SSTs under one vSST: none to a few in
        // a run, as memtable sizes move the cuts); poor by bytes is common: both readings are counted.
        assertTrue(vssts > 100 && merges > 10 && goodCount > 0 && goodBytes > 0 && goodBytes < vssts,
                census.toString());
        long written = stats.bytesWrittenByKind().getOrDefault(VlsmPolicy.KIND_L1, 0L);
        double ratio = (double) written / (moved + merged);
        assertTrue(ratio > 0.9 && ratio < 1.1, "engine wrote " + written + " bytes in l1-to-l2 merges, the census "
                + "counted " + (moved + merged) + " input bytes");
        assertTrue(stats.bytesWrittenByKind().getOrDefault(VlsmPolicy.KIND_L0, 0L) > 0, stats.bytesWrittenByKind()
                .toString());
    }
}
