package dev.strata.lsm.io;

import java.nio.ByteBuffer;

/** Allocation of direct buffers whose start address is aligned, as O_DIRECT requires. */
public final class AlignedBuffers {
    /** The alignment used for page buffers unless an implementation asks for more. */
    public static final int PAGE_ALIGNMENT = 4096;

    private AlignedBuffers() {
    }

    /**
     * Returns a zeroed direct buffer with exactly {@code capacity} bytes whose first byte
     * sits at an address that is a multiple of {@code alignment} (a power of two).
     *
     * @param capacity the buffer's size in bytes (not negative)
     * @param alignment the address alignment in bytes, a power of two
     * @return a new zeroed direct buffer, position 0 and limit {@code capacity}
     */
    public static ByteBuffer allocate(int capacity, int alignment) {
        if (capacity < 0) {
            throw new IllegalArgumentException("negative capacity " + capacity);
        }
        if (Integer.bitCount(alignment) != 1) {
            throw new IllegalArgumentException("alignment must be a power of two: " + alignment);
        }
        ByteBuffer raw = ByteBuffer.allocateDirect(capacity + alignment);
        ByteBuffer aligned = raw.alignedSlice(alignment);
        aligned.limit(capacity);
        return aligned.slice();
    }
}
