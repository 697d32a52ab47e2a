package dev.strata.lsm.wal;

import dev.strata.lsm.CorruptionException;
import dev.strata.lsm.StoreException;
import dev.strata.lsm.io.IoPurpose;
import dev.strata.lsm.io.OpenMode;
import dev.strata.lsm.io.PageFile;
import dev.strata.lsm.io.StorageIO;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.function.Consumer;

/**
 * Replays one WAL segment after a restart and cuts off its torn tail, so that the file
 * afterwards holds exactly the records that were replayed.
 *
 * <p>A recovered segment is not appended to again: {@link WalWriter} only creates new
 * segments, and the store starts a new segment after recovery. Truncating still matters:
 * the old segment is replayed again after every restart until a flush retires it, and it
 * must then read back the same records with nothing after them.
 */
public final class WalRecovery {

    /**
     * What one recovery found.
     *
     * @param segmentNumber  the number in the segment header; empty for an empty segment
     * @param records        logical records passed to the sink
     * @param validEnd       the file's length after recovery: the end of the last record
     * @param truncatedBytes bytes cut off the end of the file (torn tail, zero fill, trailer)
     */
    public record Result(OptionalLong segmentNumber, long records, long validEnd, long truncatedBytes) {
    }

    private WalRecovery() {
    }

    /**
     * Passes every complete logical record of {@code segment} to {@code sink}, in order,
     * then truncates the file to the end of the last one (and forces the truncation) if
     * anything follows it. Nothing is truncated when the sink or the read throws.
     *
     * @throws CorruptionException naming file and offset if records before the tail are damaged
     * @throws StoreException      naming the file if it cannot be read or truncated
     */
    public static Result recover(StorageIO io, Path segment, Consumer<? super WalRecord> sink) {
        Objects.requireNonNull(sink, "sink");
        long records = 0;
        long validEnd;
        long fileSize;
        OptionalLong number;
        try (WalReader reader = WalReader.open(io, segment)) {
            for (WalRecord r = reader.next(); r != null; r = reader.next()) {
                sink.accept(r);
                records++;
            }
            validEnd = reader.validEnd();
            fileSize = reader.fileSize();
            number = reader.segmentNumber();
        }
        if (fileSize > validEnd) {
            truncate(io, segment, validEnd);
        }
        return new Result(number, records, validEnd, fileSize - validEnd);
    }

    private static void truncate(StorageIO io, Path segment, long length) {
        try (PageFile file = io.open(segment, OpenMode.READ_WRITE, IoPurpose.WAL)) {
            file.truncate(length);
            // fdatasync covers the new length: it is metadata needed to read the data back.
            file.force(false);
        } catch (IOException e) {
            throw new StoreException("cannot truncate the torn tail of WAL segment " + segment + " at offset "
                    + length + ": " + e, e);
        }
    }
}
