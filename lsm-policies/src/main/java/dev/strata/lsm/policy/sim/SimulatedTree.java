package dev.strata.lsm.policy.sim;

import dev.strata.lsm.policy.ComponentId;
import dev.strata.lsm.policy.ComponentView;
import dev.strata.lsm.policy.LevelView;
import dev.strata.lsm.policy.Placement;
import dev.strata.lsm.policy.RunView;
import dev.strata.lsm.policy.TreeView;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * A tree of simulated components: sizes and sequence ranges, no data. Every component
 * spans the whole key space (the worst case for overlap). Placements are applied with the
 * engine's semantics. Not thread safe.
 */
final class SimulatedTree {
    private static final byte[] MIN_KEY = {0};
    private static final byte[] MAX_KEY = {(byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff};

    /** levels → runs (newest first) → components. */
    private final List<List<List<ComponentView>>> levels = new ArrayList<>();
    private long nextId = 1;
    private int count;

    ComponentView newComponent(long length, long minSeq, long maxSeq) {
        long id = nextId++;
        return ComponentView.builder(new ComponentId(id, 0)).sizeBytes(length).entries(length, 0)
                .userBytes(length).keyRange(MIN_KEY, MAX_KEY).seqnos(minSeq, maxSeq).creation(id, id).build();
    }

    int componentCount() {
        return count;
    }

    TreeView view(long flushCounter, byte[] policyState) {
        List<LevelView> lv = new ArrayList<>(levels.size());
        for (int i = 0; i < levels.size(); i++) {
            List<RunView> runs = new ArrayList<>(levels.get(i).size());
            for (List<ComponentView> r : levels.get(i)) {
                runs.add(new RunView(r));
            }
            lv.add(new LevelView(i, runs));
        }
        return new TreeView(lv, flushCounter, policyState, null);
    }

    /** Component lengths per level, each level's runs oldest first: {@code [4 2 1]}, levels joined by {@code |}. */
    String describe() {
        StringBuilder sb = new StringBuilder("[");
        for (int l = 0; l < levels.size(); l++) {
            if (l > 0) {
                sb.append(" |");
            }
            List<List<ComponentView>> runs = levels.get(l);
            for (int r = runs.size() - 1; r >= 0; r--) {
                for (ComponentView c : runs.get(r)) {
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
        for (List<List<ComponentView>> level : levels) {
            for (List<ComponentView> run : level) {
                for (ComponentView c : run) {
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
        Set<ComponentId> gone = new HashSet<>(removed);
        for (ComponentId id : removed) {
            if (find(id) == null) {
                throw new IllegalStateException("merge input " + id + " does not exist");
            }
        }
        int targetLevel = placement.level();
        List<ComponentView> targetRun = null;
        if (placement.kind() == Placement.Kind.INTO_RUN_OF) {
            if (targetLevel < levels.size()) {
                for (List<ComponentView> run : levels.get(targetLevel)) {
                    for (ComponentView c : run) {
                        if (c.id().equals(placement.anchor())) {
                            targetRun = run;
                        }
                    }
                }
            }
            if (targetRun == null) {
                throw new IllegalStateException("placement anchor " + placement.anchor() + " is not in level "
                        + targetLevel);
            }
        }
        for (List<List<ComponentView>> level : levels) {
            for (List<ComponentView> run : level) {
                count -= run.size();
                run.removeIf(c -> gone.contains(c.id()));
                count += run.size();
            }
        }
        if (added != null) {
            while (levels.size() <= targetLevel) {
                levels.add(new ArrayList<>());
            }
            List<List<ComponentView>> level = levels.get(targetLevel);
            switch (placement.kind()) {
                case NEW_RUN_NEWEST -> level.add(0, new ArrayList<>(List.of(added)));
                case NEW_RUN_OLDEST -> level.add(new ArrayList<>(List.of(added)));
                case INTO_RUN_OF -> targetRun.add(added);
            }
            count++;
        }
        for (List<List<ComponentView>> level : levels) {
            level.removeIf(List::isEmpty);
        }
        checkStable();
    }

    /** Overlapping components (all of them here) must be ordered newest data first. */
    private void checkStable() {
        long previousMin = Long.MAX_VALUE;
        for (List<List<ComponentView>> level : levels) {
            for (List<ComponentView> run : level) {
                if (run.size() > 1) {
                    throw new IllegalStateException("a run holds overlapping components " + run);
                }
                for (ComponentView c : run) {
                    if (c.maxSeqno() >= previousMin) {
                        throw new IllegalStateException("stability broken: " + c + " holds flushes "
                                + c.minSeqno() + ".." + c.maxSeqno() + " below newer-positioned data from flush "
                                + previousMin);
                    }
                    previousMin = c.minSeqno();
                }
            }
        }
    }
}
