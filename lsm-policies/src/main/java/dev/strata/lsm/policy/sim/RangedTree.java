package dev.strata.lsm.policy.sim;

import dev.strata.lsm.policy.ComponentId;
import dev.strata.lsm.policy.ComponentView;
import dev.strata.lsm.policy.LevelView;
import dev.strata.lsm.policy.Placement;
import dev.strata.lsm.policy.StoreSettings;
import dev.strata.lsm.policy.TreeView;
import dev.strata.lsm.policy.layout.LayoutModel;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;

/**
 * A key-range-aware simulated tree: levels of runs (newest first) of components sorted by
 * key, each with a key range, a density of entries over it and a sequence range. Changes are
 * applied with the engine's placement semantics and checked: inputs exist, a run's
 * components never overlap, and wherever two components overlap the one positioned above
 * holds only newer data. Not thread safe.
 */
final class RangedTree {
    /** Keys are positions in [0, 1) scaled to 62 bits, written big-endian in 8 bytes. */
    private static final double SCALE = 0x1p62;

    /** One simulated component. */
    static final class Part {
        final ComponentId id;
        final KeyDensity density;
        final long minSeq;
        final long maxSeq;
        final ComponentView view;

        Part(ComponentId id, KeyDensity density, long minSeq, long maxSeq, long creation, long nowMillis,
             double entryBytes) {
            this(id, density, minSeq, maxSeq, creation, nowMillis, entryBytes, -1);
        }

        /** A component whose file holds {@code physicalBytes} (earlier versions too); -1: its logical size. */
        Part(ComponentId id, KeyDensity density, long minSeq, long maxSeq, long creation, long nowMillis,
             double entryBytes, long physicalBytes) {
            this.id = id;
            this.density = density;
            this.minSeq = minSeq;
            this.maxSeq = maxSeq;
            long entries = Math.max(1, Math.round(density.entries()));
            long bytes = Math.max(1, Math.round(density.entries() * entryBytes));
            this.view = ComponentView.builder(id).sizeBytes(bytes).entries(entries, 0).userBytes(bytes)
                    .keyRange(key(density.min()), maxKey(density.max())).seqnos(minSeq, maxSeq)
                    .creation(creation, nowMillis).physicalBytes(Math.max(physicalBytes, bytes)).build();
        }

        double min() {
            return density.min();
        }

        double max() {
            return density.max();
        }

        long bytes() {
            return view.sizeBytes();
        }

        /** Bytes of its file: its own pages and the dead pages of earlier versions of the file. */
        long physicalBytes() {
            return view.physicalBytes();
        }

        boolean overlaps(Part o) {
            return min() < o.max() && o.min() < max();
        }
    }

    /** The shared layout model over simulated components: the engine's placement and stability rules. */
    static final LayoutModel<Part> MODEL = new LayoutModel<>(new LayoutModel.Traits<>() {
        @Override
        public ComponentId id(Part p) {
            return p.id;
        }

        @Override
        public byte[] minKey(Part p) {
            return p.view.minKey();
        }

        @Override
        public byte[] maxKey(Part p) {
            return p.view.maxKey();
        }

        @Override
        public long minSeqno(Part p) {
            return p.minSeq;
        }

        @Override
        public long maxSeqno(Part p) {
            return p.maxSeq;
        }
    });

    /** levels → runs (newest first) → components in key order. */
    private List<List<LayoutModel.Run<Part>>> levels = new ArrayList<>();
    private final Map<ComponentId, Part> byId = new HashMap<>();
    private long nextRunId = 1;

    static byte[] key(double x) {
        long v = (long) (Math.min(1.0, Math.max(0.0, x)) * SCALE);
        return toBytes(v);
    }

    /** The largest key below position {@code x}. */
    static byte[] maxKey(double x) {
        long v = (long) (Math.min(1.0, Math.max(0.0, x)) * SCALE);
        return toBytes(Math.max(0, v - 1));
    }

    private static byte[] toBytes(long v) {
        byte[] b = new byte[8];
        for (int i = 0; i < 8; i++) {
            b[i] = (byte) (v >>> (56 - 8 * i));
        }
        return b;
    }

