package dev.strata.lsm.policy;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/** The default plan of a manual compaction ({@link MergePolicy#planCompaction}). */
public final class ManualCompaction {
    /** Output files of a manual compaction are cut at the largest input's size, and never below this. */
    static final long MIN_OUTPUT_FILE_BYTES = 2L << 20;

    private ManualCompaction() {
    }

    /**
     * One rewrite of the components whose keys overlap [{@code from}, {@code to}), closed
     * under overlap: every component whose key range overlaps the inputs' joint range is an
     * input too, in every level, until none is left. The output goes into the deepest level
     * holding an input, into the oldest of that level's runs holding one — so it overlaps no
     * component left out, and no version of a key passes a newer one. Empty when no component
     * overlaps the range.
     *
     * @param tree the tree to compact, with no merge running
     * @param from the first key of the range, inclusive, or null for no lower bound
     * @param to the end of the range, exclusive, or null for no upper bound
     * @return a list of at most one rewrite task
     */
    public static List<MergeTask> intoDeepestLevel(TreeView tree, byte[] from, byte[] to) {
        List<ComponentView> all = tree.components();
        Set<ComponentView> inputs = new LinkedHashSet<>();
        for (ComponentView c : all) {
            if ((from == null || Arrays.compareUnsigned(c.maxKey(), from) >= 0)
                    && (to == null || Arrays.compareUnsigned(c.minKey(), to) < 0)) {
                inputs.add(c);
            }
        }
        if (inputs.isEmpty()) {
            return List.of();
        }
        boolean grew = true;
        while (grew) {
            byte[] min = inputs.stream().map(ComponentView::minKey).min(Arrays::compareUnsigned).orElseThrow();
            byte[] max = inputs.stream().map(ComponentView::maxKey).max(Arrays::compareUnsigned).orElseThrow();
            grew = false;
            for (ComponentView c : all) {
                if (!inputs.contains(c) && c.overlaps(min, max)) {
                    inputs.add(c);
                    grew = true;
                }
            }
        }
        // The deepest level with an input; in it, the oldest run with one (runs are listed newest first).
        ComponentView anchor = null;
        int anchorLevel = -1;
        for (LevelView level : tree.levels()) {
            for (RunView run : level.runs()) {
                for (ComponentView c : run.components()) {
                    if (inputs.contains(c)) {
                        anchor = c;
                        anchorLevel = level.index();
                    }
                }
            }
        }
        List<ComponentId> ids = new ArrayList<>();
        long largest = 0;
        for (ComponentView c : inputs) {
            ids.add(c.id());
            largest = Math.max(largest, c.sizeBytes());
        }
        OutputSpec output = OutputSpec.maxFileBytes(Math.max(MIN_OUTPUT_FILE_BYTES, largest));
        return List.of(MergeTask.rewrite(ids, Placement.intoRunOf(anchorLevel, anchor.id()), output,
                "manual compaction of " + describe(from) + ".." + describe(to)));
    }

    private static String describe(byte[] key) {
        if (key == null) {
            return "open";
        }
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < Math.min(key.length, 16); i++) {
            b.append(String.format("%02x", key[i]));
        }
        return key.length > 16 ? b + "…" : b.toString();
    }
}
