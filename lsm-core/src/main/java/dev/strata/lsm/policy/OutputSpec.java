package dev.strata.lsm.policy;

import java.util.Arrays;
import java.util.List;

/**
 * How a merge or a flush cuts its output into files, as data the engine's table output
 * evaluates entry by entry. A file is only ever cut between two different user keys (all
 * versions of a key stay in one file). Rules, in the order the engine applies them before
 * each new user key:
 * <ol>
 *   <li>the current file has reached {@code maxFileBytes}: cut;</li>
 *   <li>the current file is smaller than {@code minFileBytes}: do not cut for any of the
 *       reasons below;</li>
 *   <li>the key is at or past the next of {@code cutKeys}: cut;</li>
 *   <li>{@code alignToLevel} names a level and the key is at or past the smallest key of the
 *       next file of that level (in the version the merge started from): cut — outputs then
 *       line up with that level's files (dividing merges). A policy that moves that level's
 *       files to another level while such a merge is queued leaves it nothing to align with;
 *       it waits for the merge (the merge may hold no component of that level);</li>
 *   <li>the files of the level below the target that the current output's key range has
 *       passed into hold more than {@code maxOverlapBytes}: cut (LevelDB's grandparent rule);</li>
 *   <li>those overlapped bytes, counting the files the key would pass into, exceed
 *       {@code maxOverlapRatio} times the current file's size: cut (vLSM's overlap-aware
 *       vSSTs: with {@code minFileBytes} = S_m and {@code maxFileBytes} = S_M, a file whose
 *       overlap ratio is above the limit when it reaches S_m is closed there, a "poor" one,
 *       and a good one grows while its ratio stays within the limit);</li>
 *   <li>the files of the level below the target that the output's key range, extended to
 *       the key, intersects (those it has entered, counting the one the key would enter)
 *       number more than {@code maxOverlapFiles}: cut (vLSM's vSSTs with overlap read as a
 *       count of level-2 SSTs, FAMILIES.md §3.1 step 2: with {@code minFileBytes} = S_m and
 *       {@code maxFileBytes} = S_M, a file that intersects more than f files when it reaches
 *       S_m is closed there, a "poor" one, and a good one grows until the next key would make
 *       it intersect more than f, or until S_M).</li>
 * </ol>
 * Immutable; the wither methods return copies.
 *
 * @param maxFileBytes start a new file once the current one reaches this size;
 *     {@link Long#MAX_VALUE} for no limit
 * @param minFileBytes never cut for rules 3–7 before the current file reaches this size (0: no minimum)
 * @param cutKeys start a new file before the first key >= each of these keys (sorted ascending here)
 * @param alignToLevel the level whose file boundaries outputs align with, or {@link #NO_LEVEL}
 * @param maxOverlapBytes the most bytes of the level below the target one output file may
 *     overlap; {@link Long#MAX_VALUE} for no limit
 * @param maxOverlapRatio the most bytes of the level below the target one output file may
 *     overlap per byte of its own; {@link Double#POSITIVE_INFINITY} for no limit
 * @param maxOverlapFiles the most files of the level below the target one output file's key
 *     range may intersect ({@code >= 1}); {@link Integer#MAX_VALUE} for no limit
 */
