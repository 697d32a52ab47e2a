package dev.strata.lsm.policy.sim;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * How a simulated component's entries are spread over the key space [0, 1): piecewise
 * uniform, {@code density[i]} entries per unit of key width between {@code bounds[i]} and
 * {@code bounds[i + 1]}. Immutable.
 */
final class KeyDensity {
    /** Most pieces a density keeps; beyond, it is coarsened into this many (empty stretches kept). */
    static final int MAX_PIECES = 64;

    private final double[] bounds;
    private final double[] density;

    KeyDensity(double[] bounds, double[] density) {
        if (bounds.length != density.length + 1 || density.length == 0) {
            throw new IllegalArgumentException("bounds " + bounds.length + " for " + density.length + " pieces");
        }
        this.bounds = bounds;
        this.density = density;
    }

    /** {@code entries} spread evenly over [lo, hi). */
    static KeyDensity uniform(double lo, double hi, double entries) {
        return new KeyDensity(new double[] {lo, hi}, new double[] {entries / (hi - lo)});
    }

    double min() {
        return bounds[0];
    }

    double max() {
        return bounds[bounds.length - 1];
    }

    double entries() {
        return entriesIn(min(), max());
    }

    /** Entries with keys in [from, to). */
    double entriesIn(double from, double to) {
        double sum = 0;
        for (int i = 0; i < density.length; i++) {
            double lo = Math.max(from, bounds[i]);
            double hi = Math.min(to, bounds[i + 1]);
            if (hi > lo) {
                sum += (hi - lo) * density[i];
            }
        }
        return sum;
    }

    /** The part of this density in [from, to), or null when empty. */
    KeyDensity slice(double from, double to) {
        double lo = Math.max(from, min());
        double hi = Math.min(to, max());
        if (hi <= lo) {
            return null;
        }
        List<Double> b = new ArrayList<>();
        List<Double> d = new ArrayList<>();
        b.add(lo);
        for (int i = 0; i < density.length; i++) {
            double plo = Math.max(lo, bounds[i]);
            double phi = Math.min(hi, bounds[i + 1]);
            if (phi > plo) {
                if (b.get(b.size() - 1) != plo) {
                    // A gap (cannot happen inside one density, but keep the shape honest).
                    d.add(0.0);
                    b.add(plo);
                }
                d.add(density[i]);
                b.add(phi);
            }
        }
        return of(b, d);
    }

    /**
     * The density of a merge of {@code inputs}: inserted keys are all distinct, so densities
     * add up; updates of {@code keys} uniformly random keys overlap, so a key is present if
     * any input holds it ({@code 1 - prod(1 - p_i)} of the keys).
     */
    static KeyDensity merge(List<KeyDensity> inputs, double keys) {
        double[] cuts = inputs.stream().flatMapToDouble(k -> Arrays.stream(k.bounds)).sorted().distinct().toArray();
        List<Double> b = new ArrayList<>();
        List<Double> d = new ArrayList<>();
        for (int i = 0; i + 1 < cuts.length; i++) {
            double lo = cuts[i];
            double hi = cuts[i + 1];
            double mid = (lo + hi) / 2;
            double sum = 0;
            double absent = 1;
            boolean any = false;
            for (KeyDensity k : inputs) {
                double v = k.at(mid);
                if (v > 0 || (mid >= k.min() && mid < k.max())) {
                    any |= mid >= k.min() && mid < k.max();
                    sum += v;
                    if (keys > 0) {
                        absent *= Math.max(0, 1 - v / keys);
                    }
                }
            }
            if (!any) {
                if (!b.isEmpty()) {
                    // Inputs with a gap between them: the output spans it with no entries.
                    d.add(0.0);
                    b.add(hi);
                }
                continue;
            }
            if (b.isEmpty()) {
                b.add(lo);
            }
            d.add(keys > 0 ? keys * (1 - absent) : sum);
            b.add(hi);
        }
        return of(b, d);
    }

    private double at(double x) {
        if (x < min() || x >= max()) {
            return 0;
        }
        int i = Arrays.binarySearch(bounds, x);
        int piece = i >= 0 ? i : -i - 2;
        return density[Math.min(piece, density.length - 1)];
    }

