package dev.strata.lsm.merge;

import dev.strata.lsm.policy.OutputSpec;

import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * Decides where a merge or flush output is cut into files, evaluating an {@link OutputSpec}
 * key by key. Pure: it sees only the spec, the file bounds of two levels, the user keys in
 * ascending order and the size of the file being written; it writes nothing.
 *
 * <p>Protocol: {@link #fileStarted} with the first user key of each output file, then
 * {@link #cutBefore} before the first entry of every further (new, strictly larger) user key
 * while that file is open; when it answers true the caller finishes the file and starts the
 * next one with that key ({@link #fileStarted} again).
 *
 * <p>Every rule is a predicate on the current file's first key {@code s}, the key {@code k}
 * about to be written and the file's size so far, applied in {@link OutputSpec}'s order:
 * <ol>
 *   <li>size >= {@code maxFileBytes}: cut;</li>
 *   <li>size &lt; {@code minFileBytes}: no cut for the rules below;</li>
 *   <li>{@code k >= c} for the smallest cut key {@code c > s}: cut;</li>
 *   <li>{@code k >= m} for the smallest {@code minKey} {@code m > s} of the aligned level's
 *       files (the start of the next file after the one the output started in): cut;</li>
 *   <li>the files of the level below the target with {@code s <= maxKey < k} (those the
 *       output has passed into and left; LevelDB's grandparent rule counts a file once the
 *       key moves past its largest key) hold more than {@code maxOverlapBytes}: cut;</li>
 *   <li>the files of the level below with {@code maxKey >= s} and {@code minKey <= k} (those
 *       the output has entered, counting the one {@code k} would enter) hold more than
 *       {@code maxOverlapRatio} times the file's size: cut (vLSM, overlap read as bytes);</li>
 *   <li>those same files — the ones whose range intersects {@code [s, k]} — number more than
 *       {@code maxOverlapFiles}: cut (vLSM, overlap read as a count of files).</li>
 * </ol>
 * Keys arrive in ascending order, so each rule keeps a moving index: the whole output costs
 * O(keys + files), amortized O(1) per key, after an O(files) setup.
 *
 * <p>Not thread-safe: one cutter per output.
 */
public final class OutputCutter {

    /**
     * The key range and size of one file of a level.
     *
     * @param minKey the file's smallest user key
     * @param maxKey the file's largest user key ({@code >= minKey})
     * @param bytes the file's size in bytes ({@code >= 0})
     */
    public record FileBounds(byte[] minKey, byte[] maxKey, long bytes) {
        /**
         * Creates a {@code FileBounds} from its components.
         *
         * @param minKey the file's smallest user key
         * @param maxKey the file's largest user key ({@code >= minKey})
         * @param bytes the file's size in bytes ({@code >= 0})
         */
        public FileBounds {
            Objects.requireNonNull(minKey, "minKey");
            Objects.requireNonNull(maxKey, "maxKey");
            if (Arrays.compareUnsigned(minKey, maxKey) > 0) {
                throw new IllegalArgumentException("a file's minKey is above its maxKey: "
                        + Arrays.toString(minKey) + " > " + Arrays.toString(maxKey));
            }
            if (bytes < 0) {
                throw new IllegalArgumentException("a file's size must be >= 0, got " + bytes);
            }
        }
    }

    private final OutputSpec spec;
    private final List<byte[]> cutKeys;
    /** The distinct minKeys of the aligned level, ascending (empty when not aligning). */
    private final byte[][] alignStarts;
    private final FileBounds[] below;
    /** {@code prefix[i]} = bytes of {@code below[0..i)}. */
    private final long[] prefix;
    private final boolean useBelow;

    private byte[] fileStart;
    private byte[] lastKey;
    private int nextCut;
    private int nextAlign;
    /** First file below with {@code maxKey >= fileStart}. */
    private int firstTouched;
    /** First file below with {@code maxKey >= lastKey}: files before it were passed. */
    private int firstNotPassed;
    /** First file below with {@code minKey > lastKey}: files before it were entered. */
    private int firstNotEntered;

    /**
     * @param spec the cutting rules
     * @param alignLevelFiles the files of {@code spec.alignToLevel()} (ignored when it is
     *     {@link OutputSpec#NO_LEVEL}), sorted by minKey
     * @param levelBelowTargetFiles the files of the level below the merge's target (used by
     *     the overlap rules), sorted by minKey and not overlapping
     * @throws IllegalArgumentException if a list is out of order or the level below overlaps itself
     */
    public OutputCutter(OutputSpec spec, List<FileBounds> alignLevelFiles, List<FileBounds> levelBelowTargetFiles) {
        this.spec = Objects.requireNonNull(spec, "spec");
        Objects.requireNonNull(alignLevelFiles, "alignLevelFiles");
        Objects.requireNonNull(levelBelowTargetFiles, "levelBelowTargetFiles");
        this.cutKeys = spec.cutKeys();
        if (spec.alignToLevel() == OutputSpec.NO_LEVEL) {
            alignStarts = new byte[0][];
        } else {
            alignStarts = distinctStarts(alignLevelFiles);
        }
        this.useBelow = spec.usesLevelBelow();
        this.below = useBelow ? checkedLevel(levelBelowTargetFiles) : new FileBounds[0];
        this.prefix = new long[below.length + 1];
        for (int i = 0; i < below.length; i++) {
            try {
                prefix[i + 1] = Math.addExact(prefix[i], below[i].bytes());
            } catch (ArithmeticException e) {
                throw new IllegalArgumentException("the level-below files' sizes add up past Long.MAX_VALUE", e);
            }
        }
    }

    /**
     * Starts a new output file whose first user key is {@code firstUserKey}.
     *
     * @param firstUserKey the first user key written to the new file
     */
    public void fileStarted(byte[] firstUserKey) {
        Objects.requireNonNull(firstUserKey, "firstUserKey");
        advanceTo(firstUserKey, false);
        fileStart = firstUserKey.clone();
        // Rules 3 and 4: the next boundary strictly above the file's first key.
        while (nextCut < cutKeys.size() && Arrays.compareUnsigned(cutKeys.get(nextCut), firstUserKey) <= 0) {
            nextCut++;
        }
        while (nextAlign < alignStarts.length && Arrays.compareUnsigned(alignStarts[nextAlign], firstUserKey) <= 0) {
            nextAlign++;
        }
        firstTouched = firstNotPassed;
    }

    /**
     * Whether the current file must be finished before {@code userKey}, the next (new,
     * strictly larger) user key, is written.
     *
     * @param currentFileBytes the current file's size so far
     * @param userKey the next user key to write
     * @return true when the current file must be finished first
     * @throws IllegalStateException if no file was started
     * @throws IllegalArgumentException if the key is not above the previous one
     */
    public boolean cutBefore(byte[] userKey, long currentFileBytes) {
        Objects.requireNonNull(userKey, "userKey");
        if (fileStart == null) {
            throw new IllegalStateException("cutBefore called before fileStarted");
        }
        advanceTo(userKey, true);
        if (currentFileBytes >= spec.maxFileBytes()) {
            return true;
        }
        if (currentFileBytes < spec.minFileBytes()) {
            return false;
        }
        if (nextCut < cutKeys.size() && Arrays.compareUnsigned(userKey, cutKeys.get(nextCut)) >= 0) {
            return true;
        }
        if (nextAlign < alignStarts.length && Arrays.compareUnsigned(userKey, alignStarts[nextAlign]) >= 0) {
            return true;
        }
        if (!useBelow) {
            return false;
        }
        long passed = firstNotPassed > firstTouched ? prefix[firstNotPassed] - prefix[firstTouched] : 0;
        if (passed > spec.maxOverlapBytes()) {
            return true;
        }
        long entered = firstNotEntered > firstTouched ? prefix[firstNotEntered] - prefix[firstTouched] : 0;
        if (entered > spec.maxOverlapRatio() * currentFileBytes) {
            return true;
        }
        return firstNotEntered - firstTouched > spec.maxOverlapFiles();
    }

    /**
     * Moves the level-below indexes to {@code key}, checking that keys ascend (a file may
     * start with the key its predecessor was cut before).
     */
    private void advanceTo(byte[] key, boolean strictly) {
        if (lastKey != null) {
            int c = Arrays.compareUnsigned(key, lastKey);
            if (c < 0 || (strictly && c == 0)) {
                throw new IllegalArgumentException("user keys must be " + (strictly ? "strictly " : "")
                        + "ascending: " + Arrays.toString(key) + " after " + Arrays.toString(lastKey));
            }
        }
        lastKey = key.clone();
        while (firstNotPassed < below.length && Arrays.compareUnsigned(below[firstNotPassed].maxKey(), key) < 0) {
            firstNotPassed++;
        }
        while (firstNotEntered < below.length && Arrays.compareUnsigned(below[firstNotEntered].minKey(), key) <= 0) {
            firstNotEntered++;
        }
    }

    private static byte[][] distinctStarts(List<FileBounds> files) {
        byte[][] starts = new byte[files.size()][];
        int n = 0;
        for (int i = 0; i < files.size(); i++) {
            byte[] min = Objects.requireNonNull(files.get(i), "file bounds").minKey();
            if (n > 0) {
                int c = Arrays.compareUnsigned(starts[n - 1], min);
                if (c > 0) {
                    throw new IllegalArgumentException("aligned level files must be sorted by minKey; file " + i
                            + " starts at " + Arrays.toString(min) + ", below the previous file's start");
                }
                if (c == 0) {
                    continue;
                }
            }
            starts[n++] = min;
        }
        return Arrays.copyOf(starts, n);
    }

    private static FileBounds[] checkedLevel(List<FileBounds> files) {
        FileBounds[] out = files.toArray(new FileBounds[0]);
        for (int i = 0; i < out.length; i++) {
            Objects.requireNonNull(out[i], "file bounds");
            if (i > 0 && Arrays.compareUnsigned(out[i - 1].maxKey(), out[i].minKey()) >= 0) {
                throw new IllegalArgumentException("level-below files must be sorted by minKey and not overlap; file "
                        + (i - 1) + " ends at " + Arrays.toString(out[i - 1].maxKey()) + ", file " + i
                        + " starts at " + Arrays.toString(out[i].minKey()));
            }
        }
        return out;
    }
}
