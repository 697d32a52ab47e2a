package dev.strata.lsm.version;

import dev.strata.lsm.CorruptionException;
import dev.strata.lsm.io.IoPurpose;
import dev.strata.lsm.io.OpenMode;
import dev.strata.lsm.io.PageFile;
import dev.strata.lsm.io.StorageIO;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.zip.CRC32C;

/**
 * The framing of the store directory's small files that are replaced whole — the family
 * catalog ({@link FamilyCatalog}) and the flush group commit record ({@link FlushGroupRecord}):
 * a 4-byte magic, the body, and a CRC32C of every byte before it (docs/format.md). Written to
 * {@code NAME.tmp}, forced, renamed over {@code NAME}, and the directory synced, so a crash
 * leaves the old file or the new one. Stateless.
 */
final class ReplacedFile {
    private ReplacedFile() {
    }

    /**
     * The body of file {@code file} (the bytes between the magic and the checksum), checked.
     *
     * @param what the file's kind, for messages ("column family catalog")
     * @throws CorruptionException naming the file if its size is outside {@code [minSize, maxSize]},
     *     or its checksum or magic is wrong
     */
    static byte[] read(StorageIO io, Path file, byte[] magic, int minSize, int maxSize, String what)
            throws IOException {
        byte[] bytes;
        try (PageFile f = io.open(file, OpenMode.READ, IoPurpose.MANIFEST)) {
            long size = f.size();
            if (size < minSize || size > maxSize) {
                throw new CorruptionException(file, 0, what + " " + file + " is " + size + " bytes long, which no "
                        + what + " is");
            }
            ByteBuffer b = ByteBuffer.allocate((int) size);
            f.readFully(b, 0);
            bytes = b.array();
        }
        int bodyEnd = bytes.length - 4;
        CRC32C crc = new CRC32C();
        crc.update(bytes, 0, bodyEnd);
        if ((int) crc.getValue() != ByteBuffer.wrap(bytes, bodyEnd, 4).getInt()) {
            throw new CorruptionException(file, bodyEnd, "checksum mismatch in " + what + " " + file);
        }
        if (!Arrays.equals(bytes, 0, magic.length, magic, 0, magic.length)) {
            throw new CorruptionException(file, 0, what + " " + file + " has a bad magic number");
        }
        return Arrays.copyOfRange(bytes, magic.length, bodyEnd);
    }

    /** {@code magic}, {@code body} and their CRC32C: the file's bytes. */
    static byte[] frame(byte[] magic, byte[] body) {
        ByteBuffer b = ByteBuffer.allocate(magic.length + body.length + 4);
        b.put(magic).put(body);
        CRC32C crc = new CRC32C();
        crc.update(b.array(), 0, magic.length + body.length);
        b.putInt((int) crc.getValue());
        return b.array();
    }

    /** Replaces {@code dir/name} with {@code bytes}, atomically and durably. */
    static void replace(StorageIO io, Path dir, String name, byte[] bytes) throws IOException {
        Path temp = dir.resolve(name + ".tmp");
        io.delete(temp);
        try (PageFile f = io.open(temp, OpenMode.CREATE_NEW, IoPurpose.MANIFEST)) {
            f.append(ByteBuffer.wrap(bytes));
            f.force(true);
        }
        io.rename(temp, dir.resolve(name));
        io.syncDirectory(dir);
    }
}
