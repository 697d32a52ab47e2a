package dev.strata.lsm.policy;

/**
 * The default {@link TreeView.RangeEstimator}: assumes keys are spread uniformly between a
 * component's min and max key, comparing keys by their first eight bytes as unsigned
 * numbers. Exact for the whole range, approximate for parts of it.
 */
final class KeyRangeInterpolation implements TreeView.RangeEstimator {
    static final KeyRangeInterpolation INSTANCE = new KeyRangeInterpolation();

    private KeyRangeInterpolation() {
    }

    @Override
    public long bytesInRange(ComponentView c, byte[] from, byte[] to) {
        double lo = position(c.minKey());
        double hi = position(c.maxKey());
        double a = from == null ? lo : Math.max(lo, position(from));
        double b = to == null ? hi : Math.min(hi, position(to));
        if (hi <= lo) {
            boolean inside = (from == null || java.util.Arrays.compareUnsigned(from, c.minKey()) <= 0)
                    && (to == null || java.util.Arrays.compareUnsigned(c.maxKey(), to) < 0);
            return inside ? c.sizeBytes() : 0;
        }
        if (b <= a) {
            return 0;
        }
        return Math.round(c.sizeBytes() * ((b - a) / (hi - lo)));
    }

    /** The first eight bytes of {@code key} as an unsigned number scaled to [0, 1). */
    private static double position(byte[] key) {
        double v = 0;
        double scale = 1.0 / 256;
        for (int i = 0; i < 8; i++) {
            int b = i < key.length ? key[i] & 0xff : 0;
            v += b * scale;
            scale /= 256;
        }
        return v;
    }
}
