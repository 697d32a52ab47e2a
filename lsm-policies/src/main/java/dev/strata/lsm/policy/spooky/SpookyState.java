package dev.strata.lsm.policy.spooky;

import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * Spooky's durable state, persisted in the manifest with each version: the memtable size
 * (the store's setting as the last flush saw it; learned from flushes when the views carry no
 * setting, as views made by hand do), the stored capacity of the largest level (as the level it was set
 * for and its bytes: a level added or removed by a move scales it by T without a write of
 * this state), and the partitioned pass in progress (its target level z, N_L when it began,
 * and the key where the next group starts). Encoded as: a version byte (0x53), memtable
 * bytes (8), capacity level (4), capacity bytes (8), flags (1: bit 0 pass active, bit 1 every
 * group visited, bit 2 a pass of the largest level into a new run of it), z (4), pass N_L (8),
 * cursor length (4, −1 for none), cursor bytes, and (from version 0x54) the largest creation
 * order in the tree when the pass began (8: components created after it are the pass's output).
 * State of version 0x53 (leveling only, before tiered layouts) is read with that order 0.
 */
final class SpookyState {
    private static final byte VERSION = 0x54;
    private static final byte VERSION_LEVELING_ONLY = 0x53;

    long memtableBytes;
    int capacityLevel;
    long capacityBytes;
    boolean passActive;
    int passTarget;
    long passLargestBytes;
    byte[] passCursor;
    boolean passWrapped;
    boolean passBottom;
    long passStartOrder;
    private byte[] loadedFrom;

    /** Adopts {@code encoded} unless it is what this state last produced or loaded. */
    void load(byte[] encoded) {
        if (encoded == null || encoded.length == 0 || Arrays.equals(encoded, loadedFrom)) {
            return;
        }
        ByteBuffer b = ByteBuffer.wrap(encoded);
        byte version = encoded.length < 38 ? 0 : b.get();
        if (version != VERSION && version != VERSION_LEVELING_ONLY) {
            return; // another policy's state (the store switched policies): start afresh
        }
        memtableBytes = Math.max(memtableBytes, b.getLong());
        capacityLevel = b.getInt();
        capacityBytes = b.getLong();
        byte flags = b.get();
        passActive = (flags & 1) != 0;
        passWrapped = (flags & 2) != 0;
        passBottom = (flags & 4) != 0;
        passTarget = b.getInt();
        passLargestBytes = b.getLong();
        int n = b.getInt();
        passCursor = n < 0 ? null : new byte[n];
        if (passCursor != null) {
            b.get(passCursor);
        }
        passStartOrder = version == VERSION && b.remaining() >= 8 ? b.getLong() : 0;
        loadedFrom = encoded.clone();
    }

    byte[] encode() {
        int n = passCursor == null ? 0 : passCursor.length;
        ByteBuffer b = ByteBuffer.allocate(1 + 8 + 4 + 8 + 1 + 4 + 8 + 4 + n + 8);
        b.put(VERSION).putLong(memtableBytes).putInt(capacityLevel).putLong(capacityBytes)
                .put((byte) ((passActive ? 1 : 0) | (passWrapped ? 2 : 0) | (passBottom ? 4 : 0))).putInt(passTarget).putLong(passLargestBytes)
                .putInt(passCursor == null ? -1 : n);
        if (passCursor != null) {
            b.put(passCursor);
        }
        b.putLong(passStartOrder);
        loadedFrom = b.array().clone();
        return b.array();
    }

    /**
     * Begins a pass into level {@code z}; {@code bottom} for the tiered largest level's runs
     * merged into one new run of it; {@code startOrder} the largest creation order in the tree.
     */
    void beginPass(int z, long largestBytes, boolean bottom, long startOrder) {
        passActive = true;
        passBottom = bottom;
        passStartOrder = startOrder;
        passTarget = z;
        passLargestBytes = largestBytes;
        passCursor = null;
        passWrapped = false;
    }

    void endPass() {
        passActive = false;
        passBottom = false;
        passStartOrder = 0;
        passTarget = 0;
        passLargestBytes = 0;
        passCursor = null;
        passWrapped = false;
    }
}
