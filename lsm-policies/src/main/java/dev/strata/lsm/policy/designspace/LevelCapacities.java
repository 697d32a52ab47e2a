package dev.strata.lsm.policy.designspace;

import dev.strata.lsm.policy.TreeView;

/**
 * Capacities of leveled levels. Static: level i holds {@code B * T^(i+1)} bytes, B the
 * memtable size (Strata's level 0 is the paper's level 1, which holds T memtables; capacity
 * of level 1 = T·B is not in the paper but matches its L = 4 and "Full compacts every T
 * flushes"). Dynamic (RocksDB's {@code level_compaction_dynamic_level_bytes} idea): the
 * levels above the deepest one are sized from the deepest level's actual bytes, each T
 * times smaller than the one below, but never below level 0's static capacity; the
 * deepest level keeps its static capacity so the tree still grows a level when it fills.
 */
final class LevelCapacities {
    private final long[] capacity;

    private LevelCapacities(long[] capacity) {
        this.capacity = capacity;
    }

    static LevelCapacities of(TreeView tree, int lastLevel, long memtableBytes, int sizeRatio, boolean dynamic) {
        int n = Math.max(lastLevel + 1, 1);
        long[] cap = new long[n + 1];
        for (int i = 0; i <= n; i++) {
            cap[i] = staticCapacity(i, memtableBytes, sizeRatio);
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

    static long staticCapacity(int level, long memtableBytes, int sizeRatio) {
        double c = memtableBytes;
        for (int i = 0; i <= level; i++) {
            c *= sizeRatio;
        }
        return c >= Long.MAX_VALUE ? Long.MAX_VALUE : (long) c;
    }

    long of(int level) {
        return level < capacity.length ? capacity[level] : capacity[capacity.length - 1];
    }
}
