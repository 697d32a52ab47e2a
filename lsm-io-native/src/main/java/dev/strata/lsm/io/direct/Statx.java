package dev.strata.lsm.io.direct;

import com.sun.jna.Native;
import com.sun.jna.Platform;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * {@code statx(2)} (glibc 2.28, Linux 4.11; the direct-IO alignment fields since Linux 6.1),
 * bound on its own so that its absence only disables what needs it.
 */
final class Statx {
    static final int AT_EMPTY_PATH = 0x1000;
    static final int STATX_BLOCKS = 0x400;
    static final int STATX_DIOALIGN = 0x2000;
    private static final int SIZE = 256;

    /** Whether statx could be bound. */
    static final boolean AVAILABLE;

    static {
        boolean ok;
        try {
            Native.register(Statx.class, Platform.C_LIBRARY_NAME);
            ok = true;
        } catch (UnsatisfiedLinkError e) {
            ok = false;
        }
        AVAILABLE = ok;
    }

    private Statx() {
    }

    private static native int statx(int dirfd, byte[] path, int flags, int mask, byte[] buf);

    /** What statx reported about an open file; the fields its mask does not cover are 0. */
    record Result(int mask, int blockSize, long blocks, int dioMemAlign, int dioOffsetAlign) {
        boolean hasDioAlign() {
            return (mask & STATX_DIOALIGN) != 0 && dioOffsetAlign > 0;
        }
    }

    /** statx of the open file {@code fd}, or null when statx is unavailable or fails. */
    static Result of(int fd) {
        if (!AVAILABLE) {
            return null;
        }
        byte[] buf = new byte[SIZE];
        if (statx(fd, new byte[] {0}, AT_EMPTY_PATH, STATX_BLOCKS | STATX_DIOALIGN, buf) != 0) {
            return null;
        }
        ByteBuffer b = ByteBuffer.wrap(buf).order(ByteOrder.nativeOrder());
        return new Result(b.getInt(0), b.getInt(4), b.getLong(48), b.getInt(152), b.getInt(156));
    }
}
