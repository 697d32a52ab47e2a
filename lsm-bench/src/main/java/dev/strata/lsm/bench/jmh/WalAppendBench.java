package dev.strata.lsm.bench.jmh;

import dev.strata.lsm.StoreConfig;
import dev.strata.lsm.io.FileChannelStorageIO;
import dev.strata.lsm.io.StorageIO;
import dev.strata.lsm.WalSyncMode;
import dev.strata.lsm.wal.WalWriter;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * Time for one {@link WalWriter#append} of a single-put record, from one thread, per
 * {@link WalSyncMode}: {@code none} buffers in memory and writes once per MiB, {@code async}
 * makes one {@code write} per append, {@code sync} one {@code write} and one
 * {@code PageFile.force(false)} (fdatasync) per append, as a single appender has no group
 * to share the force with. {@code sync} therefore measures the device behind the scratch
 * directory (see {@link ScratchDirectory}; on tmpfs the force costs nothing).
 *
 * <p>The payload has the size of the engine's WAL record for one put of a 16-byte key and a
 * 100-byte value (docs/format.md, "WAL batch record": 12-byte header, type byte, two
 * one-byte length varints, key, value): 131 bytes. Like the store, the benchmark starts a
 * new segment, and deletes the old one, when the segment reaches {@code segmentBytes} (the
 * default memtable size, which is when the store switches segments); that keeps the disk
 * footprint bounded in the fast modes, and its amortized cost is part of the result.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class WalAppendBench extends BenchmarkDefaults {
    /** Encoded size of a one-put batch record with a 16-byte key and a 100-byte value. */
    static final int RECORD_SIZE = 12 + 1 + 1 + KeySpace.KEY_SIZE + 1 + KeySpace.VALUE_SIZE;

    /** The {@link WalSyncMode}, in lower case. */
    @Param({"none", "async", "sync"})
    public String syncMode;

    /** Segment size at which the benchmark starts a new segment. */
    @Param({"" + StoreConfig.DEFAULT_MEMTABLE_BYTES})
    public long segmentBytes;

    private final StorageIO io = new FileChannelStorageIO();
    private ScratchDirectory dir;
    private WalSyncMode mode;
    private WalWriter writer;
    private byte[] payload;

    /** Creates the scratch directory and the first segment. */
    @Setup(Level.Trial)
    public void setUp() throws IOException {
        mode = WalSyncMode.valueOf(syncMode.toUpperCase(Locale.ROOT));
        payload = new byte[RECORD_SIZE];
        System.arraycopy(KeySpace.value(2), 0, payload, RECORD_SIZE - KeySpace.VALUE_SIZE, KeySpace.VALUE_SIZE);
        dir = ScratchDirectory.create("strata-jmh-wal-");
        writer = WalWriter.create(io, dir.path(), 1, mode);
    }

    /** One append; returns the record's end offset. */
    @Benchmark
    public long append() throws IOException {
        long end = writer.append(payload);
        if (end >= segmentBytes) {
            nextSegment();
        }
        return end;
    }

    private void nextSegment() throws IOException {
        Path full = writer.path();
        long number = writer.segmentNumber();
        writer.close();
        io.delete(full);
        writer = WalWriter.create(io, dir.path(), number + 1, mode);
    }

    /** Closes the segment and deletes the scratch directory. */
    @TearDown(Level.Trial)
    public void tearDown() throws IOException {
        try {
            if (writer != null) {
                writer.close();
            }
        } finally {
            if (dir != null) {
                dir.close();
            }
        }
    }
}
