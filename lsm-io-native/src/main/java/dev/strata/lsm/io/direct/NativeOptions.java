package dev.strata.lsm.io.direct;

/**
 * The parameters of the {@code native} storage IO (see {@link NativeStorageIOFactory}).
 *
 * @param direct      O_DIRECT for table writes (flushes and merges) and merge reads
 * @param punchHoles  {@link dev.strata.lsm.io.PageFile#punchHole} is offered
 * @param fadvise     DONTNEED behind merge reads and buffered table writes, RANDOM for point reads
 * @param preallocate fallocate(KEEP_SIZE) ahead of table writes; {@link dev.strata.lsm.io.PageFile#preallocate} offered
 */
public record NativeOptions(boolean direct, boolean punchHoles, boolean fadvise, boolean preallocate) {
    /** Everything on: the defaults. */
    public static final NativeOptions DEFAULTS = new NativeOptions(true, true, true, true);
}
