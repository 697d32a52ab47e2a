package dev.strata.lsm.wal;

import dev.strata.lsm.io.ForwardingStorageIO;

import dev.strata.lsm.io.PageFile;
import dev.strata.lsm.io.StorageIO;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Fails the n-th append or force (counting from 1, over all files) with an IOException,
 * without passing that call on; every later call of the same kind fails too, as a dead
 * device would.
 */
final class FaultyStorageIO extends ForwardingStorageIO {
    static final String MESSAGE = "injected IO failure";

    private final AtomicInteger appendsLeft;
    private final AtomicInteger forcesLeft;

    /** Use {@code Integer.MAX_VALUE} for a kind of call that should never fail. */
    FaultyStorageIO(StorageIO delegate, int failingAppend, int failingForce) {
        super(delegate);
        this.appendsLeft = new AtomicInteger(failingAppend);
        this.forcesLeft = new AtomicInteger(failingForce);
    }

    @Override
    protected PageFile wrap(PageFile file) {
        return new ForwardingPageFile(file) {
            @Override
            public long append(ByteBuffer src) throws IOException {
                if (appendsLeft.decrementAndGet() <= 0) {
                    throw new IOException(MESSAGE + " (append)");
                }
                return super.append(src);
            }

            @Override
            public void force(boolean metadata) throws IOException {
                if (forcesLeft.decrementAndGet() <= 0) {
                    throw new IOException(MESSAGE + " (force)");
                }
                super.force(metadata);
            }
        };
    }
}
