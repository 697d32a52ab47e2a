package dev.strata.lsm.version;

import dev.strata.lsm.policy.ComponentId;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One immutable state of the tree: levels of runs of components (level 0 and run 0 are
 * the newest positions), the durable flush counter and the policy's state. Readers pin a
 * version with {@link #tryRetain()} / {@link #release()} so that the files it names are not
 * deleted under them.
 */
public final class Version {
    private final List<List<Run>> levels;
    /** Every component by id, so that {@link #find} does not scan the tree. */
    private final Map<ComponentId, Component> byId;
    private final long flushCounter;
    private final byte[] policyState;
    /** The largest sequence number its components hold data up to (flushed writes), 0 when unknown. */
    private final long lastSequence;
    /** Whether some component holds range tombstones: when none does, reads skip looking for them. */
    private final boolean rangeTombstones;
    private final AtomicInteger refs = new AtomicInteger(1);
    private volatile Runnable onUnreferenced;

    public Version(List<List<Run>> levels, long flushCounter, byte[] policyState) {
        this(levels, flushCounter, policyState, 0);
    }

    /**
     * @param lastSequence every write up to this sequence number is in the components (the
     *     manifest's {@code lastSequence} as of this version): a memtable whose first write
     *     lies at or below it has been flushed into them (flushes take memtables oldest first
     *     and whole)
     */
    public Version(List<List<Run>> levels, long flushCounter, byte[] policyState, long lastSequence) {
        this.lastSequence = lastSequence;
        List<List<Run>> copy = new ArrayList<>(levels.size());
        for (List<Run> l : levels) {
            copy.add(List.copyOf(l));
        }
        // Trailing empty levels carry no information.
        while (!copy.isEmpty() && copy.get(copy.size() - 1).isEmpty()) {
            copy.remove(copy.size() - 1);
        }
        this.levels = List.copyOf(copy);
        Map<ComponentId, Component> ids = new HashMap<>();
        boolean anyRangeTombstones = false;
        for (List<Run> level : this.levels) {
            for (Run run : level) {
                for (Component c : run.components()) {
                    anyRangeTombstones |= c.reader() != null && !c.reader().rangeTombstones().isEmpty();
                    if (ids.put(c.id(), c) != null) {
                        throw new IllegalArgumentException("component " + c.id() + " occurs twice in the layout");
                    }
                }
            }
        }
        this.byId = ids;
        this.rangeTombstones = anyRangeTombstones;
        this.flushCounter = flushCounter;
        this.policyState = policyState == null ? new byte[0] : policyState.clone();
    }

    /** Whether some component of this version holds range tombstones. */
    public boolean hasRangeTombstones() {
        return rangeTombstones;
    }

    /** Levels, each a list of runs newest first. */
    public List<List<Run>> levels() {
        return levels;
    }

    /** Every write up to this sequence number is in the components (see the constructor). */
    public long lastSequence() {
        return lastSequence;
    }

    public long flushCounter() {
        return flushCounter;
    }

    public byte[] policyState() {
        return policyState.clone();
    }

    /** Every component in position order, newest first. */
    public List<Component> components() {
        List<Component> all = new ArrayList<>();
        for (List<Run> level : levels) {
            for (Run run : level) {
                all.addAll(run.components());
            }
        }
        return all;
    }

    /** The component with {@code id}, or null. */
    public Component find(ComponentId id) {
        return byId.get(id);
    }

    /** Number of components in the tree. */
    public int componentCount() {
        return byId.size();
    }

    /** Number of components per level. */
    public int[] componentCounts() {
        int[] counts = new int[levels.size()];
        for (int i = 0; i < levels.size(); i++) {
            for (Run r : levels.get(i)) {
                counts[i] += r.components().size();
            }
        }
        return counts;
    }

    /** Pins this version; false if it was already released for good. */
    public boolean tryRetain() {
        for (;;) {
            int n = refs.get();
            if (n == 0) {
                return false;
            }
            if (refs.compareAndSet(n, n + 1)) {
                return true;
            }
        }
    }

    /** Unpins; the last release runs the version set's cleanup. */
    public void release() {
        int n = refs.decrementAndGet();
        if (n == 0) {
            Runnable r = onUnreferenced;
            if (r != null) {
                r.run();
            }
        } else if (n < 0) {
            throw new IllegalStateException("version released more often than retained");
        }
    }

    boolean isLive() {
        return refs.get() > 0;
    }

    void onUnreferenced(Runnable r) {
        this.onUnreferenced = r;
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder("Version[flushes=").append(flushCounter);
        for (int i = 0; i < levels.size(); i++) {
            sb.append(", L").append(i).append('=');
            List<String> runs = new ArrayList<>();
            for (Run r : levels.get(i)) {
                runs.add(r.components().toString());
            }
            sb.append(runs);
        }
        return sb.append(']').toString();
    }
}
