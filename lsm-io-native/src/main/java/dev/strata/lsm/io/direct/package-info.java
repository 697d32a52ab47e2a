/**
 * The {@code native} storage IO for Linux through JNA direct mapping: O_DIRECT table writes
 * and merge reads on aligned native memory, {@code fallocate} preallocation and hole
 * punching, {@code posix_fadvise}. Select it with
 * {@code <storageIO name="native"><param name="direct" value="true"/></storageIO>} or
 * {@code StoreConfig.builder().storageIO("native", params)}; see {@link dev.strata.lsm.io.direct.NativeStorageIO}.
 */
package dev.strata.lsm.io.direct;
