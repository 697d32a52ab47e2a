package dev.strata.lsm.wal;

import java.util.zip.CRC32C;

/**
 * Constants of the WAL segment format, version 1 (docs/format.md, "WAL segment"), and the
 * checksum both the writer and the reader compute. A segment is a sequence of
 * {@value #BLOCK_SIZE}-byte blocks; every block holds whole physical records
 * ({@value #HEADER_SIZE}-byte header, then the payload) and at most
 * {@code HEADER_SIZE - 1} trailing zero bytes. Multi-byte integers are big-endian.
 */
final class WalFormat {
    /** Size of a block; physical records never cross a block boundary. */
    static final int BLOCK_SIZE = 32 * 1024;

    /** CRC32C (4 bytes) + payload length (2 bytes) + type (1 byte). */
    static final int HEADER_SIZE = 7;

    /** A whole logical record in one physical record. */
    static final byte TYPE_FULL = 1;
    /** First fragment of a logical record that continues in the next block. */
    static final byte TYPE_FIRST = 2;
    /** Inner fragment; fills its block from the header to the block's end. */
    static final byte TYPE_MIDDLE = 3;
    /** Final fragment of a fragmented logical record. */
    static final byte TYPE_LAST = 4;
    /** The segment header; exactly once, at offset 0. */
    static final byte TYPE_SEGMENT_HEADER = 5;

    /** "STWL" (Strata WAL) in ASCII, the first payload field of the segment header. */
    static final int MAGIC = 0x5354_574C;

    /** The format version this code writes and the only one it reads. */
    static final short FORMAT_VERSION = 1;

    /** Segment header payload: u32 magic, u16 format version, u64 segment number. */
    static final int SEGMENT_HEADER_PAYLOAD = 4 + 2 + 8;

    /** Length of the whole segment header record; the first record starts here. */
    static final int SEGMENT_HEADER_RECORD = HEADER_SIZE + SEGMENT_HEADER_PAYLOAD;

    private WalFormat() {
    }

    /** CRC32C over the type byte followed by {@code payload[off, off + len)}. */
    static int checksum(byte type, byte[] payload, int off, int len) {
        CRC32C crc = new CRC32C();
        crc.update(type);
        crc.update(payload, off, len);
        return (int) crc.getValue();
    }

    /** Human-readable name of a record type for error messages. */
    static String typeName(int type) {
        return switch (type) {
            case TYPE_FULL -> "FULL";
            case TYPE_FIRST -> "FIRST";
            case TYPE_MIDDLE -> "MIDDLE";
            case TYPE_LAST -> "LAST";
            case TYPE_SEGMENT_HEADER -> "SEGMENT_HEADER";
            default -> "type " + type;
        };
    }
}
