package dev.strata.lsm.version;

import dev.strata.lsm.policy.ComponentId;

import java.util.ArrayList;
import java.util.List;

/**
 * One manifest record: the store's counters and policy state, and a change to the layout
 * (levels of runs of components). Three kinds (layouts in docs/format.md, "Manifest"):
 *
 * <ul>
 *   <li>{@link Kind#SNAPSHOT}: every live component ({@code added}) and the complete
 *       layout; replaces whatever came before. The first record of every manifest.</li>
 *   <li>{@link Kind#DELTA}: only what changed — components added (with metadata), removed
 *       and moved, each placed component's new (level, run), and per changed level the
 *       runs dropped and inserted (or, rarely, the level's whole run order). Its size does
 *       not depend on how many components the tree holds.</li>
 *   <li>{@link Kind#LAYOUT}: added and removed components and the complete layout after
 *       the change. Every format-1 record is of this kind; formats 2 and 3 write it only when a
 *       change cannot be expressed as a delta.</li>
 * </ul>
 *
 * <p>A snapshot may also record the merge policy the tree runs ({@link PolicyRecord}, format 3):
 * the policy a store opened with a configuration that names none runs. Deltas and layouts never
 * carry it (the policy changes only when a store opens, and every open starts a manifest).
 *
 * @param kind what the record holds
 * @param nextFileNumber next unused file number
 * @param lastSequence largest sequence number in any component
 * @param logNumber WAL segments below this number are no longer needed
 * @param flushCounter completed flushes over the store's life
 * @param nextRunId next unused run id
 * @param nextCreationOrder next component creation order
 * @param policyState the merge policy's durable state
 * @param added components this edit adds (all live ones for a snapshot)
 * @param removed components this edit removes (empty for a snapshot)
 * @param layout the tree after the edit, levels of runs newest first (empty for a delta)
 * @param placed for a delta: the new position of every added or moved component
 * @param levelChanges for a delta: how the run order of each changed level changes
 * @param policy for a snapshot: the merge policy the tree runs, or null when none is recorded
 *     (a manifest written before format 3, a column family's, or a store whose policy is an
 *     instance); always null for a delta or a layout
 */
