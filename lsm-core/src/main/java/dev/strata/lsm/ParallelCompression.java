package dev.strata.lsm;

import java.util.Locale;

/**
 * Where a flush's or merge's pages are compressed (with a codec; the tables written are the
 * same byte for byte whichever it is): on the building thread itself, on the shared pool of
 * compressor threads while the build goes on, or on the pool only while the process leaves a
 * core idle. XML {@code <sstable parallelCompression="auto|true|false"/>}.
 */
public enum ParallelCompression {
    /**
     * On the flush's or merge's own thread, as RocksDB's {@code parallel_threads} of 1: no
     * hand-offs, the least CPU per table.
     */
    OFF("false"),
    /** On the shared compressor pool, always: a build uses a second core, for hand-offs. */
    ON("true"),
    /**
     * On the pool while this process leaves at least three quarters of a core idle (measured
     * over the last few tens of milliseconds, the compressors' own CPU not counted), else on
     * the building thread: a lone build (a bulk load, a merge after the writers stop) gets a
     * second core, a build beside busy writers and merges pays no hand-offs. The default.
     */
    AUTO("auto");

    private final String configName;

    ParallelCompression(String configName) {
        this.configName = configName;
    }

    /**
     * The name used in configuration: false, true or auto.
     *
     * @return the setting's configuration name
     */
    public String configName() {
        return configName;
    }

    /**
     * {@link #ON} for true, {@link #OFF} for false.
     *
     * @param parallel whether to compress on the pool always
     * @return the setting
     */
    public static ParallelCompression of(boolean parallel) {
        return parallel ? ON : OFF;
    }

    /**
     * The setting named {@code name}: {@code auto}, or an XML boolean ({@code true}, {@code 1},
     * {@code false}, {@code 0}); case-insensitive, surrounding blanks ignored.
     *
     * @param name the setting's name
     * @return the setting
     * @throws ConfigException naming the value and the accepted ones
     */
    public static ParallelCompression fromName(String name) {
        String n = name == null ? "" : name.trim().toLowerCase(Locale.ROOT);
        return switch (n) {
            case "auto" -> AUTO;
            case "true", "1" -> ON;
            case "false", "0" -> OFF;
            default -> throw new ConfigException("parallelCompression must be auto, true or false, got '" + name + "'",
                    "parallelCompression", null);
        };
    }

    @Override
    public String toString() {
        return configName;
    }
}
