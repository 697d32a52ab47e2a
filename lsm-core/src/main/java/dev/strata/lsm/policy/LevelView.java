package dev.strata.lsm.policy;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

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
     * The level views of a tree kept in any form: {@code levels} top level first, each a list
     * of runs newest first; {@code components} gives a run's components in key order and
     * {@code view} the policy's view of each. The one place a level/run view is assembled, for
     * the engine's versions and the simulators' trees alike.
     *
     * @param levels the tree's levels, top first, each its runs newest first
     * @param components a run's components, in key order
     * @param view the view of one component
     * @param <R> the tree's run type
     * @param <C> the tree's component type
     * @return one view per level, numbered from 0
     */
    public static <R, C> List<LevelView> levelsOf(List<? extends List<R>> levels,
                                                  Function<? super R, ? extends List<C>> components,
                                                  Function<? super C, ComponentView> view) {
        List<LevelView> out = new ArrayList<>(levels.size());
        for (int i = 0; i < levels.size(); i++) {
            List<RunView> runs = new ArrayList<>(levels.get(i).size());
            for (R run : levels.get(i)) {
                List<C> cs = components.apply(run);
                List<ComponentView> views = new ArrayList<>(cs.size());
                for (C c : cs) {
                    views.add(view.apply(c));
                }
                runs.add(new RunView(views));
            }
            out.add(new LevelView(i, runs));
        }
        return out;
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
