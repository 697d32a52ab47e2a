package dev.strata.lsm.wal;

import static dev.strata.lsm.wal.WalFormat.BLOCK_SIZE;
import static dev.strata.lsm.wal.WalFormat.HEADER_SIZE;

import dev.strata.lsm.StoreException;

import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * A growable byte array of framed physical WAL records (docs/format.md, "WAL"): logical
 * records cut into FULL / FIRST / MIDDLE / LAST fragments so that none crosses a 32 KiB
 * block, each with its CRC-32C, length and type; a block's tail too short for a header is
 * zero-filled. Reused across batches by {@link WalWriter}. Not thread safe.
 */
final class WalFrameBuffer {
    private byte[] bytes;
    private int size;

    /** An upper bound of the bytes {@link #frame} adds for a payload of {@code len} bytes. */
    static long maxFramedSize(int len) {
        long fragments = len / (BLOCK_SIZE - HEADER_SIZE) + 2;
        return len + fragments * HEADER_SIZE + HEADER_SIZE;
    }

    /**
     * Frames a logical record that starts at file offset {@code framedEnd}; returns the file
     * offset just past it.
     */
    long frame(long framedEnd, byte[] buf, int off, int len) {
        int at = off;
        int left = len;
        boolean first = true;
        do {
            int blockLeft = BLOCK_SIZE - (int) (framedEnd % BLOCK_SIZE);
            if (blockLeft < HEADER_SIZE) {
                // No header fits: the block ends in a zero trailer that readers skip.
                putZeros(blockLeft);
                framedEnd += blockLeft;
                blockLeft = BLOCK_SIZE;
            }
            // With exactly HEADER_SIZE left this is a 0-byte FIRST fragment, as in LevelDB.
            int fragment = Math.min(left, blockLeft - HEADER_SIZE);
            boolean last = fragment == left;
            byte type;
            if (first) {
                type = last ? WalFormat.TYPE_FULL : WalFormat.TYPE_FIRST;
            } else {
                type = last ? WalFormat.TYPE_LAST : WalFormat.TYPE_MIDDLE;
            }
            putRecord(type, buf, at, fragment);
            framedEnd += HEADER_SIZE + fragment;
            at += fragment;
            left -= fragment;
            first = false;
        } while (left > 0);
        return framedEnd;
    }


    WalFrameBuffer(int capacity) {
        bytes = new byte[capacity];
    }

    int size() {
        return size;
    }

    int capacity() {
        return bytes.length;
    }

    WalFrameBuffer clear() {
        size = 0;
        return this;
    }

    ByteBuffer contents() {
        return ByteBuffer.wrap(bytes, 0, size);
    }

    void putRecord(byte type, byte[] payload, int off, int len) {
        reserve(HEADER_SIZE + len);
        int crc = WalFormat.checksum(type, payload, off, len);
        bytes[size] = (byte) (crc >>> 24);
        bytes[size + 1] = (byte) (crc >>> 16);
        bytes[size + 2] = (byte) (crc >>> 8);
        bytes[size + 3] = (byte) crc;
        bytes[size + 4] = (byte) (len >>> 8);
        bytes[size + 5] = (byte) len;
        bytes[size + 6] = type;
        System.arraycopy(payload, off, bytes, size + HEADER_SIZE, len);
        size += HEADER_SIZE + len;
    }

    void putZeros(int n) {
        reserve(n);
        // The array is reused across batches, so old bytes must be cleared explicitly.
        Arrays.fill(bytes, size, size + n, (byte) 0);
        size += n;
    }

    /** Grows the array so that {@code more} bytes fit after the current contents. */
    void reserve(long more) {
        long needed = size + more;
        if (needed > bytes.length) {
            if (needed > Integer.MAX_VALUE - 16) {
                throw new StoreException("pending WAL batch would exceed " + (Integer.MAX_VALUE - 16) + " bytes");
            }
            long grown = Math.max(needed, Math.min((long) bytes.length * 2, Integer.MAX_VALUE - 16));
            bytes = Arrays.copyOf(bytes, (int) grown);
        }
    }
}
