package dev.strata.lsm;

import java.util.Locale;

/**
 * A table setting stored as a one-byte code and named by a word in configuration
 * ({@link Compression}, {@link LeafEncoding}): the lookups they share. Stateless.
 */
final class CodedSetting {
    private CodedSetting() {
    }

    /** The constant of {@code values} whose code ({@code idOf}) is {@code id}, or null. */
    static <E> E byId(E[] values, java.util.function.ToIntFunction<E> idOf, int id) {
        for (E e : values) {
            if (idOf.applyAsInt(e) == id) {
                return e;
            }
        }
        return null;
    }

    /** The constant of {@code values} named {@code name} (case-insensitive, trimmed), or null. */
    static <E> E byName(E[] values, java.util.function.Function<E, String> nameOf, String name) {
        if (name != null) {
            String n = name.trim().toLowerCase(Locale.ROOT);
            for (E e : values) {
                if (nameOf.apply(e).equals(n)) {
                    return e;
                }
            }
        }
        return null;
    }
}
