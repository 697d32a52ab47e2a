package dev.strata.lsm.fault;

import dev.strata.lsm.io.FileChannelStorageIO;
import dev.strata.lsm.io.ForwardingStorageIO;
import dev.strata.lsm.io.IoPurpose;
import dev.strata.lsm.io.PageFile;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A {@link dev.strata.lsm.io.StorageIO} over the local file system whose WAL files ({@link
 * IoPurpose#WAL}) fail when a test arms them, and count their forces; other files pass
 * through. Armed appends throw an {@link OutOfMemoryError} (an Error, not an IOException)
 * without writing; armed forces throw an IOException without forcing, so the bytes appended
 * before stay in the file, as after a failed fsync. Thread safe.
 */
public final class WalFaultIO extends ForwardingStorageIO {
    private final AtomicInteger appendErrors = new AtomicInteger();
    private final AtomicInteger forceFailures = new AtomicInteger();
    private final AtomicInteger thrown = new AtomicInteger();
    private final AtomicInteger forces = new AtomicInteger();

    public WalFaultIO() {
        super(new FileChannelStorageIO());
    }

    /** The next {@code n} WAL appends throw {@code OutOfMemoryError("injected: Java heap space")}. */
    public void armAppendErrors(int n) {
        appendErrors.set(n);
    }

    /** The next {@code n} WAL forces throw {@code IOException("injected: fsync failed")}. */
    public void armForceFailures(int n) {
        forceFailures.set(n);
    }

    /** Failures injected so far. */
    public int thrown() {
        return thrown.get();
    }

    /** WAL forces completed so far. */
    public int forces() {
        return forces.get();
    }

    /** Counts one armed call down: whether it fails. */
    private boolean fires(AtomicInteger armed) {
        if (armed.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
            thrown.incrementAndGet();
            return true;
        }
        return false;
    }

    @Override
    protected PageFile wrap(PageFile file) {
        if (file.purpose() != IoPurpose.WAL) {
            return file;
        }
        return new ForwardingPageFile(file) {
            @Override
            public long append(ByteBuffer src) throws IOException {
                if (fires(appendErrors)) {
                    throw new OutOfMemoryError("injected: Java heap space");
                }
                return super.append(src);
            }

            @Override
            public void force(boolean metadata) throws IOException {
                if (fires(forceFailures)) {
                    throw new IOException("injected: fsync failed");
                }
                super.force(metadata);
                forces.incrementAndGet();
            }
        };
    }
}
