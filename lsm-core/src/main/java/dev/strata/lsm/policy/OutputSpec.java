package dev.strata.lsm.policy;

import java.util.List;

/**
 * How a merge cuts its output into files.
 *
 * @param maxFileBytes start a new output file once the current one reaches this size;
 *     {@link Long#MAX_VALUE} for a single file
 * @param cutKeys also start a new output file before the first key >= each of these keys
 *     (ascending; for dividing merges that align outputs with the files of another level)
 */
public record OutputSpec(long maxFileBytes, List<byte[]> cutKeys) {
    public OutputSpec {
        if (maxFileBytes <= 0) {
            throw new IllegalArgumentException("maxFileBytes must be positive, got " + maxFileBytes);
        }
        cutKeys = cutKeys == null ? List.of() : List.copyOf(cutKeys);
    }

    /** One output file, however large. */
    public static OutputSpec singleFile() {
        return new OutputSpec(Long.MAX_VALUE, List.of());
    }

    /** Output files of at most about {@code bytes} each. */
    public static OutputSpec maxFileBytes(long bytes) {
        return new OutputSpec(bytes, List.of());
    }
}
