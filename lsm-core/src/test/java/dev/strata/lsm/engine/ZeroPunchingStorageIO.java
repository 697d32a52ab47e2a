package dev.strata.lsm.engine;

import dev.strata.lsm.io.ForwardingStorageIO;
import dev.strata.lsm.io.PageFile;
import dev.strata.lsm.io.StorageIO;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.BitSet;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A storage that claims hole punching and does it by writing zeros over the range, which is
 * what a punched range reads as: a live page punched by mistake then fails its checksum on
 * the next read. Counts the bytes handed to each punch, remembers which 4 KiB blocks of each
 * file are punched, and reports a file's allocated bytes as its length less those blocks, as
 * a file system would.
 */
final class ZeroPunchingStorageIO extends ForwardingStorageIO {
    private static final int BLOCK = 4096;

    /** Bytes handed to punch calls, a block punched twice counted twice. */
    final AtomicLong punched = new AtomicLong();
    private final Map<Path, BitSet> holes = new ConcurrentHashMap<>();

    ZeroPunchingStorageIO(StorageIO delegate) {
        super(delegate);
    }

    @Override
    public boolean supportsPunchHole() {
        return true;
    }

    /** Distinct bytes punched out of every file, each block once. */
    long distinctPunchedBytes() {
        long blocks = 0;
        for (BitSet b : holes.values()) {
            synchronized (b) {
                blocks += b.cardinality();
            }
        }
        return blocks * BLOCK;
    }

    /** Distinct bytes punched out of {@code path}. */
    long punchedBytes(Path path) {
        BitSet b = holes.get(path.toAbsolutePath().normalize());
        if (b == null) {
            return 0;
        }
        synchronized (b) {
            return (long) b.cardinality() * BLOCK;
        }
    }

    @Override
    protected PageFile wrap(PageFile file) {
        BitSet fileHoles = holes.computeIfAbsent(file.path().toAbsolutePath().normalize(), p -> new BitSet());
        return new ForwardingPageFile(file) {
            @Override
            public void punchHole(long offset, long length) throws IOException {
                if (offset % BLOCK != 0 || length % BLOCK != 0) {
                    throw new IllegalArgumentException("unaligned punch at " + offset + " of " + length + " bytes");
                }
                ByteBuffer zeros = ByteBuffer.allocate((int) Math.min(length, 1 << 20));
                for (long at = offset; at < offset + length; at += zeros.capacity()) {
                    zeros.clear().limit((int) Math.min(zeros.capacity(), offset + length - at));
                    write(zeros, at);
                }
                force(false);
                punched.addAndGet(length);
                synchronized (fileHoles) {
                    fileHoles.set((int) (offset / BLOCK), (int) ((offset + length) / BLOCK));
                }
            }

            @Override
            public long allocatedBytes() throws IOException {
                long size = size();
                int blocks = (int) ((size + BLOCK - 1) / BLOCK);
                synchronized (fileHoles) {
                    return size - (long) fileHoles.get(0, blocks).cardinality() * BLOCK;
                }
            }

            @Override
            public void truncate(long size) throws IOException {
                super.truncate(size);
                synchronized (fileHoles) {
                    int from = (int) ((size + BLOCK - 1) / BLOCK);
                    if (from < fileHoles.length()) {
                        fileHoles.clear(from, fileHoles.length());
                    }
                }
            }
        };
    }
}
