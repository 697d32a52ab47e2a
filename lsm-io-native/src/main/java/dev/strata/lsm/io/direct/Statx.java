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

    /** The directory descriptor that makes a relative path relative to the working directory. */
    static final int AT_FDCWD = -100;
    /** Describe a symbolic link itself, not its target. */
    static final int AT_SYMLINK_NOFOLLOW = 0x100;

    /**
     * Allocated 512-byte blocks of the file at {@code path} (not following a final symbolic
     * link), or -1 when statx is unavailable, fails (e.g. the file is gone) or does not report
     * blocks.
     */
    static long blocksOf(java.nio.file.Path path) {
        if (!AVAILABLE) {
            return -1;
        }
        byte[] name = path.toString().getBytes(java.nio.charset.StandardCharsets.UTF_8);
        byte[] cPath = java.util.Arrays.copyOf(name, name.length + 1);
        byte[] buf = new byte[SIZE];
        if (statx(AT_FDCWD, cPath, AT_SYMLINK_NOFOLLOW, STATX_BLOCKS, buf) != 0) {
            return -1;
        }
        ByteBuffer b = ByteBuffer.wrap(buf).order(ByteOrder.nativeOrder());
        return (b.getInt(0) & STATX_BLOCKS) == 0 ? -1 : b.getLong(48);
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
