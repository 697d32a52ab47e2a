package dev.strata.lsm.policy;

import java.util.List;

/**
 * One level: its runs, newest first. Immutable.
 *
 * @param index level number, 0 at the top
 * @param runs the runs, newest first
 */
public record LevelView(int index, List<RunView> runs) {
    /**
     * Creates a {@code LevelView} from its components.
     *
     * @param index level number, 0 at the top
     * @param runs the runs, newest first
     */
    public LevelView {
        runs = List.copyOf(runs);
    }

    /**
     * Bytes of all runs.
     *
     * @return the sum of the runs' sizes in bytes
     */
    public long sizeBytes() {
        long s = 0;
        for (RunView r : runs) {
            s += r.sizeBytes();
        }
        return s;
    }

    /**
     * Components in all runs.
     *
     * @return the number of components over the level's runs
     */
    public int componentCount() {
        int n = 0;
        for (RunView r : runs) {
            n += r.components().size();
        }
        return n;
    }
}
