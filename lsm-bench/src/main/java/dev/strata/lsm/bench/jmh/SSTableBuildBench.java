package dev.strata.lsm.bench.jmh;

import dev.strata.lsm.io.FileChannelStorageIO;
import dev.strata.lsm.io.IoPurpose;
import dev.strata.lsm.io.OpenMode;
import dev.strata.lsm.io.PageFile;
import dev.strata.lsm.io.StorageIO;
import dev.strata.lsm.sstable.FinishedTable;
import dev.strata.lsm.sstable.SSTableWriter;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * Entries per second that {@link SSTableWriter} turns into a table: each invocation writes
 * {@value #ENTRIES} sorted PUTs (16-byte keys, 100-byte values, default table options: 4 KiB
 * pages, 10 bloom bits per key) into a new file and finishes it, as a memtable flush does.
 * The writer hands every page to the OS but does not force the file (the caller decides
 * durability), so this is the encoding, checksumming, bloom building and page-cache write
 * cost, not the device's.
 *
 * <p>Each invocation gets its own new file, opened before and deleted after it outside the
 * measured time; invocations last tens of milliseconds, long enough for JMH's per-invocation
 * fixtures to be negligible.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class SSTableBuildBench extends BenchmarkDefaults {
    /** Entries per table. */
    public static final int ENTRIES = 100_000;

    private final StorageIO io = new FileChannelStorageIO();
    private ScratchDirectory dir;
    private byte[][] keys;
    private byte[] value;
    private int tables;
    private Path path;
    private PageFile file;

    /** Creates the scratch directory and the sorted input. */
    @Setup(Level.Trial)
    public void setUp() throws IOException {
        dir = ScratchDirectory.create("strata-jmh-build-");
        keys = KeySpace.sortedKeys(0, ENTRIES);
        value = KeySpace.value(3);
    }

    /** Opens the empty file the next table goes to. */
    @Setup(Level.Invocation)
    public void openFile() throws IOException {
        path = dir.resolve("table-" + tables++ + ".sst");
        file = io.open(path, OpenMode.CREATE_NEW, IoPurpose.FLUSH);
    }

    /** Writes one table of {@value #ENTRIES} entries. */
    @Benchmark
    @OperationsPerInvocation(ENTRIES)
    public FinishedTable build() throws IOException {
        return TableFixture.write(file, keys, 1, value);
    }

    /** Closes and deletes the table just written. */
    @TearDown(Level.Invocation)
    public void deleteFile() throws IOException {
        file.close();
        io.delete(path);
    }

    /** Deletes the scratch directory. */
    @TearDown(Level.Trial)
    public void tearDown() throws IOException {
        if (dir != null) {
            dir.close();
        }
    }
}
