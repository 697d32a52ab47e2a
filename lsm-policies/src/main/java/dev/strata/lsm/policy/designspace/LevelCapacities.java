package dev.strata.lsm.policy.designspace;

import dev.strata.lsm.policy.TreeView;

/**
 * Capacities of leveled levels. Static: level i holds {@code B * T^(i+1)} bytes, B the
 * memtable size (Strata's level 0 is the paper's level 1, which holds T memtables; capacity
 * of level 1 = T·B is not in the paper but matches its L = 4 and "Full compacts every T
 * flushes"), or, with {@code level1-bytes} = L1 &gt; 0, level i &ge; 1 holds
 * {@code L1 * T^(i-1)} (RocksDB's max_bytes_for_level_base; level 0 keeps T·B). Dynamic (RocksDB's {@code level_compaction_dynamic_level_bytes} idea): the
 * levels above the deepest one are sized from the deepest level's actual bytes, each T
 * times smaller than the one below, but never below level 0's static capacity; the
 * deepest level keeps its static capacity so the tree still grows a level when it fills.
 */
final class LevelCapacities {
    private final long[] capacity;

    private LevelCapacities(long[] capacity) {
        this.capacity = capacity;
    }

    static LevelCapacities of(TreeView tree, int lastLevel, long memtableBytes, int sizeRatio, boolean dynamic,
                              long level1Bytes) {
        int n = Math.max(lastLevel + 1, 1);
        long[] cap = new long[n + 1];
        for (int i = 0; i <= n; i++) {
            cap[i] = staticCapacity(i, memtableBytes, sizeRatio, level1Bytes);
        }
        if (dynamic && lastLevel > 0) {
            double below = tree.level(lastLevel).sizeBytes();
            for (int i = lastLevel - 1; i >= 0; i--) {
                below /= sizeRatio;
                cap[i] = Math.max(cap[0], (long) below);
            }
        }
        return new LevelCapacities(cap);
    }

    /** Level {@code level}'s static capacity; {@code level1Bytes} > 0 fixes level 1's (levels >= 1 scale from it). */
    static long staticCapacity(int level, long memtableBytes, int sizeRatio, long level1Bytes) {
        double c;
        if (level >= 1 && level1Bytes > 0) {
            c = level1Bytes;
            for (int i = 1; i < level; i++) {
                c *= sizeRatio;
            }
        } else {
            c = memtableBytes;
            for (int i = 0; i <= level; i++) {
                c *= sizeRatio;
            }
        }
        return c >= Long.MAX_VALUE ? Long.MAX_VALUE : (long) c;
    }

    long of(int level) {
        return level < capacity.length ? capacity[level] : capacity[capacity.length - 1];
    }
}
