package dev.strata.lsm.policy.sim;

import dev.strata.lsm.policy.ComponentId;
import dev.strata.lsm.policy.ComponentView;
import dev.strata.lsm.policy.LevelView;
import dev.strata.lsm.policy.Placement;
import dev.strata.lsm.policy.StoreSettings;
import dev.strata.lsm.policy.TreeView;
import dev.strata.lsm.policy.layout.LayoutModel;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;

/**
 * A tree of simulated components: sizes and sequence ranges, no data. Every component
 * spans the whole key space (the worst case for overlap). Changes are applied and checked by
 * the shared {@link LayoutModel}, as the engine applies them. Not thread safe.
 */
final class SimulatedTree {
    private static final byte[] MIN_KEY = {0};
    private static final byte[] MAX_KEY = {(byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff};

    /** levels → runs (newest first) → components. */
    private List<List<LayoutModel.Run<ComponentView>>> levels = new ArrayList<>();
    private long nextId = 1;
    private long nextRunId = 1;
    private int count;

    ComponentView newComponent(long length, long minSeq, long maxSeq) {
        long id = nextId++;
        return ComponentView.builder(new ComponentId(id, 0)).sizeBytes(length).entries(length, 0)
                .userBytes(length).keyRange(MIN_KEY, MAX_KEY).seqnos(minSeq, maxSeq).creation(id, id).build();
    }

    int componentCount() {
        return count;
    }

    TreeView view(long flushCounter, byte[] policyState, StoreSettings settings) {
        List<LevelView> lv = LevelView.levelsOf(levels, LayoutModel.Run::components, c -> c);
        return new TreeView(lv, flushCounter, policyState, null, List.of(), System.currentTimeMillis(), settings);
    }

    /** Component lengths per level, each level's runs oldest first: {@code [4 2 1]}, levels joined by {@code |}. */
    String describe() {
        StringBuilder sb = new StringBuilder("[");
        for (int l = 0; l < levels.size(); l++) {
            if (l > 0) {
                sb.append(" |");
            }
            List<LayoutModel.Run<ComponentView>> runs = levels.get(l);
            for (int r = runs.size() - 1; r >= 0; r--) {
                for (ComponentView c : runs.get(r).components()) {
                    if (sb.length() > 1 && sb.charAt(sb.length() - 1) != '|') {
                        sb.append(' ');
                    } else if (sb.charAt(sb.length() - 1) == '|') {
                        sb.append(' ');
                    }
                    sb.append(c.sizeBytes());
                }
            }
        }
        return sb.append(']').toString();
    }

    ComponentView find(ComponentId id) {
        for (List<LayoutModel.Run<ComponentView>> level : levels) {
            for (LayoutModel.Run<ComponentView> run : level) {
                for (ComponentView c : run.components()) {
                    if (c.id().equals(id)) {
                        return c;
                    }
                }
            }
        }
        return null;
    }

    /**
     * Replaces {@code removed} by {@code added} at {@code placement}.
     *
     * @throws IllegalStateException if an input or the anchor does not exist, or the
     *     result breaks the stability invariant
     */
    void apply(List<ComponentId> removed, ComponentView added, Placement placement) {
        List<ComponentView> inputs = new ArrayList<>(removed.size());
        for (ComponentId id : removed) {
            ComponentView c = find(id);
            if (c == null) {
                throw new IllegalStateException("merge input " + id + " does not exist");
            }
            inputs.add(c);
        }
        List<ComponentView> addedList = added == null ? List.of() : List.of(added);
        List<List<LayoutModel.Run<ComponentView>>> next;
        try {
            next = LayoutModel.VIEWS.apply(levels, new HashSet<>(removed), addedList, placement, () -> nextRunId++);
            LayoutModel.VIEWS.checkChange(levels, inputs, addedList, next);
        } catch (LayoutModel.LayoutException e) {
            throw new IllegalStateException(e.getMessage(), e);
        }
        levels = next;
        count += addedList.size() - inputs.size();
    }
}
