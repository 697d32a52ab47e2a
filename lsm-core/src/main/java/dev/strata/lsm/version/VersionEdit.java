package dev.strata.lsm.version;

import dev.strata.lsm.policy.ComponentId;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;

/**
 * One manifest record: the components a change added (with their metadata) and removed,
 * the complete layout of the tree after it (levels of runs of component ids), and the
 * store's counters. A snapshot record lists every live component as added. Layout in
 * docs/format.md ("Manifest").
 *
 * @param nextFileNumber next unused file number
 * @param lastSequence largest sequence number in any component
 * @param logNumber WAL segments below this number are no longer needed
 * @param flushCounter completed flushes over the store's life
 * @param nextRunId next unused run id
 * @param nextCreationOrder next component creation order
 * @param policyState the merge policy's durable state
 * @param added components this edit adds
 * @param removed components this edit removes
 * @param layout the tree after the edit: levels, each a list of runs newest first
 */
public record VersionEdit(long nextFileNumber, long lastSequence, long logNumber, long flushCounter, long nextRunId,
                          long nextCreationOrder, byte[] policyState, List<ComponentMeta> added,
                          List<ComponentId> removed, List<List<RunLayout>> layout) {

    /** Format version of an encoded edit (its first byte). */
    public static final int FORMAT_VERSION = 1;

    /** One run in the layout. */
    public record RunLayout(long runId, List<ComponentId> components) {
        public RunLayout {
            components = List.copyOf(components);
        }
    }

    public VersionEdit {
        added = List.copyOf(added);
        removed = List.copyOf(removed);
        List<List<RunLayout>> l = new ArrayList<>();
        for (List<RunLayout> level : layout) {
            l.add(List.copyOf(level));
        }
        layout = List.copyOf(l);
        policyState = policyState == null ? new byte[0] : policyState.clone();
    }

    /** The layout of {@code version}. */
    public static List<List<RunLayout>> layoutOf(Version version) {
        List<List<RunLayout>> layout = new ArrayList<>();
        for (List<Run> level : version.levels()) {
            List<RunLayout> runs = new ArrayList<>();
            for (Run r : level) {
                runs.add(new RunLayout(r.id(), r.components().stream().map(Component::id).toList()));
            }
            layout.add(runs);
        }
        return layout;
    }

    /** Encodes the edit (the record framing adds the checksum). */
    public byte[] encode() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(256);
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeByte(FORMAT_VERSION);
            out.writeLong(nextFileNumber);
            out.writeLong(lastSequence);
            out.writeLong(logNumber);
            out.writeLong(flushCounter);
            out.writeLong(nextRunId);
            out.writeLong(nextCreationOrder);
            writeBytes(out, policyState);
            out.writeInt(added.size());
            for (ComponentMeta m : added) {
                writeId(out, m.id());
                out.writeLong(m.sizeBytes());
                out.writeLong(m.entryCount());
                out.writeLong(m.tombstoneCount());
                out.writeLong(m.userBytes());
                out.writeLong(m.minSeqno());
                out.writeLong(m.maxSeqno());
                out.writeLong(m.creationOrder());
                writeBytes(out, m.minKey());
                writeBytes(out, m.maxKey());
            }
            out.writeInt(removed.size());
            for (ComponentId id : removed) {
                writeId(out, id);
            }
            out.writeInt(layout.size());
            for (List<RunLayout> level : layout) {
                out.writeInt(level.size());
                for (RunLayout run : level) {
                    out.writeLong(run.runId());
                    out.writeInt(run.components().size());
                    for (ComponentId id : run.components()) {
                        writeId(out, id);
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    /**
     * Decodes an edit.
     *
     * @throws IOException if the bytes are truncated or malformed, or of an unknown version
     */
    public static VersionEdit decode(byte[] data) throws IOException {
        DataInputStream in = new DataInputStream(new java.io.ByteArrayInputStream(data));
        int version = in.readUnsignedByte();
        if (version != FORMAT_VERSION) {
            throw new IOException("unsupported version edit format " + version + " (this build reads "
                    + FORMAT_VERSION + ")");
        }
        long nextFile = in.readLong();
        long lastSeq = in.readLong();
        long logNumber = in.readLong();
        long flushes = in.readLong();
        long nextRun = in.readLong();
        long nextOrder = in.readLong();
        byte[] state = readBytes(in, data.length);
        int addedCount = readCount(in, data.length);
        List<ComponentMeta> added = new ArrayList<>(addedCount);
        for (int i = 0; i < addedCount; i++) {
            ComponentId id = readId(in);
            long size = in.readLong();
            long entries = in.readLong();
            long tombstones = in.readLong();
            long userBytes = in.readLong();
            long minSeq = in.readLong();
            long maxSeq = in.readLong();
            long order = in.readLong();
            byte[] minKey = readBytes(in, data.length);
            byte[] maxKey = readBytes(in, data.length);
            added.add(new ComponentMeta(id, size, entries, tombstones, userBytes, minKey, maxKey, minSeq, maxSeq, order));
        }
        int removedCount = readCount(in, data.length);
        List<ComponentId> removed = new ArrayList<>(removedCount);
        for (int i = 0; i < removedCount; i++) {
            removed.add(readId(in));
        }
        int levelCount = readCount(in, data.length);
        List<List<RunLayout>> layout = new ArrayList<>(levelCount);
        for (int l = 0; l < levelCount; l++) {
            int runCount = readCount(in, data.length);
            List<RunLayout> runs = new ArrayList<>(runCount);
            for (int r = 0; r < runCount; r++) {
                long runId = in.readLong();
                int n = readCount(in, data.length);
                List<ComponentId> ids = new ArrayList<>(n);
                for (int i = 0; i < n; i++) {
                    ids.add(readId(in));
                }
                runs.add(new RunLayout(runId, ids));
            }
            layout.add(runs);
        }
        if (in.available() != 0) {
            throw new IOException(in.available() + " unexpected trailing bytes in version edit");
        }
        return new VersionEdit(nextFile, lastSeq, logNumber, flushes, nextRun, nextOrder, state, added, removed, layout);
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
