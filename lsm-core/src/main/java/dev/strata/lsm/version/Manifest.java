package dev.strata.lsm.version;

import dev.strata.lsm.CorruptionException;
import dev.strata.lsm.StoreException;
import dev.strata.lsm.io.IoPurpose;
import dev.strata.lsm.io.OpenMode;
import dev.strata.lsm.io.PageFile;
import dev.strata.lsm.io.StorageIO;
import dev.strata.lsm.wal.WalReader;
import dev.strata.lsm.wal.WalRecord;
import dev.strata.lsm.WalSyncMode;
import dev.strata.lsm.wal.WalWriter;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.CRC32C;

/**
 * The manifest: a log of {@link VersionEdit}s in the WAL record format (CRC-framed,
 * torn tail tolerated), each forced before it counts. A new manifest starts with a snapshot
 * edit and becomes live when {@code CURRENT} names it; CURRENT is replaced atomically
 * (write a temporary file, fsync, rename, fsync the directory). Not thread safe: the
 * {@link VersionSet} serializes appends.
 */
public final class Manifest implements Closeable {
    public static final String CURRENT = "CURRENT";
    private static final String CURRENT_TEMP = "CURRENT.tmp";
    private static final Pattern NAME = Pattern.compile("MANIFEST-(\\d{6,})");
    private static final Pattern CURRENT_LINE = Pattern.compile("strata-current 1 (MANIFEST-\\d{6,}) ([0-9a-f]{8})\n");

    private final WalWriter writer;
    private final long number;

    private Manifest(WalWriter writer, long number) {
        this.writer = writer;
        this.number = number;
    }

    /** The file name of manifest {@code number}. */
    public static String fileName(long number) {
        return String.format("MANIFEST-%06d", number);
    }

    /** The manifest number in {@code name}, or -1 if it is not a manifest name. */
    public static long parseNumber(String name) {
        Matcher m = NAME.matcher(name);
        return m.matches() ? Long.parseLong(m.group(1)) : -1;
    }

    public long number() {
        return number;
    }

    /** Bytes in the log so far. */
    public long size() {
        return writer.size();
    }

    /**
     * Creates manifest {@code number} holding {@code snapshot}, forces it, and switches
     * CURRENT to it.
     */
    public static Manifest create(StorageIO io, Path dir, long number, VersionEdit snapshot) {
        Path path = dir.resolve(fileName(number));
        WalWriter w = WalWriter.create(io, path, number, WalSyncMode.SYNC, IoPurpose.MANIFEST);
        try {
            w.append(snapshot.encode());
            writeCurrent(io, dir, fileName(number));
        } catch (RuntimeException | IOException e) {
            try {
                w.close();
            } catch (RuntimeException closeFailure) {
                e.addSuppressed(closeFailure);
            }
            if (e instanceof IOException ioe) {
                throw new StoreException("cannot switch CURRENT to " + path + ": " + ioe, ioe);
            }
            throw (RuntimeException) e;
        }
        return new Manifest(w, number);
    }

    /**
     * The table files the intact records of the manifest at {@code path} reference (what a
     * reader opening it needs), for a reader that stages a copy of a live store.
     *
     * @throws CorruptionException if the records do not replay
     */
    public static java.util.Set<Long> referencedTables(StorageIO io, Path path) {
        Log log = readLog(io, path);
        ManifestState state = log.replay(path);
        java.util.Set<Long> files = new java.util.TreeSet<>();
        for (List<VersionEdit.RunLayout> level : state.layout()) {
            for (VersionEdit.RunLayout run : level) {
                for (dev.strata.lsm.policy.ComponentId id : run.components()) {
                    files.add(id.fileNumber());
                }
            }
        }
        return files;
    }

    /** Bytes of whole records handed to the operating system (see {@link WalWriter#writtenEnd()}). */
    public long writtenEnd() {
        return writer.writtenEnd();
    }

    /** Appends an edit and returns once it is durable. */
    public void append(VersionEdit edit) {
        writer.append(edit.encode());
    }

    /**
     * Cuts this manifest's file back to {@code end} and forces it: after an append that
     * failed part-written, {@code end} is where its last whole record ends. The writer stays
     * unusable; the next edit starts a new manifest.
     */
    void truncate(StorageIO io, Path dir, long end) throws IOException {
        try (PageFile f = io.open(dir.resolve(fileName(number)), OpenMode.READ_WRITE, IoPurpose.MANIFEST)) {
            if (f.size() > end) {
                f.truncate(end);
            }
            f.force(true);
        }
    }

    @Override
    public void close() {
        writer.close();
    }

    private static void writeCurrent(StorageIO io, Path dir, String manifestName) throws IOException {
        CRC32C crc = new CRC32C();
        crc.update(manifestName.getBytes(StandardCharsets.US_ASCII));
        String line = String.format("strata-current 1 %s %08x\n", manifestName, crc.getValue());
        Path temp = dir.resolve(CURRENT_TEMP);
        io.delete(temp);
        try (PageFile f = io.open(temp, OpenMode.CREATE_NEW, IoPurpose.MANIFEST)) {
            f.append(ByteBuffer.wrap(line.getBytes(StandardCharsets.US_ASCII)));
            f.force(true);
        }
        io.rename(temp, dir.resolve(CURRENT));
        io.syncDirectory(dir);
    }

