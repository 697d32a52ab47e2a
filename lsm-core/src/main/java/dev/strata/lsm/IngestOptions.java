package dev.strata.lsm;

/**
 * Options of {@link LsmStore#ingest}. Immutable; each setter returns a new object.
 */
public final class IngestOptions {
    private static final IngestOptions DEFAULTS = new IngestOptions(false);

    private final boolean deleteFiles;

    private IngestOptions(boolean deleteFiles) {
        this.deleteFiles = deleteFiles;
    }

    /** The external files are kept (copied into the store). */
    public static IngestOptions defaults() {
        return DEFAULTS;
    }

    /**
     * Whether the external files are moved into the store (RocksDB's {@code move_files}): each
     * is hard-linked into the store (copied where the file system refuses a link) and its name
     * removed once the ingest is installed. Without it (the default) each file is copied byte
     * for byte and left as it was. Either way its entries are not rewritten.
     */
    public IngestOptions deleteFiles(boolean delete) {
        return new IngestOptions(delete);
    }

    /** See {@link #deleteFiles(boolean)}. */
    public boolean isDeleteFiles() {
        return deleteFiles;
    }

    @Override
    public String toString() {
        return "IngestOptions[deleteFiles=" + deleteFiles + "]";
    }
}
