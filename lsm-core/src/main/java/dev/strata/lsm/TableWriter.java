package dev.strata.lsm;

import dev.strata.lsm.sstable.TableOptions;
import dev.strata.lsm.io.FileChannelStorageIO;
import dev.strata.lsm.io.IoPurpose;
import dev.strata.lsm.io.OpenMode;
import dev.strata.lsm.io.PageFile;
import dev.strata.lsm.io.StorageIO;
import dev.strata.lsm.io.WriteBehindPageFile;
import dev.strata.lsm.sstable.EntryType;
import dev.strata.lsm.sstable.FinishedTable;
import dev.strata.lsm.sstable.SSTableWriter;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Objects;

/**
 * Writes a table file outside any store, for {@link LsmStore#ingest} (RocksDB's
 * {@code SstFileWriter}): keys in strictly increasing unsigned order, each a put or a delete,
 * in the table format and with the page size, bloom density and limits of a
 * {@link StoreConfig}. Not thread safe. Close it: a writer closed before {@link #finish()}
 * deletes its file.
 *
 * <p>Durability: {@link #finish()} returns once the whole file is on stable storage (forced,
 * fsync), so a finished file survives a crash whether or not it is ever ingested. With the
 * default {@code nio} storage IO the full 1 MiB page buffers are written by a thread of the
 * file's own while entries are added ({@link WriteBehindPageFile}), and that thread forces
 * the file's data every 8 MiB, so the final force has little left to write back; a write or
 * force that fails there fails the next {@code put}, {@code delete} or {@code finish} with a
 * {@link StoreException} naming the file. Other storage IOs write as their
 * {@link PageFile#writeBehind} does.
 *
 * <pre>{@code
 * try (TableWriter w = TableWriter.create(Path.of("part-0.sst"), config)) {
 *     w.put(k1, v1);
 *     w.delete(k2);
 *     w.finish();
 * }
 * store.ingest(List.of(Path.of("part-0.sst")), IngestOptions.defaults());
 * }</pre>
 */
public final class TableWriter implements AutoCloseable {
    private final Path path;
    private final StoreConfig config;
    private final PageFile file;
    private final SSTableWriter writer;
    private long entries;
    private boolean finished;
    private boolean closed;

    private TableWriter(Path path, StoreConfig config, PageFile file, SSTableWriter writer) {
        this.path = path;
        this.config = config;
        this.file = file;
        this.writer = writer;
    }

    /**
     * Creates {@code path}, which must not exist, for a table written with {@code config}'s
     * table options through its storage IO.
     *
     * @param path the table file to create
     * @param config the configuration whose table options and storage IO are used
     * @return a new writer, which the caller finishes and closes
     */
    public static TableWriter create(Path path, StoreConfig config) {
        Objects.requireNonNull(path, "path");
        Objects.requireNonNull(config, "config");
        if (Files.exists(path)) {
            throw new IllegalArgumentException("table file " + path + " exists; TableWriter writes a new file");
        }
        StorageIO io = config.createStorageIO();
        PageFile f = null;
        try {
            f = io.open(path, OpenMode.CREATE_NEW, IoPurpose.FLUSH);
            if (io instanceof FileChannelStorageIO) {
                // nio writes on the caller's thread: write the full page buffers on a thread of
                // the file's own, forcing as it goes, so the entries are encoded meanwhile and
                // finish()'s force finds little left to write back.
                f = new WriteBehindPageFile(f, WriteBehindPageFile.DEFAULT_SYNC_BYTES);
            }
            return new TableWriter(path, config, f, new SSTableWriter(f, TableOptions.of(config)));
        } catch (IOException e) {
            if (f != null) {
                try {
                    f.close();
                } catch (IOException ignored) {
                    // already failing
                }
            }
            throw new StoreException("cannot create table file " + path + ": " + e, e);
        }
    }

    /**
     * Adds {@code key} = {@code value}; {@code key} must sort after every key added before.
     *
     * @param key the key (not null)
     * @param value the value (not null)
     * @return this writer
     */
    public TableWriter put(byte[] key, byte[] value) {
        if (value == null) {
            throw new IllegalArgumentException("value must not be null (use delete)");
        }
        if (value.length > config.maxValueBytes()) {
            throw new IllegalArgumentException("value of " + value.length + " bytes exceeds the maximum value size of "
                    + config.maxValueBytes() + " bytes (maxValueBytes)");
        }
        add(key, EntryType.PUT, value);
        return this;
    }

    /**
     * Adds a deletion of {@code key}; {@code key} must sort after every key added before.
     *
     * @param key the key (not null)
     * @return this writer
     */
    public TableWriter delete(byte[] key) {
        add(key, EntryType.DELETE, null);
        return this;
    }

    private void add(byte[] key, EntryType type, byte[] value) {
        if (closed || finished) {
            throw new IllegalStateException("table writer for " + path + " is " + (closed ? "closed" : "finished"));
        }
        if (key == null) {
            throw new IllegalArgumentException("key must not be null");
        }
        if (key.length > config.maxKeyBytes()) {
            throw new IllegalArgumentException("key of " + key.length + " bytes exceeds the maximum key size of "
                    + config.maxKeyBytes() + " bytes");
        }
        // Every entry has sequence number 0, so the table writer's own order check (ascending
        // keys, then descending sequence numbers) rejects exactly the keys that do not sort
        // strictly after the last one, before it changes anything; the order is not checked
        // here a second time (nor the last key copied a second time) on every entry's path.
        try {
            writer.add(key, 0, type, value);
        } catch (IOException e) {
            throw new StoreException("cannot write table file " + path + ": " + e, e);
        } catch (IllegalArgumentException e) {
            byte[] last = writer.lastKey();
            if (last != null && Arrays.compareUnsigned(key, last) <= 0) {
                throw new IllegalArgumentException("keys must be added in strictly increasing order: "
                        + dev.strata.lsm.sstable.InternalKeys.describe(key) + " after "
                        + dev.strata.lsm.sstable.InternalKeys.describe(last) + " in " + path, e);
            }
            throw e;
        }
        entries++;
    }

    /**
     * Entries added so far.
     *
     * @return the number of entries added
     */
    public long entryCount() {
        return entries;
    }

    /**
     * Writes the table's interior pages, bloom filter and footer and forces the file; returns
     * its size in bytes.
     *
     * @return the table file's size in bytes
     * @throws IllegalStateException if no entry was added (an empty table cannot be ingested)
     */
    public long finish() {
        if (entries == 0) {
            throw new IllegalStateException("table writer for " + path + " holds no entry: nothing to finish");
        }
        if (finished || closed) {
            throw new IllegalStateException("table writer for " + path + " is already " + (closed ? "closed" : "finished"));
        }
        try {
            FinishedTable t = writer.finishDurably();
            finished = true;
            return t.endOffset();
        } catch (IOException e) {
            throw new StoreException("cannot finish table file " + path + ": " + e, e);
        }
    }

    /** Closes the file; deletes it unless {@link #finish()} succeeded. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        if (!finished) {
            try {
                file.close();
            } catch (IOException ignored) {
                // deleted next
            }
            try {
                Files.deleteIfExists(path);
            } catch (IOException e) {
                throw new StoreException("cannot delete unfinished table file " + path + ": " + e, e);
            }
        }
    }
}