public record VersionEdit(Kind kind, long nextFileNumber, long lastSequence, long logNumber, long flushCounter,
                          long nextRunId, long nextCreationOrder, byte[] policyState, List<ComponentMeta> added,
                          List<ComponentId> removed, List<List<RunLayout>> layout, List<Position> placed,
                          List<LevelChange> levelChanges, PolicyRecord policy) {

    /** Format version this build writes (the first byte of a record). */
    public static final int FORMAT_VERSION = 3;

    /** What a record holds. */
    public enum Kind {
        SNAPSHOT(1), DELTA(2), LAYOUT(3);

        final int code;

        Kind(int code) {
            this.code = code;
        }

        static Kind of(int code) {
            for (Kind k : values()) {
                if (k.code == code) {
                    return k;
                }
            }
            return null;
        }
    }

    /** One run in a complete layout. */
    public record RunLayout(long runId, List<ComponentId> components) {
        public RunLayout {
            components = List.copyOf(components);
        }
    }

    /** Where a delta puts a component: into run {@code runId} of {@code level}, in key order. */
    public record Position(ComponentId id, int level, long runId) {
    }

    /** A run a delta inserts into a level, empty, at {@code index} of the level's new run order. */
    public record RunInsert(int index, long runId) {
    }

    /**
     * How a delta changes the runs of one level: first {@code dropped} runs leave it (they
     * are empty by then), then {@code inserted} runs enter it in ascending index order. When
     * {@code order} is not null it replaces both: the level's runs are exactly those, in
     * that order (runs not named before are created empty, runs no longer named must be empty).
     */
    public record LevelChange(int level, List<Long> dropped, List<RunInsert> inserted, List<Long> order) {
        public LevelChange {
            dropped = List.copyOf(dropped);
            inserted = List.copyOf(inserted);
            order = order == null ? null : List.copyOf(order);
        }
    }

    public VersionEdit {
        added = List.copyOf(added);
        removed = List.copyOf(removed);
        List<List<RunLayout>> l = new ArrayList<>();
        for (List<RunLayout> level : layout) {
            l.add(List.copyOf(level));
        }
        layout = List.copyOf(l);
        placed = List.copyOf(placed);
        levelChanges = List.copyOf(levelChanges);
        policyState = policyState == null ? new byte[0] : policyState.clone();
        if (policy != null && kind != Kind.SNAPSHOT) {
            throw new IllegalArgumentException("only a snapshot records the merge policy, not a " + kind + " edit");
        }
    }

    /** An edit that records no merge policy (every delta and layout). */
    public VersionEdit(Kind kind, long nextFileNumber, long lastSequence, long logNumber, long flushCounter,
                       long nextRunId, long nextCreationOrder, byte[] policyState, List<ComponentMeta> added,
                       List<ComponentId> removed, List<List<RunLayout>> layout, List<Position> placed,
                       List<LevelChange> levelChanges) {
        this(kind, nextFileNumber, lastSequence, logNumber, flushCounter, nextRunId, nextCreationOrder, policyState,
                added, removed, layout, placed, levelChanges, null);
    }

    /** A snapshot recording no merge policy: every component of {@code layout} described in {@code components}. */
    public static VersionEdit snapshot(long nextFileNumber, long lastSequence, long logNumber, long flushCounter,
                                       long nextRunId, long nextCreationOrder, byte[] policyState,
                                       List<ComponentMeta> components, List<List<RunLayout>> layout) {
        return snapshot(nextFileNumber, lastSequence, logNumber, flushCounter, nextRunId, nextCreationOrder,
                policyState, components, layout, null);
    }

    /**
     * A snapshot: every component of {@code layout} described in {@code components}, and the
     * merge policy the tree runs ({@code policy}; null records none).
     */
    public static VersionEdit snapshot(long nextFileNumber, long lastSequence, long logNumber, long flushCounter,
                                       long nextRunId, long nextCreationOrder, byte[] policyState,
                                       List<ComponentMeta> components, List<List<RunLayout>> layout,
                                       PolicyRecord policy) {
        return new VersionEdit(Kind.SNAPSHOT, nextFileNumber, lastSequence, logNumber, flushCounter, nextRunId,
                nextCreationOrder, policyState, components, List.of(), layout, List.of(), List.of(), policy);
    }

    /** The layout of {@code version}. */
    public static List<List<RunLayout>> layoutOf(Version version) {
        List<List<RunLayout>> layout = new ArrayList<>();
        for (List<Run> level : version.levels()) {
            List<RunLayout> runs = new ArrayList<>();
            for (Run r : level) {
                runs.add(new RunLayout(r.id(), r.components().stream().map(Component::id).toList()));
            }
            layout.add(runs);
        }
        return layout;
    }

    /** A copy of this edit as a {@link Kind#LAYOUT} record holding {@code fullLayout}. */
    VersionEdit asLayout(List<List<RunLayout>> fullLayout) {
        return new VersionEdit(Kind.LAYOUT, nextFileNumber, lastSequence, logNumber, flushCounter, nextRunId,
                nextCreationOrder, policyState, added, removed, fullLayout, List.of(), List.of());
    }

    /** Encodes the edit in format {@link #FORMAT_VERSION} (the record framing adds the checksum). */
    public byte[] encode() {
        return VersionEditCodec.encode(this);
    }

    /** Encodes the edit as a format-1 record (a {@link Kind#LAYOUT} edit only): for compatibility tests. */
    public byte[] encodeFormat1() {
        return VersionEditCodec.encodeFormat1(this);
    }

    /**
     * Encodes the edit as a format-2 record (no recorded policy): for compatibility tests.
     *
     * @throws IllegalArgumentException if the edit records a policy, which format 2 cannot hold
     */
    public byte[] encodeFormat2() {
        return VersionEditCodec.encodeFormat2(this);
    }

    /**
     * Decodes an edit of format 1, 2 or 3.
     *
     * @throws java.io.IOException if the bytes are truncated or malformed, or of an unknown version
     */
    public static VersionEdit decode(byte[] data) throws java.io.IOException {
        return VersionEditCodec.decode(data);
    }
}
