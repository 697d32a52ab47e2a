package dev.strata.lsm.version;

import dev.strata.lsm.CorruptionException;
import dev.strata.lsm.io.StorageIO;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The commit record of an atomic flush (docs/format.md, "Flush group commit record"): the
 * {@code FLUSHGROUP} file of the store directory lists, per column family of one flush group,
 * the table its flush wrote and the WAL replay point its manifest edit sets. Each family keeps
 * its own manifest, so the families' edits cannot be one record the way RocksDB writes an
 * atomic group into its one MANIFEST; instead the group is committed by this one file, written
 * once every table of the group is durable and before any family's manifest names its table.
 * A crash before it leaves tables no manifest names (deleted at open: the group never
 * happened); after it, the open installs each listed table whose family's manifest does not
 * hold it yet ({@code lastSequence} below the entry's), so the group happens whole. The file
 * is deleted once every family's edit is in (a record left by a crash between the last edit
 * and the deletion finds every entry installed).
 *
 * <p>Replaced atomically (temporary file, force, rename, directory sync): a crash leaves the
 * old record (or none) or the new one. Immutable.
 */
public final class FlushGroupRecord {
    /** The record's file name in the store directory. */
    public static final String FILE = "FLUSHGROUP";
    /** Format version this build writes and reads. */
    public static final int FORMAT_VERSION = 1;
    private static final byte[] MAGIC = "SFGR".getBytes(StandardCharsets.US_ASCII);
    private static final int MAX_SIZE = 64 << 20;

    /**
     * One family's part of a group.
     *
     * @param familyId the column family (0 = default)
     * @param logNumber the log number the family's edit sets (the first WAL segment after the flushed memtable)
     * @param lastSequence the last sequence number the edit sets (the flushed memtable's largest)
     * @param table the table the flush wrote, in the family's directory
     */
    public record Entry(int familyId, long logNumber, long lastSequence, ComponentMeta table) {
    }

    private final List<Entry> entries;

    public FlushGroupRecord(List<Entry> entries) {
        this.entries = List.copyOf(entries);
    }

    /** The group's parts, one per family that wrote a table. */
    public List<Entry> entries() {
        return entries;
    }

    /**
     * Reads the record of the store in {@code dir}, or returns null when it has none.
     *
     * @throws CorruptionException if the file is damaged (magic, version, checksum, layout)
     */
    public static FlushGroupRecord read(StorageIO io, Path dir) throws IOException {
        Path file = dir.resolve(FILE);
        if (!io.exists(file)) {
            return null;
        }
        byte[] body = ReplacedFile.read(io, file, MAGIC, MAGIC.length + 1 + 4 + 4, MAX_SIZE, "flush group record");
        try {
            DataInputStream in = new DataInputStream(new ByteArrayInputStream(body));
            int version = in.readUnsignedByte();
            if (version != FORMAT_VERSION) {
                throw new CorruptionException(file, MAGIC.length, "flush group record " + file + " has format "
                        + version + "; this build reads " + FORMAT_VERSION);
            }
            int count = in.readInt();
            if (count < 0 || count > body.length) {
                throw new IOException("entry count " + count);
            }
            List<Entry> entries = new ArrayList<>(count);
            for (int i = 0; i < count; i++) {
                int family = in.readInt();
                long logNumber = in.readLong();
                long lastSequence = in.readLong();
                ComponentMeta table = VersionEditCodec.readMeta(in, body.length, true);
                if (family < 0) {
                    throw new IOException("family id " + family);
                }
                entries.add(new Entry(family, logNumber, lastSequence, table));
            }
            if (in.available() != 0) {
                throw new IOException(in.available() + " trailing bytes");
            }
            return new FlushGroupRecord(entries);
        } catch (IOException | IllegalArgumentException e) {
            if (e instanceof CorruptionException c) {
                throw c;
            }
            throw new CorruptionException(file, 0, "flush group record " + file + " is malformed: " + e.getMessage(), e);
        }
    }

    /** Replaces the record of the store in {@code dir} with this one, atomically and durably: the group's commit. */
    public void write(StorageIO io, Path dir) throws IOException {
        ReplacedFile.replace(io, dir, FILE, encode());
    }

    /**
     * Deletes the record of the store in {@code dir}, if any, once every family's edit is in.
     * Not synced: a record that outlives a crash finds every entry installed.
     */
    public static void delete(StorageIO io, Path dir) throws IOException {
        io.delete(dir.resolve(FILE));
    }

    byte[] encode() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeByte(FORMAT_VERSION);
            out.writeInt(entries.size());
            for (Entry e : entries) {
                out.writeInt(e.familyId());
                out.writeLong(e.logNumber());
                out.writeLong(e.lastSequence());
                VersionEditCodec.writeMeta(out, e.table(), true);
            }
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        return ReplacedFile.frame(MAGIC, bytes.toByteArray());
    }
}
