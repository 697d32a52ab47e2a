package dev.strata.lsm.sstable;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.zip.CRC32C;

/**
 * Byte layout shared by every self-describing page (leaf, interior, footer); see
 * docs/format.md. All integers are big-endian.
 *
 * <pre>
 *  0  u32  CRC32C of bytes [4, pageSize)
 *  4  u8   page type
 *  5  u8   level (0 for leaves, 1 for the lowest interior level, ...)
 *  6  u16  format version
 *  8  u32  cell count
 * 12  u32  end of cell data (first free byte)
 * 16  cells, growing up ...   free space (zeros)   ... slot array, growing down
 * </pre>
 *
 * Slot {@code i} is the u16 at {@code pageSize - 2 * (i + 1)}: the offset of cell {@code i}.
 */
final class PageFormat {
    /**
     * The format version this code writes for new tables. Version 3 adds to version 2 the
     * page codec, a page map (compressed pages packed back to back), the stored size and a
     * reserved range-tombstone extent to the footer (docs/format.md).
     */
    static final int FORMAT_VERSION = 3;
    /**
     * Version 2, still read and still written by in-place merges of version-2 tables (a
     * version keeps its base's format: its pages and the reused ones must agree). Adds a leaf
     * summary to every level-1 interior cell and bloom and page-count fields to the footer.
     */
    static final int FORMAT_VERSION_2 = 2;
    /** The first format, still read: no leaf summaries, never holds a reusing version. */
    static final int FORMAT_VERSION_1 = 1;

    /**
     * Version 4, a footer only: a version-3 table whose every entry carries one global sequence
     * number (bytes 8-15 of the footer), whatever its cells say. Written by ingest over a
     * table linked or copied into a store; its pages are version 3.
     */
    static final int FORMAT_VERSION_GLOBAL_SEQNO = 4;

    /** Whether this code reads tables whose footer has format {@code version}. */
    static boolean readable(int version) {
        return version >= FORMAT_VERSION_1 && version <= FORMAT_VERSION_GLOBAL_SEQNO;
    }

    /**
     * Header of a page stored in a packed (compressed) table, before its payload:
     * u32 CRC32C of bytes [4, 16 + payloadLength), u8 payload codec (0 = stored as is),
     * u8 and u16 reserved zeros, u32 logical page number, u32 payload length.
     */
    static final int FRAME_HEADER_SIZE = 16;
    static final int FRAME_OFF_CODEC = 4;
    static final int FRAME_OFF_PAGE = 8;
    static final int FRAME_OFF_LENGTH = 12;
    /** Bytes of one page map entry: u64 byte offset, u32 stored length. */
    static final int MAP_ENTRY_SIZE = 12;
    /**
     * Header of a spanning page map (a packed version merged in place, footer byte 134 = 1):
     * u32 the logical page of the map's first entry, u32 reserved zero.
     */
    static final int MAP_HEADER_SIZE = 8;
    /** The unit writes of a packed table are aligned to and dead space is punched in. */
    static final int BLOCK = 4096;

    static final byte TYPE_LEAF = 1;
    static final byte TYPE_INTERIOR = 2;
    static final byte TYPE_FOOTER = 3;

    static final int OFF_CRC = 0;
    static final int OFF_TYPE = 4;
    static final int OFF_LEVEL = 5;
    static final int OFF_VERSION = 6;
    static final int OFF_COUNT = 8;
    static final int OFF_DATA_END = 12;
    static final int HEADER_SIZE = 16;
    static final int SLOT_SIZE = 2;

    /** Root page number of an empty table. */
    static final int NO_PAGE = -1;

    /** Value kinds stored after a PUT entry's trailer. */
    static final byte VALUE_INLINE = 0;
    static final byte VALUE_OVERFLOW = 1;
    /** Bytes of an overflow reference after its kind byte: u32 first page, u32 length, u32 CRC32C. */
    static final int OVERFLOW_REF_SIZE = 12;

    /**
     * Prefix-compressed leaves (leaf encoding 1): the u16 at {@code P - 2} is the restart
     * interval N, and restart r's offset (cell r·N, whose key is stored whole) is the u16 at
     * {@code P - 2 - 2·(r + 1)}.
     */
    static final int RESTART_TAIL_SIZE = 2;
    /** Bits of a prefix-compressed cell's tag below the sequence number: the entry type. */
    static final int TAG_TYPE_BITS = 2;
    /** The value header of a prefix-compressed cell whose value is an overflow reference (an inline one is 2·length). */
    static final int VALUE_HEADER_OVERFLOW = 1;

    /** Big-endian views of a byte array: one load or store per field (an index past the end throws IndexOutOfBoundsException). */
    private static final VarHandle SHORT_BE = MethodHandles.byteArrayViewVarHandle(short[].class, ByteOrder.BIG_ENDIAN);
    private static final VarHandle INT_BE = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.BIG_ENDIAN);
    private static final VarHandle LONG_BE = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);

    private PageFormat() {
    }

    static String typeName(int type) {
        return switch (type) {
            case TYPE_LEAF -> "leaf";
            case TYPE_INTERIOR -> "interior";
            case TYPE_FOOTER -> "footer";
            default -> "unknown(" + type + ")";
        };
    }

    /** CRC32C of {@code page[4, length)}, the checksum stored in a page's first four bytes. */
    static int pageChecksum(byte[] page, int length) {
        CRC32C crc = new CRC32C();
        crc.update(page, 4, length - 4);
        return (int) crc.getValue();
    }

    static int varintSize(int v) {
        // 7 bits a byte: the significant bits (at least one), rounded up to whole bytes; a
        // negative int takes 5 bytes, as the encoder writes it. No loop: this is on every
        // entry's path when tables are written.
        return (38 - Integer.numberOfLeadingZeros(v | 1)) / 7;
    }

    static int varlongSize(long v) {
        // As varintSize: a negative long takes 10 bytes.
        return (70 - Long.numberOfLeadingZeros(v | 1)) / 7;
    }

    /**
     * An internal key as cells of interior pages (and plain leaves) hold it: varint length,
     * the user key {@code key[off, off + length)}, u64 trailer.
     */
    static byte[] encodeInternalKey(byte[] key, int off, int length, long trailer) {
        byte[] out = new byte[varintSize(length) + length + 8];
        int o = 0;
        int v = length;
        while ((v & ~0x7F) != 0) {
            out[o++] = (byte) ((v & 0x7F) | 0x80);
            v >>>= 7;
        }
        out[o++] = (byte) v;
        System.arraycopy(key, off, out, o, length);
        putLong(out, o + length, trailer);
        return out;
    }

    static int getInt(byte[] b, int off) {
        return (int) INT_BE.get(b, off);
    }

    static void putInt(byte[] b, int off, int v) {
        INT_BE.set(b, off, v);
    }

    static long getLong(byte[] b, int off) {
        return (long) LONG_BE.get(b, off);
    }

    static void putLong(byte[] b, int off, long v) {
        LONG_BE.set(b, off, v);
    }

    static int getShort(byte[] b, int off) {
        return (short) SHORT_BE.get(b, off) & 0xffff;
    }

    static void putShort(byte[] b, int off, int v) {
        SHORT_BE.set(b, off, (short) v);
    }
}
