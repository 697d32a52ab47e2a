package dev.strata.lsm.sstable;

import dev.strata.lsm.CorruptionException;

import java.io.ByteArrayOutputStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.zip.CRC32C;

/**
 * The range-tombstone extent of a format-3 table (docs/format.md, "Range-tombstone extent"):
 * the table's range tombstones, fragmented, written once at finish and loaded whole when the
 * table is opened. Layout: u8 extent version (1), three zero bytes, u32 tombstone count, then
 * per tombstone varint start length, start, varint end length, end, u64 sequence number —
 * sorted by start, non-overlapping but for tombstones of one fragment (same start and end,
 * sequence numbers descending) — and last a u32 CRC32C of every byte before it.
 *
 * <p>Stateless and thread safe.
 */
public final class RangeTombstoneExtent {
    /** The extent's own format version. */
    public static final int VERSION = 1;

    private RangeTombstoneExtent() {
    }

    /** The extent holding {@code tombstones} (not empty). */
    public static byte[] encode(RangeTombstones tombstones) {
        List<RangeTombstones.Tombstone> ts = tombstones.tombstones();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.write(VERSION);
        out.write(0);
        out.write(0);
        out.write(0);
        writeInt(out, ts.size());
        for (RangeTombstones.Tombstone t : ts) {
            writeVarint(out, t.from().length);
            out.write(t.from(), 0, t.from().length);
            writeVarint(out, t.to().length);
            out.write(t.to(), 0, t.to().length);
            for (int i = 7; i >= 0; i--) {
                out.write((int) (t.seqno() >>> (8 * i)));
            }
        }
        CRC32C crc = new CRC32C();
        byte[] body = out.toByteArray();
        crc.update(body);
        writeInt(out, (int) crc.getValue());
        return out.toByteArray();
    }

    /**
     * The tombstones of an extent read from {@code file} at {@code offset}.
     *
     * @throws CorruptionException if the checksum, the version or the layout is wrong
     */
    public static RangeTombstones decode(byte[] b, Path file, long offset) {
        String where = "range-tombstone extent at offset " + offset + " of " + file;
        if (b.length < 12) {
            throw new CorruptionException(file, offset, "truncated " + where + " (" + b.length + " bytes)");
        }
        CRC32C crc = new CRC32C();
        crc.update(b, 0, b.length - 4);
        int stored = PageFormat.getInt(b, b.length - 4);
        if ((int) crc.getValue() != stored) {
            throw new CorruptionException(file, offset, String.format(
                    "checksum mismatch in the %s: expected 0x%08x, computed 0x%08x", where, stored, (int) crc.getValue()));
        }
        if ((b[0] & 0xff) != VERSION || b[1] != 0 || b[2] != 0 || b[3] != 0) {
            throw new CorruptionException(file, offset, "unknown version " + (b[0] & 0xff) + " of the " + where
                    + " (this build reads version " + VERSION + ")");
        }
        try {
            int count = PageFormat.getInt(b, 4);
            if (count <= 0) {
                throw new IllegalArgumentException("tombstone count " + count);
            }
            int[] pos = {8};
            int end = b.length - 4;
            List<RangeTombstones.Tombstone> ts = new ArrayList<>(Math.min(count, 1 << 16));
            RangeTombstones.Tombstone prev = null;
            for (int i = 0; i < count; i++) {
                byte[] from = bytes(b, pos, end);
                byte[] to = bytes(b, pos, end);
                if (pos[0] + 8 > end) {
                    throw new IllegalArgumentException("tombstone " + i + " runs past the extent");
                }
                long seq = PageFormat.getLong(b, pos[0]);
                pos[0] += 8;
                if (Arrays.compareUnsigned(from, to) >= 0 || seq < 0 || seq > InternalKeys.MAX_SEQNO) {
                    throw new IllegalArgumentException("tombstone " + i + " has an empty range or a bad sequence number");
                }
                if (prev != null) {
                    boolean sameFragment = Arrays.equals(prev.from(), from) && Arrays.equals(prev.to(), to);
                    if (sameFragment ? seq >= prev.seqno() : Arrays.compareUnsigned(prev.to(), from) > 0) {
                        throw new IllegalArgumentException("tombstone " + i + " is out of order");
                    }
                }
                prev = new RangeTombstones.Tombstone(from, to, seq);
                ts.add(prev);
            }
            if (pos[0] != end) {
                throw new IllegalArgumentException((end - pos[0]) + " trailing bytes");
            }
            return RangeTombstones.of(ts);
        } catch (RuntimeException e) {
            throw new CorruptionException(file, offset, "malformed " + where + ": " + e.getMessage(), e);
        }
    }

    private static byte[] bytes(byte[] b, int[] pos, int end) {
        int len = 0;
        for (int shift = 0; ; shift += 7) {
            if (shift > 28 || pos[0] >= end) {
                throw new IllegalArgumentException("bad varint");
            }
            int x = b[pos[0]++];
            len |= (x & 0x7f) << shift;
            if (x >= 0) {
                break;
            }
        }
        if (len < 0 || pos[0] + len > end) {
            throw new IllegalArgumentException("key of " + len + " bytes runs past the extent");
        }
        byte[] k = Arrays.copyOfRange(b, pos[0], pos[0] + len);
        pos[0] += len;
        return k;
    }

    private static void writeInt(ByteArrayOutputStream out, int v) {
        for (int i = 3; i >= 0; i--) {
            out.write(v >>> (8 * i));
        }
    }

    private static void writeVarint(ByteArrayOutputStream out, int v) {
        while ((v & ~0x7F) != 0) {
            out.write((v & 0x7F) | 0x80);
            v >>>= 7;
        }
        out.write(v);
    }
}
