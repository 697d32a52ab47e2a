package dev.strata.lsm.policy;

import java.util.ArrayList;
import java.util.List;
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
 * @param choices for {@link Type#CHOICE} and {@link Type#CHOICE_LIST}: the allowed values; else empty
 */
public record PolicyParameter(String name, Type type, Object defaultValue, Number min, Number max,
                              String description, List<String> choices) {

    /** Value types. */
    public enum Type {
        /** A 32-bit integer. */
        INT,
        /** A floating-point number. */
        DOUBLE,
        /** A byte count: a whole number with an optional unit B, KiB, MiB, GiB, TiB (or K, M, G, T; KB = 1000). */
        BYTES,
        /** true or false. */
        BOOLEAN,
        /** One of {@link #choices()}; the value is the chosen string. */
        CHOICE,
        /** A comma-separated list of distinct {@link #choices()}, in the order given (a {@code List<String>}). */
        CHOICE_LIST,
        /** A duration: a whole number with unit ms, s, m, h or d, or 0; the value is milliseconds (a Long). */
        DURATION,
        /**
         * One number per level, comma-separated ({@code "0.5,0.5,0.2"}); levels past the list
         * take its last value. The value is a {@code List<Double>}; min and max bound every entry.
         */
        PER_LEVEL_DOUBLE,
        /** One of {@link #choices()} per level, comma-separated, repeats allowed (a {@code List<String>}). */
        PER_LEVEL_CHOICE
    }

    /**
     * The name of a type as shown in documentation and {@code policies --json}.
     *
     * @return the type's name in lower case, '-' for '_' (e.g. {@code per-level-double})
     */
    public String typeName() {
        return type.name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    /**
     * Creates a {@code PolicyParameter} from its components.
     *
     * @param name the parameter's name as written in XML ({@code <param name="..."/>})
     * @param type the value type
     * @param defaultValue the value used when the parameter is not given
     * @param min smallest allowed value (inclusive), or null
     * @param max largest allowed value (inclusive), or null
     * @param description one line for documentation and error messages
     * @param choices for {@link Type#CHOICE} and {@link Type#CHOICE_LIST}: the allowed values; else empty
     */
    public PolicyParameter {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(defaultValue, "defaultValue");
        description = description == null ? "" : description;
        choices = choices == null ? List.of() : List.copyOf(choices);
        if ((type == Type.CHOICE || type == Type.CHOICE_LIST || type == Type.PER_LEVEL_CHOICE) && choices.isEmpty()) {
            throw new IllegalArgumentException("parameter '" + name + "' of type " + type + " needs its choices");
        }
    }

    /**
     * A parameter without choices.
     *
     * @param name the parameter's name as written in XML
     * @param type the value type (not one with choices)
     * @param defaultValue the value when the parameter is not given (not null)
     * @param min the smallest allowed value, inclusive, or null
     * @param max the largest allowed value, inclusive, or null
     * @param description one line for documentation and error messages
     */
    public PolicyParameter(String name, Type type, Object defaultValue, Number min, Number max, String description) {
        this(name, type, defaultValue, min, max, description, List.of());
    }

    /**
     * An int parameter in [min, max].
     *
     * @param name the parameter's name as written in XML
     * @param defaultValue the value when the parameter is not given
     * @param min the smallest allowed value, inclusive
     * @param max the largest allowed value, inclusive
     * @param description one line for documentation and error messages
     * @return a new {@link Type#INT} parameter
     */
    public static PolicyParameter ofInt(String name, int defaultValue, int min, int max, String description) {
        return new PolicyParameter(name, Type.INT, defaultValue, min, max, description);
    }

    /**
     * A double parameter in [min, max].
     *
     * @param name the parameter's name as written in XML
     * @param defaultValue the value when the parameter is not given
     * @param min the smallest allowed value, inclusive
     * @param max the largest allowed value, inclusive
     * @param description one line for documentation and error messages
     * @return a new {@link Type#DOUBLE} parameter
     */
    public static PolicyParameter ofDouble(String name, double defaultValue, double min, double max,
                                           String description) {
        return new PolicyParameter(name, Type.DOUBLE, defaultValue, min, max, description);
    }

    /**
     * A byte-size parameter in [min, max] bytes.
     *
     * @param name the parameter's name as written in XML
     * @param defaultValue the value in bytes when the parameter is not given
     * @param min the smallest allowed value in bytes, inclusive
     * @param max the largest allowed value in bytes, inclusive
     * @param description one line for documentation and error messages
     * @return a new {@link Type#BYTES} parameter
     */
    public static PolicyParameter ofBytes(String name, long defaultValue, long min, long max, String description) {
        return new PolicyParameter(name, Type.BYTES, defaultValue, min, max, description);
    }

    /**
     * A boolean parameter.
     *
     * @param name the parameter's name as written in XML
     * @param defaultValue the value when the parameter is not given
     * @param description one line for documentation and error messages
     * @return a new {@link Type#BOOLEAN} parameter
     */
    public static PolicyParameter ofBoolean(String name, boolean defaultValue, String description) {
        return new PolicyParameter(name, Type.BOOLEAN, defaultValue, null, null, description);
    }

    /**
     * One of {@code choices}.
     *
     * @param name the parameter's name as written in XML
     * @param defaultValue the value when the parameter is not given, one of {@code choices}
     * @param choices the allowed values (not empty)
     * @param description one line for documentation and error messages
     * @return a new {@link Type#CHOICE} parameter
     */
    public static PolicyParameter ofChoice(String name, String defaultValue, List<String> choices,
                                           String description) {
        PolicyParameter p = new PolicyParameter(name, Type.CHOICE, defaultValue, null, null, description, choices);
        p.parse(defaultValue);
        return p;
    }

    /**
     * A comma-separated list of distinct {@code choices}; {@code defaultValue} written the same
     * way.
     *
     * @param name the parameter's name as written in XML
     * @param defaultValue the value when the parameter is not given, comma-separated
     * @param choices the allowed values (not empty)
     * @param description one line for documentation and error messages
     * @return a new {@link Type#CHOICE_LIST} parameter
     */
    public static PolicyParameter ofChoiceList(String name, String defaultValue, List<String> choices,
                                               String description) {
        PolicyParameter p = new PolicyParameter(name, Type.CHOICE_LIST, "", null, null, description, choices);
        return new PolicyParameter(name, Type.CHOICE_LIST, p.parse(defaultValue), null, null, description, choices);
    }

    /**
     * A duration in milliseconds; {@code defaultValue} written as in XML, e.g. {@code "10m"}.
     *
     * @param name the parameter's name as written in XML
     * @param defaultValue the value when the parameter is not given, with its unit
     * @param description one line for documentation and error messages
     * @return a new {@link Type#DURATION} parameter
     */
    public static PolicyParameter ofDuration(String name, String defaultValue, String description) {
        return new PolicyParameter(name, Type.DURATION, parseDuration(defaultValue), 0L, null, description);
    }

    /**
     * One of {@code choices} per level; {@code defaultValue} written as in XML, e.g. {@code
     * "tiered,leveled"}.
     *
     * @param name the parameter's name as written in XML
     * @param defaultValue the value when the parameter is not given, one choice per level,
     *     comma-separated
     *
     * @param choices the allowed values (not empty)
     * @param description one line for documentation and error messages
     * @return a new {@link Type#PER_LEVEL_CHOICE} parameter
     */
    public static PolicyParameter ofPerLevelChoice(String name, String defaultValue, List<String> choices,
                                                   String description) {
        PolicyParameter p = new PolicyParameter(name, Type.PER_LEVEL_CHOICE, List.of(), null, null, description,
                choices);
        return new PolicyParameter(name, Type.PER_LEVEL_CHOICE, p.parse(defaultValue), null, null, description,
                choices);
    }

    /**
     * Numbers per level in [min, max].
     *
     * @param name the parameter's name as written in XML
     * @param defaultValue the value when the parameter is not given, one number per level,
     *     comma-separated
     *
     * @param min the smallest allowed entry, inclusive
     * @param max the largest allowed entry, inclusive
     * @param description one line for documentation and error messages
     * @return a new {@link Type#PER_LEVEL_DOUBLE} parameter
     */
    public static PolicyParameter ofPerLevelDouble(String name, String defaultValue, double min, double max,
                                                   String description) {
        PolicyParameter p = new PolicyParameter(name, Type.PER_LEVEL_DOUBLE, List.of(), min, max, description);
        return new PolicyParameter(name, Type.PER_LEVEL_DOUBLE, p.parse(defaultValue), min, max, description);
    }

    /**
     * The default written as it would be in XML.
     *
     * @return the default value, formatted by {@link #format}
     */
    public String defaultText() {
        return format(defaultValue);
    }

    /**
     * {@code value} (of this parameter's type) written as it would be in XML.
     *
     * @param value a value of this parameter's type, as {@link #parse} returns it
     * @return the text that parses back to {@code value}
     */
    public String format(Object value) {
        return switch (type) {
            case CHOICE_LIST, PER_LEVEL_DOUBLE, PER_LEVEL_CHOICE -> String.join(",",
                    ((List<?>) value).stream().map(String::valueOf).toList());
            case DURATION -> formatDuration((Long) value);
            default -> String.valueOf(value);
        };
    }

    /**
     * What values are allowed, for error messages and docs.
     *
     * @return a phrase such as "an integer from 1 to 64"
     */
    public String allowed() {
        String kind = switch (type) {
            case INT -> "an integer";
            case DOUBLE -> "a number";
            case BYTES -> "a byte size (e.g. 4096, 64MiB, 1GiB)";
            case BOOLEAN -> "true or false";
            case CHOICE -> "one of " + String.join(", ", choices);
            case CHOICE_LIST -> "a comma-separated list of distinct values from " + String.join(", ", choices);
            case DURATION -> "a duration (e.g. 500ms, 30s, 10m, 2h, 1d, or 0)";
            case PER_LEVEL_DOUBLE -> "comma-separated numbers, one per level";
            case PER_LEVEL_CHOICE -> "comma-separated values from " + String.join(", ", choices) + ", one per level";
        };
        if (type == Type.CHOICE || type == Type.CHOICE_LIST || type == Type.PER_LEVEL_CHOICE) {
            return kind;
        }
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
     * @param raw the value as written (null or blank is a bad value); surrounding spaces are
     *     ignored
     *
     * @return the typed value: an Integer, Double, Long (bytes, milliseconds), Boolean, String or
     *     List, per {@link #type}
     * @throws IllegalArgumentException naming the parameter, the bad value and what is allowed
     */
    public Object parse(String raw) {
        String s = raw == null ? "" : raw.trim();
        Object value;
        try {
            value = switch (type) {
                case INT -> Integer.parseInt(s);
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
                case CHOICE -> {
                    if (!choices.contains(s)) {
                        throw new NumberFormatException("not a choice");
                    }
                    yield s;
                }
                case CHOICE_LIST -> parseChoiceList(s, false);
                case PER_LEVEL_CHOICE -> parseChoiceList(s, true);
                case DURATION -> parseDuration(s);
                case PER_LEVEL_DOUBLE -> parsePerLevel(s);
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

    private List<String> parseChoiceList(String s, boolean repeats) {
        List<String> out = new ArrayList<>();
        for (String part : s.split(",", -1)) {
            String v = part.trim();
            if (!choices.contains(v) || !repeats && out.contains(v)) {
                throw new NumberFormatException("bad list entry");
            }
            out.add(v);
        }
        return List.copyOf(out);
    }

    private List<Number> parsePerLevel(String s) {
        List<Number> out = new ArrayList<>();
        for (String part : s.split(",", -1)) {
            String v = part.trim();
            double n = Double.parseDouble(v);
            if (!Double.isFinite(n) || min != null && compare(n, min) < 0 || max != null && compare(n, max) > 0) {
                throw new NumberFormatException("out of range");
            }
            out.add(n);
        }
        return List.copyOf(out);
    }

    /**
     * The value for {@code level} of a per-level list: its entry, or the last entry for deeper
     * levels.
     *
     * @param values the per-level list (not empty)
     * @param level the level number, 0 or more
     * @return the entry at {@code level}, or the last entry when the list is shorter
     */
    public static Number perLevel(List<? extends Number> values, int level) {
        return values.get(Math.min(level, values.size() - 1));
    }

    /**
     * Parses a duration such as {@code 500ms}, {@code 30s}, {@code 10m}, {@code 2h}, {@code 1d} or
     * {@code 0}.
     *
     * @param raw the text: digits then a unit (ms, s, m or min, h, d), or 0 without one
     * @return the duration in milliseconds
     * @throws NumberFormatException without digits, with an unknown or missing unit, or on overflow
     */
    public static long parseDuration(String raw) {
        String t = raw.trim().toLowerCase(Locale.ROOT);
        int i = 0;
        while (i < t.length() && Character.isDigit(t.charAt(i))) {
            i++;
        }
        if (i == 0) {
            throw new NumberFormatException("no digits in duration \"" + raw + "\"");
        }
        long n = Long.parseLong(t.substring(0, i));
        String unit = t.substring(i).trim();
        long mult = switch (unit) {
            case "ms" -> 1L;
            case "s" -> 1000L;
            case "m", "min" -> 60_000L;
            case "h" -> 3_600_000L;
            case "d" -> 86_400_000L;
            case "" -> {
                if (n != 0) {
                    throw new NumberFormatException("a duration needs a unit");
                }
                yield 1L;
            }
            default -> throw new NumberFormatException("unknown unit \"" + unit + "\"");
        };
        return Math.multiplyExact(n, mult);
    }

    /**
     * A duration in the largest unit that writes it exactly.
     *
     * @param millis the duration in milliseconds, 0 or more
     * @return e.g. {@code "2h"}, {@code "90s"}, {@code "1500ms"}; {@code "0"} for 0
     */
    public static String formatDuration(long millis) {
        if (millis == 0) {
            return "0";
        }
        long[] units = {86_400_000L, 3_600_000L, 60_000L, 1000L};
        String[] names = {"d", "h", "m", "s"};
        for (int i = 0; i < units.length; i++) {
            if (millis % units[i] == 0) {
                return millis / units[i] + names[i];
            }
        }
        return millis + "ms";
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

    /**
     * Parses a byte size such as {@code 4096}, {@code 64MiB}, {@code 1G} or {@code 500KB}.
     *
     * @param s the text: digits then an optional unit (B, K/KiB, M/MiB, G/GiB, T/TiB in powers of
     *     1024, KB, MB, ... in powers of 1000)
     *
     * @return the size in bytes
     * @throws NumberFormatException without digits, with an unknown unit, or on overflow
     */
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
