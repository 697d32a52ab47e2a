package dev.strata.lsm.policy.designspace;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Map;
import java.util.TreeMap;

/**
 * The design-space policy's durable state: the round-robin cursor of each level. Encoded as:
 * a version byte (2), the cursor count (4), then per cursor its level (4), key length (4) and
 * key. Version 1 also held, after the version byte, the memtable size the policy had learned
 * from flushed tables (8 bytes); the policy now reads it from each view's
 * {@code StoreSettings}, so a version-1 state's is skipped.
 */
final class DesignSpaceState {
    private static final byte VERSION = 2;
    private static final byte VERSION_WITH_MEMTABLE = 1;

    private final Map<Integer, byte[]> cursors = new TreeMap<>();
    private byte[] loadedFrom;

    /** Adopts {@code encoded} unless it is what this state last produced or loaded. */
    void load(byte[] encoded) {
        if (encoded == null || encoded.length == 0 || Arrays.equals(encoded, loadedFrom)) {
            return;
        }
        ByteBuffer b = ByteBuffer.wrap(encoded);
        byte version = b.get();
        if (version == VERSION_WITH_MEMTABLE) {
            b.getLong(); // the learned memtable size of before
        } else if (version != VERSION) {
            return; // state of another policy (the store switched policies): start afresh
        }
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
        int size = 1 + 4;
        for (byte[] k : cursors.values()) {
            size += 8 + k.length;
        }
        ByteBuffer b = ByteBuffer.allocate(size);
        b.put(VERSION).putInt(cursors.size());
        for (Map.Entry<Integer, byte[]> e : cursors.entrySet()) {
            b.putInt(e.getKey()).putInt(e.getValue().length).put(e.getValue());
        }
        loadedFrom = b.array().clone();
        return b.array();
    }

    byte[] cursor(int level) {
        return cursors.get(level);
    }

    void advanceCursor(int level, byte[] lastKey) {
        cursors.put(level, lastKey.clone());
    }
}