    /** The manifest file CURRENT names, or null when there is no CURRENT (a new store). */
    public static Path readCurrent(StorageIO io, Path dir) throws IOException {
        Path current = dir.resolve(CURRENT);
        if (!io.exists(current)) {
            return null;
        }
        byte[] bytes;
        try (PageFile f = io.open(current, OpenMode.READ, IoPurpose.MANIFEST)) {
            long size = f.size();
            if (size > 4096) {
                throw new CorruptionException(current, 0, "CURRENT file " + current + " is " + size + " bytes long");
            }
            ByteBuffer b = ByteBuffer.allocate((int) size);
            f.readFully(b, 0);
            bytes = b.array();
        }
        String text = new String(bytes, StandardCharsets.US_ASCII);
        Matcher m = CURRENT_LINE.matcher(text);
        if (!m.matches()) {
            throw new CorruptionException(current, 0, "CURRENT file " + current + " is malformed");
        }
        CRC32C crc = new CRC32C();
        crc.update(m.group(1).getBytes(StandardCharsets.US_ASCII));
        if (!String.format("%08x", crc.getValue()).equals(m.group(2))) {
            throw new CorruptionException(current, 0, "checksum mismatch in CURRENT file " + current);
        }
        return dir.resolve(m.group(1));
    }

    /**
     * What a manifest holds: its intact edits in order, each with the offset of its record,
     * and where the intact records end.
     *
     * @param edits     the intact edits, oldest first
     * @param offsets   the file offset of each edit's record
     * @param validEnd  the offset just past the last intact record
     * @param fileSize  the file's length; bytes in [validEnd, fileSize) are a damaged tail
     * @param damage    why reading stopped before the end of the file, or null
     */
    public record Log(List<VersionEdit> edits, List<Long> offsets, long validEnd, long fileSize, String damage) {
        public Log {
            edits = List.copyOf(edits);
            offsets = List.copyOf(offsets);
        }

        /**
         * Whether the log ends in bytes that hold no intact record. The manifest writer
         * appends whole records and forces each, so a clean manifest ends exactly at its
         * last record: anything else is a torn or damaged final record.
         */
        public boolean tailDamaged() {
            return validEnd != fileSize;
        }

        /** The newest intact edit. */
        public VersionEdit last() {
            return edits.get(edits.size() - 1);
        }

        /**
         * The merge policy the newest intact snapshot records, or null: none recorded (a
         * manifest written before format 3, or a tree whose policy is not recorded), or no
         * intact snapshot.
         */
        public PolicyRecord recordedPolicy() {
            for (int i = edits.size() - 1; i >= 0; i--) {
                if (edits.get(i).kind() == VersionEdit.Kind.SNAPSHOT) {
                    return edits.get(i).policy();
                }
            }
            return null;
        }

        /**
         * The layout the intact edits leave (levels of runs of component ids): the last
         * full layout with every later delta applied.
         *
         * @throws CorruptionException naming {@code manifest} and the offset of the first edit
         *                             that does not fit what came before it
         */
        public List<List<VersionEdit.RunLayout>> layout(Path manifest) {
            return replay(manifest).layout();
        }

        /** Every intact edit applied in order; see {@link #layout(Path)}. */
        ManifestState replay(Path manifest) {
            ManifestState state = new ManifestState();
            for (int i = 0; i < edits.size(); i++) {
                try {
                    state.apply(edits.get(i), offsets.get(i));
                } catch (ManifestState.InconsistentEdit e) {
                    throw new CorruptionException(manifest, offsets.get(i), "version edit at offset " + offsets.get(i)
                            + " of " + manifest + " does not fit the edits before it: it " + e.getMessage());
                }
            }
            return state;
        }
    }

    /**
     * Reads every edit of a manifest in order. A damaged final record is left out and
     * reported through {@link Log#tailDamaged()}; the caller decides whether that record
     * can have mattered.
     *
     * @throws CorruptionException naming the manifest and offset when a damaged record is
     *                             followed by an intact one, an edit does not decode, or
     *                             no edit is intact
     */
    public static Log readLog(StorageIO io, Path manifest) {
        Log log = read(io, manifest, false);
        if (log.edits().isEmpty()) {
            throw new CorruptionException(manifest, 0, "manifest " + manifest + " holds no intact version edit"
                    + (log.tailDamaged() ? " (damaged from offset " + log.validEnd() + ")" : ""));
        }
        return log;
    }

    /**
     * Reads the intact edits of a manifest up to the first damage, wherever it is, without
     * throwing for damage: for repair, which wants whatever the manifest still knows. An
     * unreadable manifest yields an empty log whose damage says why.
     */
    public static Log salvage(StorageIO io, Path manifest) {
        try {
            return read(io, manifest, true);
        } catch (RuntimeException e) {
            return new Log(List.of(), List.of(), 0, -1, e.getMessage());
        }
    }

    private static Log read(StorageIO io, Path manifest, boolean salvage) {
        List<VersionEdit> edits = new ArrayList<>();
        List<Long> offsets = new ArrayList<>();
        String damage = null;
        long validEnd;
        long fileSize;
        try (WalReader reader = WalReader.open(io, manifest, IoPurpose.MANIFEST)) {
            fileSize = reader.fileSize();
            try {
                for (WalRecord r = reader.next(); r != null; r = reader.next()) {
                    try {
                        edits.add(VersionEdit.decode(r.payload()));
                        offsets.add(r.offset());
                    } catch (IOException | RuntimeException e) {
                        CorruptionException c = new CorruptionException(manifest, r.offset(), "malformed version edit"
                                + " at offset " + r.offset() + " of " + manifest + ": " + e.getMessage(), e);
                        if (!salvage) {
                            throw c;
                        }
                        damage = c.getMessage();
                        return new Log(edits, offsets, r.offset(), fileSize, damage);
                    }
                }
            } catch (CorruptionException e) {
                if (!salvage) {
                    throw e;
                }
                damage = e.getMessage();
            }
            validEnd = reader.validEnd();
        }
        if (damage == null && validEnd != fileSize) {
            damage = "no intact record from offset " + validEnd + " to the end of the file at " + fileSize;
        }
        return new Log(edits, offsets, validEnd, fileSize, damage);
    }
}