public record OutputSpec(long maxFileBytes, long minFileBytes, List<byte[]> cutKeys, int alignToLevel,
                         long maxOverlapBytes, double maxOverlapRatio, int maxOverlapFiles) {

    /** {@link #alignToLevel} value meaning "align with no level". */
    public static final int NO_LEVEL = -1;

    private static final OutputSpec SINGLE_FILE = new OutputSpec(Long.MAX_VALUE, 0, List.of(), NO_LEVEL,
            Long.MAX_VALUE, Double.POSITIVE_INFINITY, Integer.MAX_VALUE);

    /**
     * Creates a {@code OutputSpec} from its components.
     *
     * @param maxFileBytes start a new file once the current one reaches this size;
     *     {@link Long#MAX_VALUE} for no limit
     * @param minFileBytes never cut for rules 3–7 before the current file reaches this size (0: no minimum)
     * @param cutKeys start a new file before the first key >= each of these keys (sorted ascending here)
     * @param alignToLevel the level whose file boundaries outputs align with, or {@link #NO_LEVEL}
     * @param maxOverlapBytes the most bytes of the level below the target one output file may
     *     overlap; {@link Long#MAX_VALUE} for no limit
     * @param maxOverlapRatio the most bytes of the level below the target one output file may
     *     overlap per byte of its own; {@link Double#POSITIVE_INFINITY} for no limit
     * @param maxOverlapFiles the most files of the level below the target one output file's key
     *     range may intersect ({@code >= 1}); {@link Integer#MAX_VALUE} for no limit
     */
    public OutputSpec {
        if (maxFileBytes <= 0) {
            throw new IllegalArgumentException("maxFileBytes must be positive, got " + maxFileBytes);
        }
        if (minFileBytes < 0 || minFileBytes > maxFileBytes) {
            throw new IllegalArgumentException("minFileBytes must be in [0, maxFileBytes=" + maxFileBytes + "], got "
                    + minFileBytes);
        }
        if (alignToLevel < NO_LEVEL) {
            throw new IllegalArgumentException("alignToLevel must be a level >= 0 or NO_LEVEL, got " + alignToLevel);
        }
        if (maxOverlapBytes <= 0) {
            throw new IllegalArgumentException("maxOverlapBytes must be positive, got " + maxOverlapBytes);
        }
        if (!(maxOverlapRatio > 0)) {
            throw new IllegalArgumentException("maxOverlapRatio must be positive, got " + maxOverlapRatio);
        }
        if (maxOverlapFiles < 1) {
            throw new IllegalArgumentException("maxOverlapFiles must be >= 1 (Integer.MAX_VALUE for no limit), got "
                    + maxOverlapFiles);
        }
        cutKeys = cutKeys == null ? List.of() : cutKeys.stream().map(byte[]::clone)
                .sorted(Arrays::compareUnsigned).toList();
    }

    /**
     * A spec without an overlap-file-count limit.
     *
     * @param maxFileBytes start a new file once the current one reaches this size; {@link
     *     Long#MAX_VALUE} for no limit
     *
     * @param minFileBytes never cut for rules 3–7 before the current file reaches this size (0: no
     *     minimum)
     *
     * @param cutKeys start a new file before the first key >= each of these keys (null: none)
     * @param alignToLevel the level whose file boundaries outputs align with, or {@link #NO_LEVEL}
     * @param maxOverlapBytes the most bytes of the level below the target one output file may
     *     overlap; {@link Long#MAX_VALUE} for no limit
     *
     * @param maxOverlapRatio the most bytes of the level below the target one output file may
     *     overlap per byte of its own; {@link Double#POSITIVE_INFINITY} for no limit
     */
    public OutputSpec(long maxFileBytes, long minFileBytes, List<byte[]> cutKeys, int alignToLevel,
                      long maxOverlapBytes, double maxOverlapRatio) {
        this(maxFileBytes, minFileBytes, cutKeys, alignToLevel, maxOverlapBytes, maxOverlapRatio, Integer.MAX_VALUE);
    }

    /**
     * A spec without an overlap-ratio or overlap-file-count limit.
     *
     * @param maxFileBytes start a new file once the current one reaches this size; {@link
     *     Long#MAX_VALUE} for no limit
     *
     * @param minFileBytes never cut for rules 3–7 before the current file reaches this size (0: no
     *     minimum)
     *
     * @param cutKeys start a new file before the first key >= each of these keys (null: none)
     * @param alignToLevel the level whose file boundaries outputs align with, or {@link #NO_LEVEL}
     * @param maxOverlapBytes the most bytes of the level below the target one output file may
     *     overlap; {@link Long#MAX_VALUE} for no limit
     */
    public OutputSpec(long maxFileBytes, long minFileBytes, List<byte[]> cutKeys, int alignToLevel,
                      long maxOverlapBytes) {
        this(maxFileBytes, minFileBytes, cutKeys, alignToLevel, maxOverlapBytes, Double.POSITIVE_INFINITY);
    }

    /**
     * One output file, however large (also the only spec a {@link MergeMode#MOVE} accepts).
     *
     * @return the shared spec with no limit and no cut
     */
    public static OutputSpec singleFile() {
        return SINGLE_FILE;
    }

    /**
     * Output files of at most about {@code bytes} each.
     *
     * @param bytes the size at which a file is closed (rule 1), positive
     * @return a new spec with no other rule
     */
    public static OutputSpec maxFileBytes(long bytes) {
        return SINGLE_FILE.withMaxFileBytes(bytes);
    }

    /**
     * A copy with the given maximum file size.
     *
     * @param bytes the size at which a file is closed (rule 1), positive
     * @return a new spec, otherwise equal to this one
     */
    public OutputSpec withMaxFileBytes(long bytes) {
        return new OutputSpec(bytes, Math.min(minFileBytes, bytes), cutKeys, alignToLevel, maxOverlapBytes,
                maxOverlapRatio, maxOverlapFiles);
    }

    /**
     * A copy with the given minimum file size.
     *
     * @param bytes the size below which rules 3–7 do not cut, from 0 to {@link #maxFileBytes}
     * @return a new spec, otherwise equal to this one
     */
    public OutputSpec withMinFileBytes(long bytes) {
        return new OutputSpec(maxFileBytes, bytes, cutKeys, alignToLevel, maxOverlapBytes, maxOverlapRatio,
                maxOverlapFiles);
    }

    /**
     * A copy that also cuts before each of {@code keys}.
     *
     * @param keys the cut keys (rule 3), replacing this spec's (null: none)
     * @return a new spec, otherwise equal to this one
     */
    public OutputSpec withCutKeys(List<byte[]> keys) {
        return new OutputSpec(maxFileBytes, minFileBytes, keys, alignToLevel, maxOverlapBytes, maxOverlapRatio,
                maxOverlapFiles);
    }

    /**
     * A copy whose outputs align with the file boundaries of {@code level}.
     *
     * @param level the level whose file boundaries to align with (rule 4), or {@link #NO_LEVEL}
     * @return a new spec, otherwise equal to this one
     */
    public OutputSpec alignedTo(int level) {
        return new OutputSpec(maxFileBytes, minFileBytes, cutKeys, level, maxOverlapBytes, maxOverlapRatio,
                maxOverlapFiles);
    }

    /**
     * A copy that limits each output's overlap with the level below the target to {@code bytes}.
     *
     * @param bytes the most overlapped bytes per output file (rule 5), positive
     * @return a new spec, otherwise equal to this one
     */
    public OutputSpec withMaxOverlapBytes(long bytes) {
        return new OutputSpec(maxFileBytes, minFileBytes, cutKeys, alignToLevel, bytes, maxOverlapRatio,
                maxOverlapFiles);
    }

    /**
     * A copy that limits each output's overlap with the level below the target to {@code ratio}
     * times its size.
     *
     * @param ratio the most overlapped bytes per byte of output (rule 6), positive
     * @return a new spec, otherwise equal to this one
     */
    public OutputSpec withMaxOverlapRatio(double ratio) {
        return new OutputSpec(maxFileBytes, minFileBytes, cutKeys, alignToLevel, maxOverlapBytes, ratio,
                maxOverlapFiles);
    }

    /**
     * A copy that limits each output's key range to intersect at most {@code files} files of
     * the level below the target (rule 7).
     *
     * @param files the most files of the level below one output may intersect, at least 1
     * @return a new spec, otherwise equal to this one
     */
    public OutputSpec withMaxOverlapFiles(int files) {
        return new OutputSpec(maxFileBytes, minFileBytes, cutKeys, alignToLevel, maxOverlapBytes, maxOverlapRatio,
                files);
    }

    /**
     * Whether an overlap rule (5, 6 or 7) is set: the cutter then needs the files of the level
     * below the target.
     *
     * @return true when {@code maxOverlapBytes}, {@code maxOverlapRatio} or {@code maxOverlapFiles}
     *     is limited
     */
    public boolean usesLevelBelow() {
        return maxOverlapBytes != Long.MAX_VALUE || maxOverlapRatio != Double.POSITIVE_INFINITY
                || maxOverlapFiles != Integer.MAX_VALUE;
    }

    /**
     * Whether this spec can produce more than one file.
     *
     * @return false only for a spec equivalent to {@link #singleFile()}
     */
    public boolean cuts() {
        return !equals(SINGLE_FILE);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof OutputSpec s && s.maxFileBytes == maxFileBytes && s.minFileBytes == minFileBytes
                && s.alignToLevel == alignToLevel && s.maxOverlapBytes == maxOverlapBytes
                && Double.compare(s.maxOverlapRatio, maxOverlapRatio) == 0 && s.maxOverlapFiles == maxOverlapFiles
                && s.cutKeys.size() == cutKeys.size() && sameKeys(s.cutKeys, cutKeys);
    }

    private static boolean sameKeys(List<byte[]> a, List<byte[]> b) {
        for (int i = 0; i < a.size(); i++) {
            if (!Arrays.equals(a.get(i), b.get(i))) {
                return false;
            }
        }
        return true;
    }

    @Override
    public int hashCode() {
        return Long.hashCode(maxFileBytes) * 31 + alignToLevel * 7 + cutKeys.size();
    }

    @Override
    public String toString() {
        if (!cuts()) {
            return "single file";
        }
        StringBuilder sb = new StringBuilder("cut");
        if (maxFileBytes != Long.MAX_VALUE) {
            sb.append(" max=").append(maxFileBytes);
        }
        if (minFileBytes > 0) {
            sb.append(" min=").append(minFileBytes);
        }
        if (!cutKeys.isEmpty()) {
            sb.append(" keys=").append(cutKeys.size());
        }
        if (alignToLevel != NO_LEVEL) {
            sb.append(" align=L").append(alignToLevel);
        }
        if (maxOverlapRatio != Double.POSITIVE_INFINITY) {
            sb.append(" overlap-ratio<=").append(maxOverlapRatio);
        }
        if (maxOverlapFiles != Integer.MAX_VALUE) {
            sb.append(" overlap-files<=").append(maxOverlapFiles);
        }
        if (maxOverlapBytes != Long.MAX_VALUE) {
            sb.append(" overlap<=").append(maxOverlapBytes);
        }
        return sb.toString();
    }

}
