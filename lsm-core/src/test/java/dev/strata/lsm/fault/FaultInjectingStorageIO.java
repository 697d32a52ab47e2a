package dev.strata.lsm.fault;

import dev.strata.lsm.io.ForwardingStorageIO;
import dev.strata.lsm.io.IoPurpose;
import dev.strata.lsm.io.PageFile;
import dev.strata.lsm.io.StorageIO;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Fails write sites of one {@link IoPurpose}: every write, append and force of a file
 * opened for that purpose is a numbered site. From site {@code n} on (once, or until
 * {@link #heal()} when persistent) the site fails as the chosen fault.
 */
final class FaultInjectingStorageIO extends ForwardingStorageIO {

    /** How a site fails. */
    enum Fault {
        /** Nothing is written; "No space left on device". */
        ENOSPC,
        /** Nothing is written; "Input/output error". */
        EIO,
        /** Half of the buffer is written, then the call fails (a torn write). */
        TORN
    }

    private final IoPurpose purpose;
    private final Fault fault;
    private final int failAt;
    private final boolean persistent;
    private final AtomicInteger sites = new AtomicInteger();
    private final AtomicInteger failures = new AtomicInteger();
    private volatile boolean healed;

    FaultInjectingStorageIO(StorageIO delegate, IoPurpose purpose, Fault fault, int failAt, boolean persistent) {
        super(delegate);
        this.purpose = purpose;
        this.fault = fault;
        this.failAt = failAt;
        this.persistent = persistent;
    }

    /** Write sites of the purpose seen so far. */
    int sites() {
        return sites.get();
    }

    /** Faults injected so far. */
    int failures() {
        return failures.get();
    }

    /** Stops injecting. */
    void heal() {
        healed = true;
    }

    private boolean shouldFail() {
        int site = sites.incrementAndGet();
        if (healed || failAt <= 0) {
            return false;
        }
        boolean fail = persistent ? site >= failAt : site == failAt;
        if (fail) {
            failures.incrementAndGet();
        }
        return fail;
    }

    private IOException error() {
        return new IOException(switch (fault) {
            case ENOSPC -> "No space left on device (injected)";
            case EIO, TORN -> "Input/output error (injected)";
        });
    }

    @Override
    protected PageFile wrap(PageFile file) {
        if (file.purpose() != purpose) {
            return file;
        }
        return new ForwardingPageFile(file) {
            @Override
            public void write(ByteBuffer src, long position) throws IOException {
                if (shouldFail()) {
                    tear(src, position, false);
                }
                super.write(src, position);
            }

            @Override
            public long append(ByteBuffer src) throws IOException {
                if (shouldFail()) {
                    tear(src, -1, true);
                }
                return super.append(src);
            }

            @Override
            public void force(boolean metadata) throws IOException {
                if (shouldFail()) {
                    throw error();
                }
                super.force(metadata);
            }

            private void tear(ByteBuffer src, long position, boolean append) throws IOException {
                if (fault == Fault.TORN && src.remaining() > 1) {
                    ByteBuffer half = src.duplicate();
                    half.limit(half.position() + src.remaining() / 2);
                    if (append) {
                        super.append(half);
                    } else {
                        super.write(half, position);
                    }
                }
                throw error();
            }
        };
    }
}
