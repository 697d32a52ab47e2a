package dev.strata.lsm;

/**
 * Which leaf pages a lookup that missed the block cache puts into it. Interior pages, which
 * every lookup of their table passes through, are cached on their first miss either way.
 * XML: {@code <blockCache admission="second-miss"/>}; docs/engine.md, "Block cache admission".
 */
public enum CacheAdmission {
    /**
     * A leaf is cached on its second miss within a window of about four cache capacities of
     * first misses (the default): a page read once, as most are when the tables are many times
     * the cache, costs no insert and no eviction; a page read again is cached, and the cache's
     * own frequency sketch then decides what stays.
     */
    SECOND_MISS("second-miss"),
    /** Every missed leaf is cached (as before session 21, and as RocksDB's block cache fills). */
    EVERY_MISS("every-miss");

    private final String configName;

    CacheAdmission(String configName) {
        this.configName = configName;
    }

    /**
     * The name used in configuration: second-miss or every-miss.
     *
     * @return the admission's configuration name
     */
    public String configName() {
        return configName;
    }

    /**
     * The admission named {@code name} (case-insensitive).
     *
     * @param name second-miss or every-miss, in any case
     * @return the admission
     * @throws ConfigException if there is no such admission
     */
    public static CacheAdmission fromName(String name) {
        CacheAdmission found = CodedSetting.byName(values(), CacheAdmission::configName, name);
        if (found != null) {
            return found;
        }
        throw new ConfigException("unknown block cache admission '" + name + "': expected second-miss or every-miss");
    }

    @Override
    public String toString() {
        return configName;
    }
}
