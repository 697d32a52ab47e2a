package dev.strata.lsm.policy;

import java.util.List;

/** The default placement of ingested tables ({@link MergePolicy#placeIngest}). */
public final class IngestPlacement {
    private IngestPlacement() {
    }

    /**
     * The deepest level L such that no component of levels 0..L overlaps any of the tables'
     * key ranges — the ingested data is newer than everything, so nothing above it may hold a
     * version of its keys — into that level's oldest run when it has one (the tables overlap
     * none of its components), else as a new run of it; a new newest run of level 0 when
     * level 0 already overlaps. A level past the deepest one is never chosen.
     *
     * @param tree the tree the tables are ingested into
     * @param tables the ingested tables, as components (overlapping each other nowhere)
     * @return where the tables land
     */
    public static Placement deepestFree(TreeView tree, List<ComponentView> tables) {
        int chosen = -1;
        for (LevelView level : tree.levels()) {
            boolean overlaps = false;
            for (RunView run : level.runs()) {
                for (ComponentView c : run.components()) {
                    for (ComponentView t : tables) {
                        overlaps |= c.overlaps(t);
                    }
                }
            }
            if (overlaps) {
                break;
            }
            chosen = level.index();
        }
        if (chosen < 0) {
            return Placement.newRun(0);
        }
        List<RunView> runs = tree.level(chosen).runs();
        if (runs.isEmpty()) {
            return Placement.newRun(chosen);
        }
        List<ComponentView> oldest = runs.get(runs.size() - 1).components();
        return oldest.isEmpty() ? Placement.newOldestRun(chosen) : Placement.intoRunOf(chosen, oldest.get(0).id());
    }
}
