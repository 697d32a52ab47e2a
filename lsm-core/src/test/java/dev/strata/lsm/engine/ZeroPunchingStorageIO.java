package dev.strata.lsm.engine;

import dev.strata.lsm.io.ForwardingStorageIO;
import dev.strata.lsm.io.PageFile;
import dev.strata.lsm.io.StorageIO;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A storage that claims hole punching and does it by writing zeros over the range, which is
 * what a punched range reads as: a live page punched by mistake then fails its checksum on
 * the next read. Counts the bytes punched.
 */
final class ZeroPunchingStorageIO extends ForwardingStorageIO {
    final AtomicLong punched = new AtomicLong();

    ZeroPunchingStorageIO(StorageIO delegate) {
        super(delegate);
    }

    @Override
    public boolean supportsPunchHole() {
        return true;
    }

    @Override
    protected PageFile wrap(PageFile file) {
        return new ForwardingPageFile(file) {
            @Override
            public void punchHole(long offset, long length) throws IOException {
                ByteBuffer zeros = ByteBuffer.allocate((int) Math.min(length, 1 << 20));
                for (long at = offset; at < offset + length; at += zeros.capacity()) {
                    zeros.clear().limit((int) Math.min(zeros.capacity(), offset + length - at));
                    write(zeros, at);
                }
                force(false);
                punched.addAndGet(length);
            }
        };
    }
}
