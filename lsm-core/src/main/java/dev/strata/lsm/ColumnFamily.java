package dev.strata.lsm;

/**
 * A handle to one column family of an {@link LsmStore}: a named keyspace with its own
 * memtables, tables and merge policy, sharing the store's WAL (so a {@link WriteBatch} across
 * families is atomic) and sequence numbers (so a {@link Snapshot} reads every family at one
 * point in time). Obtained from {@link LsmStore#createColumnFamily}, {@link
 * LsmStore#columnFamily} or {@link LsmStore#listColumnFamilies}; {@link
 * LsmStore#defaultColumnFamily()} is the family the calls without a handle use.
 *
 * <p>Immutable and thread safe. Lifetime: valid until the family is dropped
 * ({@link LsmStore#dropColumnFamily}) or its store is closed; afterwards every call that
 * takes it throws ({@link IllegalArgumentException} naming the dropped family, or {@link
 * StoreClosedException}). A handle works only with the store instance that gave it out: a
 * handle of another store, or of an earlier open of the same directory, is refused.
 */
public final class ColumnFamily {
    /** The name of the default family, which every store has and which cannot be dropped. */
    public static final String DEFAULT_NAME = "default";

    /** The longest family name, in characters. */
    public static final int MAX_NAME_LENGTH = 64;

    private final String name;
    private final int id;
    private final Object owner;
    private volatile boolean dropped;

    ColumnFamily(String name, int id, Object owner) {
        this.name = name;
        this.id = id;
        this.owner = owner;
    }

    /**
     * The family's name.
     *
     * @return the name the family was created with
     */
    public String name() {
        return name;
    }

    /**
     * The family's id: 0 for the default family; never reused in a store once dropped.
     *
     * @return the family's id, 0 or more
     */
    public int id() {
        return id;
    }

    /**
     * Whether this is the default family.
     *
     * @return true for the default family
     */
    public boolean isDefault() {
        return id == 0;
    }

    /**
     * Whether the family was dropped (through this handle's store).
     *
     * @return true once the family was dropped
     */
    public boolean isDropped() {
        return dropped;
    }

    void markDropped() {
        dropped = true;
    }

    boolean ownedBy(Object store) {
        return owner == store;
    }

    /**
     * Checks a family name: 1 to {@value #MAX_NAME_LENGTH} characters from {@code [A-Za-z0-9_.-]},
     * not starting with {@code .} or {@code -}.
     *
     * @param name the name to check
     * @throws IllegalArgumentException naming the problem
     */
    public static void checkName(String name) {
        if (name == null || name.isEmpty()) {
            throw new IllegalArgumentException("column family name must not be null or empty");
        }
        if (name.length() > MAX_NAME_LENGTH) {
            throw new IllegalArgumentException("column family name \"" + name.substring(0, 16) + "...\" has "
                    + name.length() + " characters; at most " + MAX_NAME_LENGTH + " are allowed");
        }
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            boolean ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_'
                    || c == '.' || c == '-';
            if (!ok) {
                throw new IllegalArgumentException("column family name \"" + name + "\" has character '" + c
                        + "' at " + i + "; allowed are letters, digits, '_', '.' and '-'");
            }
        }
        if (name.charAt(0) == '.' || name.charAt(0) == '-') {
            throw new IllegalArgumentException("column family name \"" + name + "\" must not start with '"
                    + name.charAt(0) + "'");
        }
    }

    @Override
    public String toString() {
        return "ColumnFamily[" + name + ", id " + id + (dropped ? ", dropped" : "") + "]";
    }
}