    /** The position of a key (inverse of {@link #key}; shorter keys are padded with zeros). */
    static double position(byte[] key) {
        long v = 0;
        for (int i = 0; i < 8; i++) {
            v = (v << 8) | (i < key.length ? key[i] & 0xff : 0);
        }
        return v / SCALE;
    }

    Part find(ComponentId id) {
        return byId.get(id);
    }

    int componentCount() {
        return byId.size();
    }

    /** Bytes of the files on disk (dead pages of in-place merged files included). */
    long totalBytes() {
        long sum = 0;
        for (Part p : byId.values()) {
            sum += p.physicalBytes();
        }
        return sum;
    }

    /** The components of the run at {@code level} that holds {@code anchor}; empty if there is none. */
    List<Part> runOf(int level, ComponentId anchor) {
        if (level < levels.size()) {
            for (LayoutModel.Run<Part> run : levels.get(level)) {
                for (Part p : run.components()) {
                    if (p.id.equals(anchor)) {
                        return run.components();
                    }
                }
            }
        }
        return List.of();
    }

    int levelOf(ComponentId id) {
        for (int l = 0; l < levels.size(); l++) {
            for (LayoutModel.Run<Part> run : levels.get(l)) {
                for (Part p : run.components()) {
                    if (p.id.equals(id)) {
                        return l;
                    }
                }
            }
        }
        return -1;
    }

    /** The files of {@code level}, sorted by smallest key (several runs' files interleave). */
    List<Part> levelFiles(int level) {
        List<Part> out = new ArrayList<>();
        if (level < levels.size()) {
            for (LayoutModel.Run<Part> run : levels.get(level)) {
                out.addAll(run.components());
            }
        }
        out.sort((a, b) -> Double.compare(a.min(), b.min()));
        return out;
    }

    TreeView view(long flushCounter, byte[] policyState, long nowMillis, StoreSettings settings) {
        List<LevelView> lv = LevelView.levelsOf(levels, LayoutModel.Run::components, p -> p.view);
        TreeView.RangeEstimator estimator = (c, from, to) -> {
            Part p = byId.get(c.id());
            if (p == null) {
                return 0;
            }
            double lo = from == null ? 0 : position(from);
            double hi = to == null ? 1 : position(to);
            double all = p.density.entries();
            return all <= 0 ? 0 : Math.round(p.bytes() * p.density.entriesIn(lo, hi) / all);
        };
        return new TreeView(lv, flushCounter, policyState, estimator, List.of(), nowMillis, settings);
    }

    /**
     * Removes {@code removed} and places {@code added} as {@code placement} says, by the
     * shared {@link LayoutModel}.
     *
     * @throws IllegalStateException if an input or the anchor is missing, or the result breaks
     *     a run's order or the stability invariant (the tree is then unchanged)
     */
    void apply(List<ComponentId> removed, List<Part> added, Placement placement) {
        List<Part> inputs = new ArrayList<>(removed.size());
        for (ComponentId id : removed) {
            Part p = byId.get(id);
            if (p == null) {
                throw new IllegalStateException("merge input " + id + " does not exist");
            }
            inputs.add(p);
        }
        List<List<LayoutModel.Run<Part>>> next;
        try {
            next = MODEL.apply(levels, new HashSet<>(removed), added, placement, () -> nextRunId++);
            MODEL.checkChange(levels, inputs, added, next);
        } catch (LayoutModel.LayoutException e) {
            throw new IllegalStateException(e.getMessage(), e);
        }
        levels = next;
        removed.forEach(byId::remove);
        for (Part p : added) {
            byId.put(p.id, p);
        }
    }

    /** Files per level and level sizes, e.g. {@code L0 2 files 4.0 MB | L1 8 files 20.1 MB}. */
    String describe() {
        StringBuilder sb = new StringBuilder();
        for (int l = 0; l < levels.size(); l++) {
            long bytes = 0;
            int files = 0;
            for (LayoutModel.Run<Part> run : levels.get(l)) {
                for (Part p : run.components()) {
                    bytes += p.bytes();
                    files++;
                }
            }
            sb.append(l == 0 ? "" : " | ").append('L').append(l).append(' ').append(levels.get(l).size())
                    .append(levels.get(l).size() == 1 ? " run " : " runs ").append(files).append(" files ")
                    .append(String.format(java.util.Locale.ROOT, "%.1f MB", bytes / 1e6));
        }
        return sb.toString();
    }
}
