package dev.strata.lsm.policy.sim;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;

/**
 * The length of each simulated flush. Specs: {@code uniform} (every flush has length 1),
 * {@code random:A:B} (uniform integers in [A, B], seeded), {@code file:PATH} (one length
 * per line; blank lines and lines starting with # are skipped; the sequence repeats if
 * more flushes are simulated than the file holds).
 */
public interface FlushLengths {

    /**
     * Length of flush {@code t}.
     *
     * @param t the flush's number, 1-based; a random spec expects each number once, in order
     * @return the flush's length
     */
    long length(long t);

    /**
     * The spec this was parsed from.
     *
     * @return the spec as written
     */
    String spec();

    /**
     * The largest length any flush has: what the simulators show a policy as the memtable size
     * ({@code StoreSettings.memtableBytes()}), as a store's largest flush is about its memtable.
     *
     * @return the largest length
     */
    long maxLength();

    /**
     * Parses a spec and makes its lengths: {@code Spec.parse(spec).lengths(seed)}.
     *
     * @param spec the spec ({@link Spec#parse})
     * @param seed the seed of a {@code random} spec
     * @return the lengths
     * @throws IllegalArgumentException naming the spec, the bad value and what is allowed
     * @throws UncheckedIOException when a {@code file:} spec's file cannot be read
     */
    static FlushLengths parse(String spec, long seed) {
        return Spec.parse(spec).lengths(seed);
    }

    /**
     * A flush-length spec parsed and checked once (where text comes in: {@link #parse(String)},
     * which the command line's converter calls), before anything is simulated; {@link
     * #lengths(long)} then makes the lengths without parsing again. A {@code file:} spec holds the
     * file's lengths, read and checked at parse. Immutable.
     *
     * @param text   the spec as written
     * @param kind   {@code uniform}, {@code random} or {@code file}
     * @param min    the smallest length of a {@code random} spec (1 for uniform)
     * @param max    the largest length of a {@code random} spec (1 for uniform)
     * @param values the lengths of a {@code file} spec, in order (empty for the others)
     */
    record Spec(String text, String kind, long min, long max, List<Long> values) {

        /**
         * Copies {@code values}.
         *
         * @param text   the spec as written
         * @param kind   {@code uniform}, {@code random} or {@code file}
         * @param min    the smallest length of a {@code random} spec
         * @param max    the largest length of a {@code random} spec
         * @param values the lengths of a {@code file} spec
         */
        public Spec {
            values = List.copyOf(values);
        }

        /**
         * Parses {@code uniform}, {@code random:A:B} (integers, 1 &lt;= A &lt;= B) or
         * {@code file:PATH} (one non-negative integer per line; blank lines and {@code #}
         * comments skipped; at least one length).
         *
         * @param spec the spec as written
         * @return the parsed spec
         * @throws IllegalArgumentException naming the spec, the bad value and what is allowed
         * @throws UncheckedIOException when the file of a {@code file:} spec cannot be read
         */
        public static Spec parse(String spec) {
            if (spec.equals("uniform")) {
                return new Spec(spec, "uniform", 1, 1, List.of());
            }
            if (spec.startsWith("random:")) {
                String[] parts = spec.split(":", -1);
                if (parts.length != 3) {
                    throw new IllegalArgumentException("bad flush length spec '" + spec
                            + "': expected random:A:B with integers 1 <= A <= B");
                }
                long a = integer(spec, parts[1], "A");
                long b = integer(spec, parts[2], "B");
                if (a < 1 || b < a) {
                    throw new IllegalArgumentException("bad flush length spec '" + spec + "': expected 1 <= A <= B, got A = "
                            + a + " and B = " + b);
                }
                return new Spec(spec, "random", a, b, List.of());
            }
            if (spec.startsWith("file:")) {
                Path path = Path.of(spec.substring("file:".length()));
                List<String> lines;
                try {
                    lines = Files.readAllLines(path);
                } catch (IOException e) {
                    throw new UncheckedIOException("cannot read flush lengths from " + path, e);
                }
                long[] values = lines.stream().map(String::trim).filter(l -> !l.isEmpty() && !l.startsWith("#"))
                        .mapToLong(l -> {
                            long v = integer(spec, l, "a line of " + path);
                            if (v < 0) {
                                throw new IllegalArgumentException("bad flush length '" + l + "' in " + path
                                        + ": expected a non-negative integer per line");
                            }
                            return v;
                        }).toArray();
                if (values.length == 0) {
                    throw new IllegalArgumentException("no flush lengths in " + path);
                }
                return new Spec(spec, "file", 0, 0, java.util.Arrays.stream(values).boxed().toList());
            }
            throw new IllegalArgumentException("bad flush length spec '" + spec
                    + "': expected uniform, random:A:B or file:PATH");
        }

        private static long integer(String spec, String value, String what) {
            try {
                return Long.parseLong(value.trim());
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("bad flush length spec '" + spec + "': " + what + " '" + value
                        + "' is not an integer");
            }
        }

        /**
         * The lengths this spec describes.
         *
         * @param seed the seed of a {@code random} spec (the others ignore it)
         * @return new lengths; a {@code random} one holds its own generator, for one simulation
         */
        public FlushLengths lengths(long seed) {

            return switch (kind) {
                case "random" -> random(seed);
                case "file" -> cycle();
                default -> constant();
            };
        }

        private FlushLengths constant() {
            return new FlushLengths() {
                @Override
                public long length(long t) {
                    return 1;
                }

                @Override
                public String spec() {
                    return text;
                }

                @Override
                public long maxLength() {
                    return 1;
                }
            };
        }

        private FlushLengths random(long seed) {
            Random rnd = new Random(seed);
            long span = max - min + 1;
            return new FlushLengths() {
                @Override
                public long length(long t) {
                    return min + (long) (rnd.nextDouble() * span);
                }

                @Override
                public String spec() {
                    return text;
                }

                @Override
                public long maxLength() {
                    return max;
                }
            };
        }

        private FlushLengths cycle() {
            long[] v = values.stream().mapToLong(Long::longValue).toArray();
            long largest = java.util.Arrays.stream(v).max().orElseThrow();
            return new FlushLengths() {
                @Override
                public long length(long t) {
                    return v[(int) ((t - 1) % v.length)];
                }

                @Override
                public String spec() {
                    return text;
                }

                @Override
                public long maxLength() {
                    return largest;
                }
            };
        }
    }
}
