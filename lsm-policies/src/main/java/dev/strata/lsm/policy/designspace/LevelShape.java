package dev.strata.lsm.policy.designspace;

/** Whether a level holds one sorted run or several. */
public enum LevelShape {
    /** One sorted run; data arriving is merged into it. */
    LEVELED,
    /** Several sorted runs; data arriving becomes a new run, and the runs are merged down together. */
    TIERED
}
