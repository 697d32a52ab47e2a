package dev.strata.lsm.version;

import dev.strata.lsm.CorruptionException;
import dev.strata.lsm.FamilyOptions;
import dev.strata.lsm.io.StorageIO;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The store's column families other than the default one, as the {@code FAMILIES} file of the
 * store directory records them (docs/format.md, "Column family catalog"): the next unused
 * family id and, per family, its id, name and the options it was created with. A store
 * without the file has the default family only (every store from before families existed).
 * Each family's tables, manifest and WAL replay point live in its own directory,
 * {@code families/<id>} ({@link #familyDirectory}); the default family's are the store
 * directory's, as they always were.
 *
 * <p>The file is replaced atomically (temporary file, force, rename, directory sync): a crash
 * leaves the old catalog or the new one. Creating a family makes its directory first and then
 * records it; dropping one records the drop first and deletes the directory after: a
 * directory under {@code families/} that the catalog does not list is deleted at open.
 *
 * <p>Immutable; {@link #with} and {@link #without} return changed copies.
 */
public final class FamilyCatalog {
    /** The catalog's file name in the store directory. */
    public static final String FILE = "FAMILIES";
    /** The directory under the store directory that holds one directory per non-default family. */
    public static final String DIRECTORY = "families";
    /** Format version this build writes and reads. */
    public static final int FORMAT_VERSION = 1;
    private static final byte[] MAGIC = "SFAM".getBytes(StandardCharsets.US_ASCII);
    private static final int MAX_SIZE = 16 << 20;

    /** One recorded family. */
    public record Entry(int id, String name, FamilyOptions options) {
    }

    private final int nextId;
    private final List<Entry> families;

    private FamilyCatalog(int nextId, List<Entry> families) {
        this.nextId = nextId;
        this.families = List.copyOf(families);
    }

    /** The catalog of a store with only the default family. */
    public static FamilyCatalog empty() {
        return new FamilyCatalog(1, List.of());
    }

    /** The next unused family id (ids are never reused, so a dropped family's WAL records stay recognizable). */
    public int nextId() {
        return nextId;
    }

    /** The recorded families (not the default one), in creation order. */
    public List<Entry> families() {
        return families;
    }

    /** This catalog with {@code name} added under id {@link #nextId()}. */
    public FamilyCatalog with(String name, FamilyOptions options) {
        List<Entry> next = new ArrayList<>(families);
        next.add(new Entry(nextId, name, options));
        return new FamilyCatalog(nextId + 1, next);
    }

    /** This catalog without family {@code id}. */
    public FamilyCatalog without(int id) {
        return new FamilyCatalog(nextId, families.stream().filter(e -> e.id() != id).toList());
    }

    /** The directory of family {@code id} (never the default family, whose directory is the store's). */
    public static Path familyDirectory(Path storeDir, int id) {
        return storeDir.resolve(DIRECTORY).resolve(Integer.toString(id));
    }

    /**
     * Reads the catalog of the store in {@code dir}; {@link #empty()} when it has none.
     *
     * @throws CorruptionException if the file is damaged (magic, version, checksum, layout)
     */
    public static FamilyCatalog read(StorageIO io, Path dir) throws IOException {
        Path file = dir.resolve(FILE);
        if (!io.exists(file)) {
            return empty();
        }
        byte[] body = ReplacedFile.read(io, file, MAGIC, MAGIC.length + 1 + 8 + 4, MAX_SIZE, "column family catalog");
        try {
            DataInputStream in = new DataInputStream(new java.io.ByteArrayInputStream(body));
            int version = in.readUnsignedByte();
            if (version != FORMAT_VERSION) {
                throw new CorruptionException(file, MAGIC.length, "column family catalog " + file + " has format "
                        + version + "; this build reads " + FORMAT_VERSION);
            }
            int nextId = in.readInt();
            int count = in.readInt();
            if (count < 0 || count > body.length) {
                throw new IOException("family count " + count);
            }
            List<Entry> families = new ArrayList<>(count);
            for (int i = 0; i < count; i++) {
                int id = in.readInt();
                String name = in.readUTF();
                FamilyOptions.Builder o = FamilyOptions.builder().memtableBytes(in.readLong())
                        .maxImmutableMemtables(in.readInt());
                String policy = in.readUTF();
                int params = in.readInt();
                if (params < 0 || params > body.length) {
                    throw new IOException("parameter count " + params);
                }
                Map<String, String> p = new LinkedHashMap<>();
                for (int j = 0; j < params; j++) {
                    p.put(in.readUTF(), in.readUTF());
                }
                if (!policy.isEmpty()) {
                    o.mergePolicy(policy, p);
                }
                if (id <= 0 || id >= nextId) {
                    throw new IOException("family id " + id + " outside 1.." + (nextId - 1));
                }
                families.add(new Entry(id, name, o.build()));
            }
            if (in.available() != 0) {
                throw new IOException(in.available() + " trailing bytes");
            }
            return new FamilyCatalog(nextId, families);
        } catch (IOException | IllegalArgumentException e) {
            if (e instanceof CorruptionException c) {
                throw c;
            }
            throw new CorruptionException(file, 0, "column family catalog " + file + " is malformed: " + e.getMessage(), e);
        }
    }

    /** Replaces the catalog of the store in {@code dir} with this one, atomically and durably. */
    public void write(StorageIO io, Path dir) throws IOException {
        ReplacedFile.replace(io, dir, FILE, encode());
    }

    byte[] encode() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeByte(FORMAT_VERSION);
            out.writeInt(nextId);
            out.writeInt(families.size());
            for (Entry e : families) {
                out.writeInt(e.id());
                out.writeUTF(e.name());
                FamilyOptions o = e.options();
                out.writeLong(o.memtableBytes());
                out.writeInt(o.maxImmutableMemtables());
                out.writeUTF(o.mergePolicy() == null ? "" : o.mergePolicy());
                Map<String, String> params = o.mergePolicy() == null ? Map.of() : o.mergePolicyParams();
                out.writeInt(params.size());
                for (Map.Entry<String, String> p : new java.util.TreeMap<>(params).entrySet()) {
                    out.writeUTF(p.getKey());
                    out.writeUTF(p.getValue());
                }
            }
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        return ReplacedFile.frame(MAGIC, bytes.toByteArray());
    }
}
