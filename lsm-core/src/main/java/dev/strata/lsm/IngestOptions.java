package dev.strata.lsm;

import java.util.Objects;

/**
 * Options of {@link LsmStore#ingest}. Immutable (safe to share between threads); each setter
 * returns a new object.
 */
public final class IngestOptions {
    private static final IngestOptions DEFAULTS = new IngestOptions(false, Verification.FULL);

    /**
     * How much of each external file {@link LsmStore#ingest} reads before taking it in. Either
     * way a file is rejected (with an {@link IllegalArgumentException} naming it, nothing
     * changed) for a wrong format version or page size, a damaged footer, bloom filter or
     * index page, range tombstones, entries of another sequence number than
     * {@link TableWriter}'s, keys out of order across leaves, or key ranges overlapping another
     * file of the call.
     */
    public enum Verification {
        /**
         * Reads every page of every file (several files at once, each in large sequential
         * chunks): every checksum, every key's order (one entry per key), every entry's type
         * and the store's key and value limits. The default: a damaged data page is refused
         * before it is in the store.
         */
        FULL,
        /**
         * Reads the footer, the bloom filter and the whole index (every interior page, which
         * carries each leaf's min and max key and a summary of its entries), not the leaves:
         * checks the checksums of what it reads, the format, that the leaf fences are in
         * strictly increasing order, that every upper index key ends the subtree under it,
         * and that the leaf summaries add up to the footer's counts and the fences to its key
         * range. Meant for files {@link TableWriter} wrote with this store's configuration
         * (which enforced the order and the limits as it wrote them). A data page damaged
         * after the file was written is not found at ingest: reading it later fails with a
         * {@link CorruptionException} naming the file and page, as for any table of the store.
         * (RocksDB's {@code IngestExternalFileOptions.verify_checksums_before_ingest} defaults
         * to false: it reads a file's properties and key range, no data block checksum.)
         */
        INDEX
    }

    private final boolean deleteFiles;
    private final Verification verification;

    private IngestOptions(boolean deleteFiles, Verification verification) {
        this.deleteFiles = deleteFiles;
        this.verification = verification;
    }

    /**
     * The external files are kept (copied into the store), and read whole ({@link
     * Verification#FULL}).
     *
     * @return the default options
     */
    public static IngestOptions defaults() {
        return DEFAULTS;
    }

    /**
     * Whether the external files are moved into the store (RocksDB's {@code move_files}): each
     * is hard-linked into the store (copied where the file system refuses a link) and its name
     * removed once the ingest is installed. Without it (the default) each file is copied byte
     * for byte and left as it was. Either way its entries are not rewritten.
     *
     * @param delete true to move the files in, false to copy them
     * @return new options, otherwise equal to these
     */
    public IngestOptions deleteFiles(boolean delete) {
        return new IngestOptions(delete, verification);
    }

    /**
     * See {@link #deleteFiles(boolean)}.
     *
     * @return true when the files are moved in
     */
    public boolean isDeleteFiles() {
        return deleteFiles;
    }

    /**
     * How much of each file is read before it is taken in ({@link Verification}); default
     * {@link Verification#FULL}.
     *
     * @param verification how much of each file to read
     * @return new options, otherwise equal to these
     * @throws IllegalArgumentException if {@code verification} is null
     */
    public IngestOptions verification(Verification verification) {
        if (verification == null) {
            throw new IllegalArgumentException("ingest verification must not be null (FULL or INDEX)");
        }
        return new IngestOptions(deleteFiles, verification);
    }

    /**
     * See {@link #verification(Verification)}.
     *
     * @return the verification level
     */
    public Verification verification() {
        return verification;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof IngestOptions other && other.deleteFiles == deleteFiles
                && other.verification == verification;
    }

    @Override
    public int hashCode() {
        return Objects.hash(deleteFiles, verification);
    }

    @Override
    public String toString() {
        return "IngestOptions[deleteFiles=" + deleteFiles + ", verification=" + verification + "]";
    }
}
