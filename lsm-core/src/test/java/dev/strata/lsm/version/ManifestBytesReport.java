package dev.strata.lsm.version;

import dev.strata.lsm.StoreConfig;
import dev.strata.lsm.policy.ComponentId;
import dev.strata.lsm.policy.ComponentView;

import dev.strata.lsm.testkit.TestKeys;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Manifest bytes a store writes while {@code N} one-key flushes each become a new run of
 * level 0 (the no-merge policy), in format 1 (every edit carries the whole layout) and in
 * format 2 (deltas), with a snapshot whenever the log passes the default
 * {@code manifestRewriteBytes}, as {@link VersionSet} does. Record framing (7 bytes per
 * record) is counted; block trailers are not. A report, not a test:
 *
 * <pre>mvn -B -o -q -pl lsm-core test-compile exec:java -Dexec.classpathScope=test \
 *   -Dexec.mainClass=dev.strata.lsm.version.ManifestBytesReport -Dexec.args=10000</pre>
 * or {@code java -cp lsm-core/target/classes:lsm-core/target/test-classes:... dev.strata.lsm.version.ManifestBytesReport 10000}.
 */
public final class ManifestBytesReport {
    private static final int FRAME = 7;

    private ManifestBytesReport() {
    }

    public static void main(String[] args) {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 10_000;
        long limit = StoreConfig.DEFAULT_MANIFEST_REWRITE_BYTES;
        long[] total = new long[2];
        long[] current = new long[2];
        long[] lastEdit = new long[2];
        Version v = new Version(List.of(), 0, new byte[0]);
        for (int i = 1; i <= n; i++) {
            byte[] key = TestKeys.padded("key", i, 8).getBytes(StandardCharsets.US_ASCII);
            Component c = new Component(new ComponentMeta(new ComponentId(i, 0), 12288, 1, 0, 20, key, key, i, i, i,
                    1_700_000_000_000L, ComponentView.NO_TOMBSTONE), null);
            List<Run> l0 = new ArrayList<>(v.levels().isEmpty() ? List.of() : v.levels().get(0));
            l0.add(0, new Run(i, List.of(c)));
            Version next = new Version(List.of(l0), i, new byte[0]);
            VersionEdit counters = VersionEdit.snapshot(i + 1, i, i, i, i + 1, i + 1, null, List.of(), List.of());
            VersionEdit delta = ManifestState.delta(v, next, counters);
            int[] sizes = {delta.asLayout(VersionEdit.layoutOf(next)).encodeFormat1().length, delta.encode().length};
            for (int f = 0; f < 2; f++) {
                if (current[f] > limit) {
                    VersionEdit snap = VersionEdit.snapshot(i + 1, i, i, i, i + 1, i + 1, null,
                            v.components().stream().map(Component::meta).toList(), VersionEdit.layoutOf(v));
                    int s = (f == 0 ? snap.asLayout(snap.layout()).encodeFormat1().length : snap.encode().length) + FRAME;
                    total[f] += s;
                    current[f] = s;
                }
                total[f] += sizes[f] + FRAME;
                current[f] += sizes[f] + FRAME;
                lastEdit[f] = sizes[f];
            }
            v = next;
        }
        System.out.printf("%d flushes: format 1 wrote %,d manifest bytes (last edit %,d bytes), format 2 wrote %,d"
                + " (last edit %,d bytes)%n", n, total[0], lastEdit[0], total[1], lastEdit[1]);
    }
}
