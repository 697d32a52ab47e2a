package dev.strata.lsm.policy;

import java.util.Locale;
import java.util.Objects;

/**
 * One typed, validated parameter a merge policy declares, with its default and its
 * allowed range. Values arrive as strings (from XML or the command line) and are parsed
 * here, so every policy reports bad values the same way.
 *
 * @param name the parameter's name as written in XML ({@code <param name="..."/>})
 * @param type the value type
 * @param defaultValue the value used when the parameter is not given
 * @param min smallest allowed value (inclusive), or null
 * @param max largest allowed value (inclusive), or null
 * @param description one line for documentation and error messages
 */
public record PolicyParameter(String name, Type type, Object defaultValue, Number min, Number max,
                              String description) {

    /** Value types. */
    public enum Type {
        /** A 32-bit integer. */
        INT,
        /** A 64-bit integer. */
        LONG,
        /** A floating-point number. */
        DOUBLE,
        /** A byte count: a whole number with an optional unit B, KiB, MiB, GiB, TiB (or K, M, G, T; KB = 1000). */
        BYTES,
        /** true or false. */
        BOOLEAN
    }

    public PolicyParameter {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(defaultValue, "defaultValue");
        description = description == null ? "" : description;
    }

    /** An int parameter in [min, max]. */
    public static PolicyParameter ofInt(String name, int defaultValue, int min, int max, String description) {
        return new PolicyParameter(name, Type.INT, defaultValue, min, max, description);
    }

    /** A long parameter in [min, max]. */
    public static PolicyParameter ofLong(String name, long defaultValue, long min, long max, String description) {
        return new PolicyParameter(name, Type.LONG, defaultValue, min, max, description);
    }

    /** A double parameter in [min, max]. */
    public static PolicyParameter ofDouble(String name, double defaultValue, double min, double max,
                                           String description) {
        return new PolicyParameter(name, Type.DOUBLE, defaultValue, min, max, description);
    }

    /** A byte-size parameter in [min, max] bytes. */
    public static PolicyParameter ofBytes(String name, long defaultValue, long min, long max, String description) {
        return new PolicyParameter(name, Type.BYTES, defaultValue, min, max, description);
    }

    /** A boolean parameter. */
    public static PolicyParameter ofBoolean(String name, boolean defaultValue, String description) {
        return new PolicyParameter(name, Type.BOOLEAN, defaultValue, null, null, description);
    }

    /** What values are allowed, for error messages and docs. */
    public String allowed() {
        String kind = switch (type) {
            case INT, LONG -> "an integer";
            case DOUBLE -> "a number";
            case BYTES -> "a byte size (e.g. 4096, 64MiB, 1GiB)";
            case BOOLEAN -> "true or false";
        };
        if (min != null && max != null) {
            return kind + " from " + min + " to " + max;
        }
        if (min != null) {
            return kind + " >= " + min;
        }
        if (max != null) {
            return kind + " <= " + max;
        }
        return kind;
    }

    /**
     * Parses and range-checks {@code raw}.
     *
     * @throws IllegalArgumentException naming the parameter, the bad value and what is allowed
     */
    public Object parse(String raw) {
        String s = raw == null ? "" : raw.trim();
        Object value;
        try {
            value = switch (type) {
                case INT -> Integer.parseInt(s);
                case LONG -> Long.parseLong(s);
                case DOUBLE -> {
                    double d = Double.parseDouble(s);
                    if (!Double.isFinite(d)) {
                        throw new NumberFormatException("not finite");
                    }
                    yield d;
                }
                case BYTES -> parseBytes(s);
                case BOOLEAN -> {
                    if (!s.equals("true") && !s.equals("false")) {
                        throw new NumberFormatException("not a boolean");
                    }
                    yield Boolean.parseBoolean(s);
                }
            };
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(badValue(raw));
        }
        if (value instanceof Number n) {
            boolean low = min != null && compare(n, min) < 0;
            boolean high = max != null && compare(n, max) > 0;
            if (low || high) {
                throw new IllegalArgumentException(badValue(raw));
            }
        }
        return value;
    }

    private String badValue(String raw) {
        return "bad value \"" + raw + "\" for parameter '" + name + "': expected " + allowed();
    }

    private static int compare(Number a, Number b) {
        if (a instanceof Double || b instanceof Double) {
            return Double.compare(a.doubleValue(), b.doubleValue());
        }
        return Long.compare(a.longValue(), b.longValue());
    }

    /** Parses a byte size such as {@code 4096}, {@code 64MiB}, {@code 1G} or {@code 500KB}. */
    public static long parseBytes(String s) {
        String t = s.trim();
        int i = 0;
        while (i < t.length() && Character.isDigit(t.charAt(i))) {
            i++;
        }
        if (i == 0) {
            throw new NumberFormatException("no digits in byte size \"" + s + "\"");
        }
        long n = Long.parseLong(t.substring(0, i));
        String unit = t.substring(i).trim().toUpperCase(Locale.ROOT);
        long mult = switch (unit) {
            case "", "B" -> 1L;
            case "K", "KIB" -> 1L << 10;
            case "M", "MIB" -> 1L << 20;
            case "G", "GIB" -> 1L << 30;
            case "T", "TIB" -> 1L << 40;
            case "KB" -> 1000L;
            case "MB" -> 1000_000L;
            case "GB" -> 1000_000_000L;
            case "TB" -> 1000_000_000_000L;
            default -> throw new NumberFormatException("unknown unit \"" + unit + "\"");
        };
        return Math.multiplyExact(n, mult);
    }
}
