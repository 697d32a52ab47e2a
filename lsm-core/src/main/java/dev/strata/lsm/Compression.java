package dev.strata.lsm;

import dev.strata.lsm.sstable.TableOptions;

/**
 * The page compression codec of a table (format 3, docs/format.md): {@code none} (the
 * default) or one of the native codecs LZ4, Zstandard and Snappy. The codec is recorded in
 * each table's footer (byte 132) and in each compressed page's frame header, so a table is
 * always read with the codec it was written with, whatever the store is configured with now.
 */
public enum Compression {
    /** No compression: leaves stored as written. */
    NONE(0, "none"),
    /** LZ4: fast, a moderate ratio (lz4-java). */
    LZ4(1, "lz4"),
    /** Zstandard at the configured level (zstd-jni). */
    ZSTD(2, "zstd"),
    /** Snappy: fast, a moderate ratio (snappy-java). */
    SNAPPY(3, "snappy");

    /** Zstandard's default level (and the configuration's). */
    public static final int DEFAULT_LEVEL = 3;
    /** Levels accepted for Zstandard. */
    public static final int MIN_ZSTD_LEVEL = 1;
    /** The highest level accepted for Zstandard. */
    public static final int MAX_ZSTD_LEVEL = 22;
    /** LZ4's acceleration unless configured: LZ4's own default, and what RocksDB's lz4 uses. */
    public static final int DEFAULT_LZ4_ACCELERATION = 1;
    /** The highest LZ4 acceleration accepted (LZ4's {@code LZ4_ACCELERATION_MAX}). */
    public static final int MAX_LZ4_ACCELERATION = 65537;

    private final int id;
    private final String configName;

    Compression(int id, String configName) {
        this.id = id;
        this.configName = configName;
    }

    /**
     * The code stored on disk (footer byte 132, frame header byte 4).
     *
     * @return the codec's on-disk code
     */
    public int id() {
        return id;
    }

    /**
     * The name used in configuration: none, lz4, zstd or snappy.
     *
     * @return the codec's configuration name
     */
    public String configName() {
        return configName;
    }

    /**
     * The codec with on-disk code {@code id} (a table footer's, docs/format.md), or null when there
     * is none.
     *
     * @param id an on-disk codec code
     * @return the codec, or null for an unknown code
     */
    public static Compression fromId(int id) {
        return CodedSetting.byId(values(), Compression::id, id);
    }

    /**
     * The codec named {@code name} (case-insensitive).
     *
     * @param name the codec's configuration name, in any case
     * @return the codec
     * @throws ConfigException if there is no such codec
     */
    public static Compression fromName(String name) {
        Compression found = CodedSetting.byName(values(), Compression::configName, name);
        if (found != null) {
            return found;
        }
        throw new ConfigException("unknown compression codec '" + name + "': expected none, lz4, zstd or snappy");
    }

    /**
     * Loads this codec's native library (once per JVM) and checks that it round-trips a page.
     *
     * @throws ConfigException naming the codec if its native part cannot be loaded or fails
     */
    public void checkAvailable() {
        TableOptions.checkCodecAvailable(this);
    }

    @Override
    public String toString() {
        return configName;
    }
}
