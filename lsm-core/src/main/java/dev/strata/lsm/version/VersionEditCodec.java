package dev.strata.lsm.version;

import dev.strata.lsm.policy.ComponentId;
import dev.strata.lsm.policy.ComponentView;
import dev.strata.lsm.version.VersionEdit.Kind;
import dev.strata.lsm.version.VersionEdit.LevelChange;
import dev.strata.lsm.version.VersionEdit.Position;
import dev.strata.lsm.version.VersionEdit.RunInsert;
import dev.strata.lsm.version.VersionEdit.RunLayout;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;

/** The byte layout of {@link VersionEdit} records, formats 1 to 3 (docs/format.md, "Manifest"). */
final class VersionEditCodec {
    private static final int FORMAT_1 = 1;
    private static final int FORMAT_2 = 2;
    /** The first format whose snapshots say which merge policy the tree runs. */
    private static final int FORMAT_POLICY = 3;
    private static final int NO_POLICY = 0;
    private static final int POLICY = 1;
    private static final int FORM_DROP_INSERT = 0;
    private static final int FORM_ORDER = 1;

    private VersionEditCodec() {
    }

    static byte[] encode(VersionEdit e) {
        return encode(e, VersionEdit.FORMAT_VERSION);
    }

    static byte[] encodeFormat2(VersionEdit e) {
        if (e.policy() != null) {
            throw new IllegalArgumentException("format 2 cannot record a merge policy (" + e.policy() + ")");
        }
        return encode(e, FORMAT_2);
    }