    /**
     * Walks the entries in key order in steps of about {@code stepEntries}, giving the key at
     * each step and the entries from it to the next step. Every position in {@code extra}
     * (ascending) inside the range is a step too, so that a cut there is exact.
     */
    void walk(double stepEntries, double[] extra, StepConsumer step) {
        double[] points = new double[16];
        int count = 0;
        for (int i = 0; i < density.length; i++) {
            double lo = bounds[i];
            double hi = bounds[i + 1];
            double e = density[i] * (hi - lo);
            int steps = e <= 0 ? 1 : (int) Math.max(1, Math.min(1_000_000, Math.ceil(e / stepEntries)));
            for (int s = 0; s < steps; s++) {
                if (count == points.length) {
                    points = Arrays.copyOf(points, count * 2);
                }
                points[count++] = lo + (hi - lo) * s / steps;
            }
        }
        for (double x : extra) {
            if (x > min() && x < max()) {
                if (count == points.length) {
                    points = Arrays.copyOf(points, count * 2);
                }
                points[count++] = x;
            }
        }
        Arrays.sort(points, 0, count);
        int distinct = 0;
        for (int i = 0; i < count; i++) {
            if (distinct == 0 || Double.compare(points[distinct - 1], points[i]) != 0) {
                points[distinct++] = points[i];
            }
        }
        // The points ascend, so the pieces a step overlaps start at or after the previous step's
        // first: each step sums the same pieces, in the same order, as entriesIn would.
        int first = 0;
        for (int i = 0; i < distinct; i++) {
            double from = points[i];
            double to = i + 1 < distinct ? points[i + 1] : max();
            while (first < density.length && bounds[first + 1] <= from) {
                first++;
            }
            double e = 0;
            for (int j = first; j < density.length && bounds[j] < to; j++) {
                double lo = Math.max(from, bounds[j]);
                double hi = Math.min(to, bounds[j + 1]);
                if (hi > lo) {
                    e += (hi - lo) * density[j];
                }
            }
            if (e > 0) {
                step.accept(from, e);
            }
        }
    }

    @FunctionalInterface
    interface StepConsumer {
        void accept(double key, double entries);
    }

    private static KeyDensity of(List<Double> b, List<Double> d) {
        // Drop trailing empty pieces, merge equal neighbours, bound the piece count.
        while (!d.isEmpty() && d.get(d.size() - 1) == 0.0) {
            d.remove(d.size() - 1);
            b.remove(b.size() - 1);
        }
        while (!d.isEmpty() && d.get(0) == 0.0) {
            d.remove(0);
            b.remove(0);
        }
        if (d.isEmpty()) {
            return null;
        }
        List<Double> nb = new ArrayList<>();
        List<Double> nd = new ArrayList<>();
        nb.add(b.get(0));
        for (int i = 0; i < d.size(); i++) {
            if (!nd.isEmpty() && Math.abs(nd.get(nd.size() - 1) - d.get(i)) <= 1e-9 * Math.max(1, d.get(i))) {
                nb.set(nb.size() - 1, b.get(i + 1));
            } else {
                nd.add(d.get(i));
                nb.add(b.get(i + 1));
            }
        }
        KeyDensity k = new KeyDensity(nb.stream().mapToDouble(Double::doubleValue).toArray(),
                nd.stream().mapToDouble(Double::doubleValue).toArray());
        return k.density.length > MAX_PIECES ? k.coarsened(MAX_PIECES) : k;
    }

    /**
     * The same entries in at most {@code pieces} pieces, keeping the empty stretches between
     * stretches that hold entries (a file cut around a gap must not spread into it): each
     * stretch of entries is resampled evenly into a share of the pieces proportional to its
     * width; when there are more stretches than half the pieces, the narrowest gaps are
     * closed first.
     */
    private KeyDensity coarsened(int pieces) {
        // Stretches of non-empty pieces: [start, end) piece indexes.
        List<int[]> stretches = new ArrayList<>();
        for (int i = 0; i < density.length; ) {
            if (density[i] == 0) {
                i++;
                continue;
            }
            int j = i;
            while (j < density.length && density[j] != 0) {
                j++;
            }
            stretches.add(new int[] {i, j});
            i = j;
        }
        int maxStretches = Math.max(1, pieces / 2);
        while (stretches.size() > maxStretches) {
            int narrowest = 0;
            double width = Double.MAX_VALUE;
            for (int s = 0; s + 1 < stretches.size(); s++) {
                double w = bounds[stretches.get(s + 1)[0]] - bounds[stretches.get(s)[1]];
                if (w < width) {
                    width = w;
                    narrowest = s;
                }
            }
            stretches.get(narrowest)[1] = stretches.get(narrowest + 1)[1];
            stretches.remove(narrowest + 1);
        }
        double total = 0;
        for (int[] st : stretches) {
            total += bounds[st[1]] - bounds[st[0]];
        }
        int budget = pieces - (stretches.size() - 1); // one piece per gap between stretches
        List<Double> nb = new ArrayList<>();
        List<Double> nd = new ArrayList<>();
        for (int s = 0; s < stretches.size(); s++) {
            double lo = bounds[stretches.get(s)[0]];
            double hi = bounds[stretches.get(s)[1]];
            int share = Math.max(1, (int) Math.floor((budget - stretches.size()) * (hi - lo) / total) + 1);
            if (s > 0) {
                nd.add(0.0); // the gap before this stretch
            } else {
                nb.add(lo);
            }
            for (int i = 1; i <= share; i++) {
                double a = lo + (hi - lo) * (i - 1) / share;
                double b = i == share ? hi : lo + (hi - lo) * i / share;
                if (s > 0 && i == 1) {
                    nb.add(lo);
                }
                nd.add(entriesIn(a, b) / (b - a));
                nb.add(b);
            }
        }
        return new KeyDensity(nb.stream().mapToDouble(Double::doubleValue).toArray(),
                nd.stream().mapToDouble(Double::doubleValue).toArray());
    }
}
