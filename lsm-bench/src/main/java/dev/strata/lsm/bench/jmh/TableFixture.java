package dev.strata.lsm.bench.jmh;

import dev.strata.lsm.cache.BlockCache;
import dev.strata.lsm.io.IoPurpose;
import dev.strata.lsm.io.OpenMode;
import dev.strata.lsm.io.PageFile;
import dev.strata.lsm.io.StorageIO;
import dev.strata.lsm.sstable.EntryType;
import dev.strata.lsm.sstable.FinishedTable;
import dev.strata.lsm.sstable.SSTableReader;
import dev.strata.lsm.sstable.SSTableWriter;
import dev.strata.lsm.sstable.TableOptions;

import java.io.Closeable;
import java.io.IOException;
import java.nio.file.Path;

/**
 * An SSTable written for a benchmark and opened for reading: one PUT per key, all with the
 * same value, with sequence numbers ascending from a given first one. The fixture owns the
 * open file; the table's directory is the caller's to delete.
 */
final class TableFixture implements Closeable {
    private final PageFile file;
    private final SSTableReader reader;

    private TableFixture(PageFile file, SSTableReader reader) {
        this.file = file;
        this.reader = reader;
    }

    /**
     * Writes a new table file at {@code path} (default {@link TableOptions}) and opens it
     * with {@code cache}.
     *
     * @param sortedKeys distinct keys in unsigned byte order
     * @param fileNumber the table's identity in {@code cache}
     */
    static TableFixture create(StorageIO io, Path path, byte[][] sortedKeys, long firstSeqno, byte[] value,
                               long fileNumber, BlockCache cache) throws IOException {
        PageFile file = io.open(path, OpenMode.CREATE_NEW, IoPurpose.OTHER);
        try {
            FinishedTable table = write(file, sortedKeys, firstSeqno, value);
            return new TableFixture(file, SSTableReader.open(file, table.footerOffset(), fileNumber, cache));
        } catch (IOException | RuntimeException e) {
            try {
                file.close();
            } catch (IOException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        }
    }

    /**
     * Writes the table into {@code file} the way a flush does, without forcing it: the
     * writer leaves durability to its caller, and the benchmarks measure the writer.
     */
    static FinishedTable write(PageFile file, byte[][] sortedKeys, long firstSeqno, byte[] value) throws IOException {
        SSTableWriter writer = new SSTableWriter(file, TableOptions.defaults());
        for (int i = 0; i < sortedKeys.length; i++) {
            writer.add(sortedKeys[i], firstSeqno + i, EntryType.PUT, value);
        }
        return writer.finish();
    }

    /** The reader over the table. */
    SSTableReader reader() {
        return reader;
    }

    /** Length of the table file in bytes. */
    long fileSize() throws IOException {
        return file.size();
    }

    @Override
    public void close() throws IOException {
        file.close();
    }
}
