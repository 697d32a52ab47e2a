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

    /** The external files are kept. */
    public static IngestOptions defaults() {
        return DEFAULTS;
    }

    /**
     * Whether the external files are deleted once they are ingested (RocksDB's
     * {@code move_files}: the store holds its own copy either way).
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
