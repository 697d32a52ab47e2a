package dev.strata.lsm.io.direct;

import com.sun.jna.Native;
import com.sun.jna.Platform;

/**
 * The C library calls this module makes, bound by JNA direct mapping
 * ({@link Native#register(String)}): each {@code native} method is linked to the symbol of
 * the same name once, when the class initializes, and called without proxies or
 * reflection. Errors are returned as C returns them (-1, errno in {@link Native#getLastError()};
 * {@code posix_fadvise} returns the error number itself).
 *
 * <p>Linux on 64-bit platforms only: {@code size_t}, {@code ssize_t} and {@code off_t} are
 * Java {@code long}s, and pointers are passed as {@code long} addresses of direct memory.
 * {@code statx} lives in {@link Statx} so that a C library without it does not prevent the
 * rest from binding.
 */
final class LibC {
    static final int O_RDONLY = 0;
    static final int O_RDWR = 2;
    static final int O_CREAT = 0100;
    static final int O_EXCL = 0200;
    static final int O_CLOEXEC = 02000000;
    /** O_DIRECT for this architecture (it is not the same everywhere: see {@link #oDirect(String)}). */
    static final int O_DIRECT = oDirect(Platform.ARCH);

    static final int EINTR = 4;
    static final int EINVAL = 22;
    static final int ENOSPC = 28;
    static final int EOPNOTSUPP = 95;
    static final int ENOSYS = 38;

    static final int FALLOC_FL_KEEP_SIZE = 0x01;
    static final int FALLOC_FL_PUNCH_HOLE = 0x02;

    static final int POSIX_FADV_RANDOM = 1;
    static final int POSIX_FADV_SEQUENTIAL = 2;
    static final int POSIX_FADV_DONTNEED = 4;

    static {
        Native.register(Platform.C_LIBRARY_NAME);
    }

    private LibC() {
    }

    /**
     * The value of O_DIRECT on Linux for a JNA architecture name ({@link Platform#ARCH}),
     * from the kernel's {@code uapi/asm/fcntl.h}: the generic value is {@code 040000}
     * (x86-64, riscv64, s390x, loongarch64); arm and aarch64 use {@code 0200000}, powerpc
     * {@code 0400000}, mips {@code 0100000}.
     */
    static int oDirect(String arch) {
        return switch (arch) {
            case "aarch64", "arm" -> 0200000;
            case "ppc", "ppc64", "ppc64le" -> 0400000;
            case "mips", "mipsel", "mips64", "mips64el" -> 0100000;
            default -> 040000;
        };
    }

    static native int open(byte[] path, int flags, int mode);

    static native int close(int fd);

    static native long pread(int fd, long buf, long count, long offset);

    static native long pwrite(int fd, long buf, long count, long offset);

    static native int fdatasync(int fd);

    static native int fsync(int fd);

    static native int ftruncate(int fd, long length);

    static native int fallocate(int fd, int mode, long offset, long length);

    static native int posix_fadvise(int fd, long offset, long length, int advice);

    static native String strerror(int errno);

    /** "strerror (errno N)" for messages. */
    static String describe(int errno) {
        String text;
        try {
            text = strerror(errno);
        } catch (RuntimeException | Error e) {
            text = "error";
        }
        return text + " (errno " + errno + ")";
    }
}
