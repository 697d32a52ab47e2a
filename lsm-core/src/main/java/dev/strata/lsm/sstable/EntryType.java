package dev.strata.lsm.sstable;

/** What an internal entry records about its key. The code is stored on disk. */
public enum EntryType {
    /** The key was deleted; the entry is a tombstone without a value. */
    DELETE(0),
    /** The key was set to a value. */
    PUT(1),
    /**
     * A merge operand: combined with the versions below it by the store's merge operator
     * ({@code LsmStore.merge}); carries the operand as its value.
     */
    MERGE(2);

    private final int code;

    EntryType(int code) {
        this.code = code;
    }

    /** The on-disk code (low byte of the entry trailer). */
    public int code() {
        return code;
    }

    /** The type with on-disk {@code code}, or null when the code is unknown. */
    public static EntryType fromCode(int code) {
        return switch (code) {
            case 0 -> DELETE;
            case 1 -> PUT;
            case 2 -> MERGE;
            default -> null;
        };
    }
}
