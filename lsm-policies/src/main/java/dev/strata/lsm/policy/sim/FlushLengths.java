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

    /** Length of flush {@code t} (1-based). */
    long length(long t);

    /** The spec this was parsed from. */
    String spec();

    /**
     * The largest length any flush has: what the simulators show a policy as the memtable size
     * ({@code StoreSettings.memtableBytes()}), as a store's largest flush is about its memtable.
     */
    long maxLength();

    /**
     * Parses a spec.
     *
     * @throws IllegalArgumentException naming the spec and what is allowed
     */
    static FlushLengths parse(String spec, long seed) {
        if (spec.equals("uniform")) {
            return new FlushLengths() {
                @Override
                public long length(long t) {
                    return 1;
                }

                @Override
                public String spec() {
                    return "uniform";
                }

                @Override
                public long maxLength() {
                    return 1;
                }
            };
        }
        if (spec.startsWith("random:")) {
            String[] parts = spec.split(":");
            long a;
            long b;
            try {
                if (parts.length != 3) {
                    throw new NumberFormatException();
                }
                a = Long.parseLong(parts[1]);
                b = Long.parseLong(parts[2]);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("bad flush length spec '" + spec + "': expected random:A:B with integers A <= B");
            }
            if (a < 1 || b < a) {
                throw new IllegalArgumentException("bad flush length spec '" + spec + "': expected 1 <= A <= B");
            }
            Random rnd = new Random(seed);
            long lo = a;
            long span = b - a + 1;
            return new FlushLengths() {
                @Override
                public long length(long t) {
                    return lo + (long) (rnd.nextDouble() * span);
                }

                @Override
                public String spec() {
                    return spec;
                }

                @Override
                public long maxLength() {
                    return lo + span - 1;
                }
            };
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
                        try {
                            long v = Long.parseLong(l);
                            if (v < 0) {
                                throw new NumberFormatException();
                            }
                            return v;
                        } catch (NumberFormatException e) {
                            throw new IllegalArgumentException("bad flush length '" + l + "' in " + path
                                    + ": expected a non-negative integer per line");
                        }
                    }).toArray();
            if (values.length == 0) {
                throw new IllegalArgumentException("no flush lengths in " + path);
            }
            return new FlushLengths() {
                @Override
                public long length(long t) {
                    return values[(int) ((t - 1) % values.length)];
                }

                @Override
                public String spec() {
                    return spec;
                }

                @Override
                public long maxLength() {
                    return java.util.Arrays.stream(values).max().orElseThrow();
                }
            };
        }
        throw new IllegalArgumentException("bad flush length spec '" + spec
                + "': expected uniform, random:A:B or file:PATH");
    }
}