    private static byte[] encode(VersionEdit e, int version) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(256);
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeByte(version);
            out.writeByte(e.kind().code);
            writeCounters(out, e);
            if (version >= FORMAT_POLICY && e.kind() == Kind.SNAPSHOT) {
                writePolicy(out, e.policy());
            }
            out.writeInt(e.added().size());
            for (ComponentMeta m : e.added()) {
                writeMeta(out, m, true);
            }
            writeIds(out, e.removed());
            if (e.kind() == Kind.DELTA) {
                out.writeInt(e.levelChanges().size());
                for (LevelChange c : e.levelChanges()) {
                    out.writeInt(c.level());
                    if (c.order() != null) {
                        out.writeByte(FORM_ORDER);
                        writeRunIds(out, c.order());
                    } else {
                        out.writeByte(FORM_DROP_INSERT);
                        writeRunIds(out, c.dropped());
                        out.writeInt(c.inserted().size());
                        for (RunInsert i : c.inserted()) {
                            out.writeInt(i.index());
                            out.writeLong(i.runId());
                        }
                    }
                }
                out.writeInt(e.placed().size());
                for (Position p : e.placed()) {
                    writeId(out, p.id());
                    out.writeInt(p.level());
                    out.writeLong(p.runId());
                }
            } else {
                writeLayout(out, e.layout());
            }
        } catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
        return bytes.toByteArray();
    }

    static byte[] encodeFormat1(VersionEdit e) {
        if (e.kind() == Kind.DELTA) {
            throw new IllegalArgumentException("format 1 has no delta records");
        }
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(256);
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeByte(FORMAT_1);
            writeCounters(out, e);
            out.writeInt(e.added().size());
            for (ComponentMeta m : e.added()) {
                writeMeta(out, m, false);
            }
            writeIds(out, e.removed());
            writeLayout(out, e.layout());
        } catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
        return bytes.toByteArray();
    }

    static VersionEdit decode(byte[] data) throws IOException {
        DataInputStream in = new DataInputStream(new ByteArrayInputStream(data));
        int version = in.readUnsignedByte();
        if (version < FORMAT_1 || version > VersionEdit.FORMAT_VERSION) {
            throw new IOException("unsupported version edit format " + version + " (this build reads 1 to "
                    + VersionEdit.FORMAT_VERSION + ")");
        }
        Kind kind = Kind.LAYOUT;
        if (version != FORMAT_1) {
            int code = in.readUnsignedByte();
            kind = Kind.of(code);
            if (kind == null) {
                throw new IOException("unknown version edit kind " + code);
            }
        }
        long nextFile = in.readLong();
        long lastSeq = in.readLong();
        long logNumber = in.readLong();
        long flushes = in.readLong();
        long nextRun = in.readLong();
        long nextOrder = in.readLong();
        byte[] state = readBytes(in, data.length);
        PolicyRecord policy = version >= FORMAT_POLICY && kind == Kind.SNAPSHOT ? readPolicy(in, data.length) : null;
        int addedCount = readCount(in, data.length);
        List<ComponentMeta> added = new ArrayList<>(addedCount);
        for (int i = 0; i < addedCount; i++) {
            added.add(readMeta(in, data.length, version != FORMAT_1));
        }
        List<ComponentId> removed = readIds(in, data.length);
        List<List<RunLayout>> layout = List.of();
        List<Position> placed = List.of();
        List<LevelChange> changes = List.of();
        if (kind == Kind.DELTA) {
            int n = readCount(in, data.length);
            changes = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                int level = readCount(in, data.length);
                int form = in.readUnsignedByte();
                if (form == FORM_ORDER) {
                    changes.add(new LevelChange(level, List.of(), List.of(), readRunIds(in, data.length)));
                } else if (form == FORM_DROP_INSERT) {
                    List<Long> dropped = readRunIds(in, data.length);
                    int k = readCount(in, data.length);
                    List<RunInsert> inserted = new ArrayList<>(k);
                    for (int j = 0; j < k; j++) {
                        inserted.add(new RunInsert(readCount(in, data.length), in.readLong()));
                    }
                    changes.add(new LevelChange(level, dropped, inserted, null));
                } else {
                    throw new IOException("unknown level change form " + form + " for level " + level);
                }
            }
            int p = readCount(in, data.length);
            placed = new ArrayList<>(p);
            for (int i = 0; i < p; i++) {
                placed.add(new Position(readId(in), readCount(in, data.length), in.readLong()));
            }
        } else {
            layout = readLayout(in, data.length);
        }
        if (in.available() != 0) {
            throw new IOException(in.available() + " unexpected trailing bytes in version edit");
        }
        return new VersionEdit(kind, nextFile, lastSeq, logNumber, flushes, nextRun, nextOrder, state, added, removed,
                layout, placed, changes, policy);
    }

    /** A snapshot's policy field: u8 0 (none recorded), or u8 1, the name and the parameters sorted by name. */
    private static void writePolicy(DataOutputStream out, PolicyRecord policy) throws IOException {
        if (policy == null) {
            out.writeByte(NO_POLICY);
            return;
        }
        out.writeByte(POLICY);
        out.writeUTF(policy.name());
        out.writeInt(policy.params().size());
        for (java.util.Map.Entry<String, String> p : policy.params().entrySet()) {
            out.writeUTF(p.getKey());
            out.writeUTF(p.getValue());
        }
    }

    private static PolicyRecord readPolicy(DataInputStream in, int limit) throws IOException {
        int flag = in.readUnsignedByte();
        if (flag == NO_POLICY) {
            return null;
        }
        if (flag != POLICY) {
            throw new IOException("bad merge policy flag " + flag + " in snapshot (0 or 1)");
        }
        String name = in.readUTF();
        if (name.isBlank()) {
            throw new IOException("blank merge policy name in snapshot");
        }
        int n = readCount(in, limit);
        java.util.TreeMap<String, String> params = new java.util.TreeMap<>();
        String previous = null;
        for (int i = 0; i < n; i++) {
            String key = in.readUTF();
            if (previous != null && previous.compareTo(key) >= 0) {
                throw new IOException("merge policy parameters of " + name + " not sorted by name: '" + key
                        + "' after '" + previous + "'");
            }
            params.put(key, in.readUTF());
            previous = key;
        }
        return new PolicyRecord(name, params);
    }

    private static void writeCounters(DataOutputStream out, VersionEdit e) throws IOException {
        out.writeLong(e.nextFileNumber());
        out.writeLong(e.lastSequence());
        out.writeLong(e.logNumber());
        out.writeLong(e.flushCounter());
        out.writeLong(e.nextRunId());
        out.writeLong(e.nextCreationOrder());
        writeBytes(out, e.policyState());
    }

    static void writeMeta(DataOutputStream out, ComponentMeta m, boolean withTimes) throws IOException {
        writeId(out, m.id());
        out.writeLong(m.sizeBytes());
        out.writeLong(m.entryCount());
        out.writeLong(m.tombstoneCount());
        out.writeLong(m.userBytes());
        out.writeLong(m.minSeqno());
        out.writeLong(m.maxSeqno());
        out.writeLong(m.creationOrder());
        if (withTimes) {
            out.writeLong(m.creationTimeMillis());
            out.writeLong(m.oldestTombstoneMillis());
        }
        writeBytes(out, m.minKey());
        writeBytes(out, m.maxKey());
    }

    static ComponentMeta readMeta(DataInputStream in, int limit, boolean withTimes) throws IOException {
        ComponentId id = readId(in);
        long size = in.readLong();
        long entries = in.readLong();
        long tombstones = in.readLong();
        long userBytes = in.readLong();
        long minSeq = in.readLong();
        long maxSeq = in.readLong();
        long order = in.readLong();
        long created = 0;
        long oldestTombstone = tombstones == 0 ? ComponentView.NO_TOMBSTONE : 0;
        if (withTimes) {
            created = in.readLong();
            oldestTombstone = in.readLong();
        }
        byte[] minKey = readBytes(in, limit);
        byte[] maxKey = readBytes(in, limit);
        return new ComponentMeta(id, size, entries, tombstones, userBytes, minKey, maxKey, minSeq, maxSeq, order,
                created, oldestTombstone);
    }

    private static void writeLayout(DataOutputStream out, List<List<RunLayout>> layout) throws IOException {
        out.writeInt(layout.size());
        for (List<RunLayout> level : layout) {
            out.writeInt(level.size());
            for (RunLayout run : level) {
                out.writeLong(run.runId());
                writeIds(out, run.components());
            }
        }
    }

    private static List<List<RunLayout>> readLayout(DataInputStream in, int limit) throws IOException {
        int levelCount = readCount(in, limit);
        List<List<RunLayout>> layout = new ArrayList<>(levelCount);
        for (int l = 0; l < levelCount; l++) {
            int runCount = readCount(in, limit);
            List<RunLayout> runs = new ArrayList<>(runCount);
            for (int r = 0; r < runCount; r++) {
                long runId = in.readLong();
                runs.add(new RunLayout(runId, readIds(in, limit)));
            }
            layout.add(runs);
        }
        return layout;
    }

    private static void writeIds(DataOutputStream out, List<ComponentId> ids) throws IOException {
        out.writeInt(ids.size());
        for (ComponentId id : ids) {
            writeId(out, id);
        }
    }

    private static List<ComponentId> readIds(DataInputStream in, int limit) throws IOException {
        int n = readCount(in, limit);
        List<ComponentId> ids = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            ids.add(readId(in));
        }
        return ids;
    }

    private static void writeRunIds(DataOutputStream out, List<Long> ids) throws IOException {
        out.writeInt(ids.size());
        for (long id : ids) {
            out.writeLong(id);
        }
    }

    private static List<Long> readRunIds(DataInputStream in, int limit) throws IOException {
        int n = readCount(in, limit);
        List<Long> ids = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            ids.add(in.readLong());
        }
        return ids;
    }

    private static void writeId(DataOutputStream out, ComponentId id) throws IOException {
        out.writeLong(id.fileNumber());
        out.writeLong(id.footerOffset());
    }

    private static ComponentId readId(DataInputStream in) throws IOException {
        return new ComponentId(in.readLong(), in.readLong());
    }

    private static void writeBytes(DataOutputStream out, byte[] b) throws IOException {
        out.writeInt(b.length);
        out.write(b);
    }

    private static byte[] readBytes(DataInputStream in, int limit) throws IOException {
        int n = readCount(in, limit);
        byte[] b = new byte[n];
        in.readFully(b);
        return b;
    }

    private static int readCount(DataInputStream in, int limit) throws IOException {
        int n = in.readInt();
        if (n < 0 || n > limit) {
            throw new IOException("bad count " + n + " in version edit");
        }
        return n;
    }
}
