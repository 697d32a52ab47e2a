package dev.strata.lsm.bench;

import com.github.luben.zstd.Zstd;
import dev.strata.lsm.bench.workload.RecordFormat;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code --compression}, {@code --bottommost-compression} and {@code --value-compressibility}. */
class CompressionFlagsTest {

    /** Zstd's compressed size of 256 KiB of values (100 bytes each) over their size. */
    private static double ratio(double compressibility) {
        RecordFormat f = new RecordFormat(16, 100, 7, compressibility);
        byte[] all = new byte[256 * 1024];
        for (int i = 0; i < all.length / 100; i++) {
            System.arraycopy(f.value(i, 1), 0, all, i * 100, 100);
        }
        return (double) Zstd.compress(all, 3).length / all.length;
    }

    @Test
    void valuesCompressToAboutTheirCompressibility() {
        double half = ratio(0.5);
        double quarter = ratio(0.25);
        double random = ratio(1.0);
        assertTrue(half > 0.3 && half < 0.65, "R=0.5 compresses to " + half);
        assertTrue(quarter > 0.12 && quarter < 0.4, "R=0.25 compresses to " + quarter);
        assertTrue(quarter < half, quarter + " vs " + half);
        // Values are slices of a 1 MiB pool at random offsets (as db_bench's), so slices overlap now and then.
        assertTrue(random > 0.95, "R=1.0 (random) compresses to " + random);
    }

    private static int run(StringWriter err, String... args) {
        CommandLine cli = new CommandLine(new RunCommand());
        cli.setErr(new PrintWriter(err));
        return cli.execute(args);
    }

    @Test
    void everyEngineRunsWithACodec(@TempDir Path tmp) {
        for (String engine : new String[]{"strata", "rocksdb", "leveldb"}) {
            StringWriter err = new StringWriter();
            int code = run(err, "--engine", engine, "--workload", "fillrandom,readrandom", "--records", "3000",
                    "--compression", "snappy", "--bottommost-compression", "zstd", "--value-compressibility", "0.5",
                    "--dir", tmp.resolve(engine).toString(), "--no-progress");
            assertEquals(0, code, engine + ": " + err);
        }
    }

    @Test
    void badCodecsAndRatiosAreUsageErrors() {
        StringWriter err = new StringWriter();
        assertEquals(2, run(err, "--compression", "gzip", "--records", "10"));
        assertTrue(err.toString().contains("gzip"), err.toString());
        assertEquals(2, run(new StringWriter(), "--value-compressibility", "0", "--records", "10"));
        assertEquals(2, run(new StringWriter(), "--value-compressibility", "1.5", "--records", "10"));
    }
}
