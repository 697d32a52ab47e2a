package dev.strata.lsm.sstable;

import java.util.Locale;

/**
 * A table setting that a table stores as a one-byte code and a configuration names by a word
 * ({@link Compression}, {@link LeafEncoding}): the lookups they share. Stateless.
 */
interface CodedSetting {
    /** The code stored on disk. */
    int id();

    /** The name used in configuration. */
    String configName();

    /** The constant of {@code values} with on-disk code {@code id}, or null when there is none. */
    static <E extends CodedSetting> E byId(E[] values, int id) {
        for (E e : values) {
            if (e.id() == id) {
                return e;
            }
        }
        return null;
    }

    /** The constant of {@code values} named {@code name} (case-insensitive, trimmed), or null when there is none. */
    static <E extends CodedSetting> E byName(E[] values, String name) {
        if (name != null) {
            String n = name.trim().toLowerCase(Locale.ROOT);
            for (E e : values) {
                if (e.configName().equals(n)) {
                    return e;
                }
            }
        }
        return null;
    }
}
