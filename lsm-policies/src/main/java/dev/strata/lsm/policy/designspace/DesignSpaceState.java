package dev.strata.lsm.policy.designspace;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Map;
import java.util.TreeMap;

/**
 * The design-space policy's durable state: the memtable size learned from flushed tables
 * and the round-robin cursor of each level. Encoded as: a version byte (1), the memtable
 * bytes (8), the cursor count (4), then per cursor its level (4), key length (4) and key.
 */
final class DesignSpaceState {
    private static final byte VERSION = 1;
    /** Memtable size assumed until a flush shows the real one: 8 MiB, the design-space paper's buffer. */
    static final long DEFAULT_MEMTABLE_BYTES = 8L << 20;

    private long memtableBytes;
    private final Map<Integer, byte[]> cursors = new TreeMap<>();
    private byte[] loadedFrom;

    /** Adopts {@code encoded} unless it is what this state last produced or loaded. */
    void load(byte[] encoded) {
        if (encoded == null || encoded.length == 0 || Arrays.equals(encoded, loadedFrom)) {
            return;
        }
        ByteBuffer b = ByteBuffer.wrap(encoded);
        if (b.get() != VERSION) {
            return; // state of another policy (the store switched policies): start afresh
        }
        memtableBytes = Math.max(memtableBytes, b.getLong());
        int n = b.getInt();
        for (int i = 0; i < n; i++) {
            int level = b.getInt();
            byte[] key = new byte[b.getInt()];
            b.get(key);
            cursors.putIfAbsent(level, key);
        }
        loadedFrom = encoded.clone();
    }

    byte[] encode() {
        int size = 1 + 8 + 4;
        for (byte[] k : cursors.values()) {
            size += 8 + k.length;
        }
        ByteBuffer b = ByteBuffer.allocate(size);
        b.put(VERSION).putLong(memtableBytes).putInt(cursors.size());
        for (Map.Entry<Integer, byte[]> e : cursors.entrySet()) {
            b.putInt(e.getKey()).putInt(e.getValue().length).put(e.getValue());
        }
        loadedFrom = b.array().clone();
        return b.array();
    }

    void learnMemtable(long flushedBytes) {
        memtableBytes = Math.max(memtableBytes, flushedBytes);
    }

    /** The memtable size: learned, else {@code configuredFileBytes} if set, else 8 MiB. */
    long memtableBytes(long configuredFileBytes) {
        if (memtableBytes > 0) {
            return memtableBytes;
        }
        return configuredFileBytes > 0 ? configuredFileBytes : DEFAULT_MEMTABLE_BYTES;
    }

    byte[] cursor(int level) {
        return cursors.get(level);
    }

    void advanceCursor(int level, byte[] lastKey) {
        cursors.put(level, lastKey.clone());
    }
}
