package dev.strata.lsm;

import java.nio.file.Path;

/**
 * Persistent data failed a checksum or structural check. The message names the file and
 * the page or byte offset where the damage was found. Strata never returns data from a
 * page that failed its check.
 */
public class CorruptionException extends StoreException {
    private static final long serialVersionUID = 1L;

    private final transient Path file;
    /** Where in the file the damage was found (see {@link #offset()}). */
    private final long offset;

    /**
     * Corruption found in {@code file} at byte {@code offset}, described by {@code message}.
     *
     * @param file the damaged file, or null when not file-backed
     * @param offset the byte offset of the damage in {@code file}
     * @param message what is wrong
     */
    public CorruptionException(Path file, long offset, String message) {
        super(message);
        this.file = file;
        this.offset = offset;
    }

    /**
     * Corruption found in {@code file} at byte {@code offset}, described by {@code message}, found through {@code
     * cause}.
     *
     * @param file the damaged file, or null when not file-backed
     * @param offset the byte offset of the damage in {@code file}
     * @param message what is wrong
     * @param cause the error that revealed it
     */
    public CorruptionException(Path file, long offset, String message, Throwable cause) {
        super(message, cause);
        this.file = file;
        this.offset = offset;
    }

    /**
     * The damaged file, or null when not file-backed.
     *
     * @return the file, or null
     */
    public Path file() {
        return file;
    }

    /**
     * Byte offset in {@link #file()} where the damage was found (start of the damaged page or
     * record).
     *
     * @return the byte offset in the file
     */
    public long offset() {
        return offset;
    }
}
