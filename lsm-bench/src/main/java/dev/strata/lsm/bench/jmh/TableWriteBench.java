package dev.strata.lsm.bench.jmh;

import dev.strata.lsm.io.IoPurpose;
import dev.strata.lsm.io.OpenMode;
import dev.strata.lsm.io.PageFile;
import dev.strata.lsm.io.StorageIO;
import dev.strata.lsm.io.StorageIOs;
import dev.strata.lsm.sstable.FinishedTable;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A flush or merge output written durably through a storage IO, as the engine writes one:
 * {@value #ENTRIES} sorted PUTs with 1000-byte values (a table of about 64 MB, default
 * table options) into a new file opened for {@link IoPurpose#MERGE}, then
 * {@code force(false)} (fdatasync) and close. One operation is one table; the table's size
 * is printed once, so operations per second convert to MB/s. {@code io=nio} writes through
 * the page cache (the fdatasync pays the write-back); {@code io=native} writes with O_DIRECT
 * and preallocates; {@code io=native-buffered} is native with {@code direct=false}.
 *
 * <p>One thread: the figure is what one merge can write, to set beside the device's
 * sequential bandwidth ({@code dd ... oflag=direct}).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class TableWriteBench extends BenchmarkDefaults {
    /** Entries per table. */
    public static final int ENTRIES = 64_000;

    /** The storage IO: nio, native or native-buffered. */
    @Param({"nio", "native", "native-buffered"})
    public String io;

    private StorageIO storage;
    private ScratchDirectory dir;
    private byte[][] keys;
    private byte[] value;
    private int tables;
    private Path path;
    private PageFile file;
    private long tableBytes;

    /** Creates the storage IO, the scratch directory and the sorted input. */
    @Setup(Level.Trial)
    public void setUp() throws IOException {
        storage = switch (io) {
            case "native-buffered" -> StorageIOs.create("native", Map.of("direct", "false"));
            default -> StorageIOs.create(io, Map.of());
        };
        dir = ScratchDirectory.create("strata-jmh-tablewrite-");
        storage.createDirectories(dir.resolve("."));
        keys = KeySpace.sortedKeys(0, ENTRIES);
        value = new byte[1000];
        new java.util.Random(5).nextBytes(value);
    }

    /** Opens the empty file the next table goes to. */
    @Setup(Level.Invocation)
    public void openFile() throws IOException {
        path = dir.resolve("table-" + tables++ + ".sst");
        file = storage.open(path, OpenMode.CREATE_NEW, IoPurpose.MERGE);
    }

    /** Writes one table durably. */
    @Benchmark
    @OperationsPerInvocation(1)
    public FinishedTable write() throws IOException {
        FinishedTable t = TableFixture.write(file, keys, 1, value);
        file.force(false);
        return t;
    }

    /** Closes and deletes the table just written. */
    @TearDown(Level.Invocation)
    public void deleteFile() throws IOException {
        tableBytes = file.size();
        file.close();
        storage.delete(path);
    }

    /** Prints the table size and deletes the scratch directory. */
    @TearDown(Level.Trial)
    public void tearDown() throws IOException {
        System.out.println("table of " + tableBytes + " bytes per operation (" + io + ")");
        if (dir != null) {
            dir.close();
        }
    }
}
