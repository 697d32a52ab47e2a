package dev.strata.lsm.wal;

import dev.strata.lsm.io.StorageIO;
import dev.strata.lsm.testkit.TestSeed;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/** Reading whole segments and making payloads, for the WAL tests. */
final class TestSegments {
    private TestSegments() {
    }

    /** Every record of the segment, in order; throws what the reader throws. */
    static List<WalRecord> readAll(StorageIO io, Path segment) {
        List<WalRecord> records = new ArrayList<>();
        try (WalReader reader = WalReader.open(io, segment)) {
            for (WalRecord r = reader.next(); r != null; r = reader.next()) {
                records.add(r);
            }
        }
        return records;
    }

    /** {@code size} random bytes. */
    static byte[] payload(Random random, int size) {
        byte[] b = new byte[size];
        random.nextBytes(b);
        return b;
    }

    /**
     * The seed of a randomized test: the system property {@code strata.test.seed} when set (to
     * replay a failure), else a fresh one. Printed either way.
     */
    static long seed(String test) {
        long seed = TestSeed.orRandom();
        System.out.println(test + ": seed " + seed + " (replay with -Dstrata.test.seed=" + seed + ")");
        return seed;
    }
}
