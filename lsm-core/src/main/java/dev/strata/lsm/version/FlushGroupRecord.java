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
    /** Format version of a commit record (written as ever, so older builds read it). */
    public static final int FORMAT_VERSION = 1;
    /** Format version of an intent record ({@link #intent}); this build reads both. */
    public static final int INTENT_FORMAT_VERSION = 2;
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

    /**
     * One family's part of a group that has not committed yet ({@link #intent}).
     *
     * @param familyId the column family (0 = default)
     * @param above the family's last sequence number when the group began: every table of the
     *     family holding only sequence numbers above it was written by this group
     */
    public record Intent(int familyId, long above) {
    }

    private final List<Entry> entries;
    private final List<Intent> intents;

    /** The commit record of a group whose tables are {@code entries}. */
    public FlushGroupRecord(List<Entry> entries) {
        this(entries, List.of());
    }

    private FlushGroupRecord(List<Entry> entries, List<Intent> intents) {
        this.entries = List.copyOf(entries);
        this.intents = List.copyOf(intents);
    }

    /**
     * The intent record of a group of two or more families, written (durably) before its first
     * table: until the commit record replaces it, every table of a listed family whose smallest
     * sequence number is above the family's {@link Intent#above} belongs to a group that did not
     * commit, which {@code LsmStore.repair} sets aside and an open deletes.
     */
    public static FlushGroupRecord intent(List<Intent> intents) {
        if (intents.isEmpty()) {
            throw new IllegalArgumentException("an intent names at least one family");
        }
        return new FlushGroupRecord(List.of(), intents);
    }

    /** Whether this is a commit record (else an intent: the group did not commit). */
    public boolean committed() {
        return intents.isEmpty();
    }

    /** The committed group's parts, one per family that wrote a table; none for an intent. */
    public List<Entry> entries() {
        return entries;
    }

    /** The families of a group that has not committed ({@link #intent}); none for a commit record. */
    public List<Intent> intents() {
        return intents;
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
            if (version == INTENT_FORMAT_VERSION) {
                int count = in.readInt();
                if (count <= 0 || count > body.length) {
                    throw new IOException("intent family count " + count);
                }
                List<Intent> intents = new ArrayList<>(count);
                for (int i = 0; i < count; i++) {
                    int family = in.readInt();
                    long above = in.readLong();
                    if (family < 0 || above < 0) {
                        throw new IOException("intent of family " + family + " above sequence number " + above);
                    }
                    intents.add(new Intent(family, above));
                }
                if (in.available() != 0) {
                    throw new IOException(in.available() + " trailing bytes");
                }
                return intent(intents);
            }
            if (version != FORMAT_VERSION) {
                throw new CorruptionException(file, MAGIC.length, "flush group record " + file + " has format "
                        + version + "; this build reads " + FORMAT_VERSION + " and " + INTENT_FORMAT_VERSION);
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

    /**
     * Replaces the record of the store in {@code dir} with this one, atomically and durably: the
     * group's commit, or (an intent) the mark of its tables until then.
     */
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

    /**
     * Deletes an intent record of the store in {@code dir} durably (the directory synced):
     * once this returns, no crash brings back the intent, which would let an open drop the
     * tables of an operation that has since been acknowledged (docs/format.md, rule 5).
     */
    public static void deleteIntent(StorageIO io, Path dir) throws IOException {
        delete(io, dir);
        io.syncDirectory(dir);
    }

    byte[] encode() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            if (!committed()) {
                out.writeByte(INTENT_FORMAT_VERSION);
                out.writeInt(intents.size());
                for (Intent i : intents) {
                    out.writeInt(i.familyId());
                    out.writeLong(i.above());
                }
                return ReplacedFile.frame(MAGIC, bytes.toByteArray());
            }
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
