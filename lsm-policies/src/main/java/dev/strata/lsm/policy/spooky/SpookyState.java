package dev.strata.lsm.policy.spooky;

import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * Spooky's durable state, persisted in the manifest with each version: the memtable size
 * learned from flushes, the stored capacity of the largest level (as the level it was set
 * for and its bytes: a level added or removed by a move scales it by T without a write of
 * this state), and the partitioned pass in progress (its target level z, N_L when it began,
 * and the key where the next group starts). Encoded as: a version byte (0x53), memtable
 * bytes (8), capacity level (4), capacity bytes (8), flags (1: bit 0 pass active, bit 1 every
 * group visited), z (4), pass N_L (8), cursor length (4, −1 for none) and cursor bytes.
 */
final class SpookyState {
    private static final byte VERSION = 0x53;

    long memtableBytes;
    int capacityLevel;
    long capacityBytes;
    boolean passActive;
    int passTarget;
    long passLargestBytes;
    byte[] passCursor;
    boolean passWrapped;
    private byte[] loadedFrom;

    /** Adopts {@code encoded} unless it is what this state last produced or loaded. */
    void load(byte[] encoded) {
        if (encoded == null || encoded.length == 0 || Arrays.equals(encoded, loadedFrom)) {
            return;
        }
        ByteBuffer b = ByteBuffer.wrap(encoded);
        if (encoded.length < 38 || b.get() != VERSION) {
            return; // another policy's state (the store switched policies): start afresh
        }
        memtableBytes = Math.max(memtableBytes, b.getLong());
        capacityLevel = b.getInt();
        capacityBytes = b.getLong();
        byte flags = b.get();
        passActive = (flags & 1) != 0;
        passWrapped = (flags & 2) != 0;
        passTarget = b.getInt();
        passLargestBytes = b.getLong();
        int n = b.getInt();
        passCursor = n < 0 ? null : new byte[n];
        if (passCursor != null) {
            b.get(passCursor);
        }
        loadedFrom = encoded.clone();
    }

    byte[] encode() {
        int n = passCursor == null ? 0 : passCursor.length;
        ByteBuffer b = ByteBuffer.allocate(1 + 8 + 4 + 8 + 1 + 4 + 8 + 4 + n);
        b.put(VERSION).putLong(memtableBytes).putInt(capacityLevel).putLong(capacityBytes)
                .put((byte) ((passActive ? 1 : 0) | (passWrapped ? 2 : 0))).putInt(passTarget).putLong(passLargestBytes)
                .putInt(passCursor == null ? -1 : n);
        if (passCursor != null) {
            b.put(passCursor);
        }
        loadedFrom = b.array().clone();
        return b.array();
    }

    void beginPass(int z, long largestBytes) {
        passActive = true;
        passTarget = z;
        passLargestBytes = largestBytes;
        passCursor = null;
        passWrapped = false;
    }

    void endPass() {
        passActive = false;
        passTarget = 0;
        passLargestBytes = 0;
        passCursor = null;
        passWrapped = false;
    }
}
