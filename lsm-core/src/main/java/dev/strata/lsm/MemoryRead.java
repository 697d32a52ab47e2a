package dev.strata.lsm;

/**
 * What {@link LsmStore#getFromMemory} found.
 *
 * @param answered whether memory held the key's newest version, or showed that the key is absent (no
 *     table's key range contains it); if not, {@link LsmStore#get} must read the tables
 * @param value the value when answered, or null when the newest version is a delete or the key is absent
 *     (or when not answered)
 */
public record MemoryRead(boolean answered, byte[] value) {
    /** Memory does not hold the key's newest version. */
    public static final MemoryRead NOT_IN_MEMORY = new MemoryRead(false, null);
    /** The key's newest version, in memory, is a delete. */
    public static final MemoryRead DELETED = new MemoryRead(true, null);
}
