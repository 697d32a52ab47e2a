package dev.strata.lsm;

/**
 * How the cells of a table's leaves are encoded (format 3, footer byte 133; docs/format.md).
 * {@link #PLAIN} is the leaf of formats 1 and 2: every cell holds its whole key and an 8-byte
 * trailer, and every cell has a slot. {@link #PREFIX} (the default for new tables) stores each
 * key as the suffix after the prefix it shares with the previous cell's key, the sequence
 * number and type as one varint, and keeps a slot only for every N-th cell (a restart point,
 * whose key is stored whole), so a lookup binary-searches the restarts and scans at most N
 * cells. A table's encoding is fixed when it is written; an in-place merge keeps its base's.
 */
public enum LeafEncoding {
    /** Every cell holds its whole key. */
    PLAIN(0, "plain"),
    /** Keys share a prefix with the restart point before them; every restart interval holds a whole key. */
    PREFIX(1, "prefix");

    private final int id;
    private final String configName;

    LeafEncoding(int id, String configName) {
        this.id = id;
        this.configName = configName;
    }

    /**
     * The code stored on disk (footer byte 133).
     *
     * @return the encoding's on-disk code
     */
    public int id() {
        return id;
    }

    /**
     * The name used in configuration: plain or prefix.
     *
     * @return the encoding's configuration name
     */
    public String configName() {
        return configName;
    }

    /**
     * The encoding with on-disk code {@code id}, or null when there is none.
     *
     * @param id an on-disk encoding code
     * @return the encoding, or null for an unknown code
     */
    public static LeafEncoding fromId(int id) {
        return CodedSetting.byId(values(), LeafEncoding::id, id);
    }

    /**
     * The encoding named {@code name} (case-insensitive).
     *
     * @param name the encoding's configuration name, in any case
     * @return the encoding
     * @throws ConfigException if there is no such encoding
     */
    public static LeafEncoding fromName(String name) {
        LeafEncoding found = CodedSetting.byName(values(), LeafEncoding::configName, name);
        if (found != null) {
            return found;
        }
        throw new ConfigException("unknown leaf encoding '" + name + "': expected prefix or plain");
    }

    @Override
    public String toString() {
        return configName;
    }
}
