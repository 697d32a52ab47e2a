package dev.strata.lsm.io;

import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * Attributes every byte moved through a delegate {@link StorageIO} to the purpose its
 * file was opened for. The store always wraps its StorageIO in one of these; write and
 * space amplification are computed from {@link #counters()}.
 */
public final class CountingStorageIO extends ForwardingStorageIO {
    private final IoCounters counters;

    /**
     * Counts the IO of {@code delegate} in counters of its own.
     *
     * @param delegate the implementation whose IO is counted (not null)
     */
    public CountingStorageIO(StorageIO delegate) {
        this(delegate, new IoCounters());
    }

    /**
     * Counts the IO of {@code delegate} in {@code counters}, which others may share.
     *
     * @param delegate the implementation whose IO is counted (not null)
     * @param counters where the counts are added (not null)
     */
    public CountingStorageIO(StorageIO delegate, IoCounters counters) {
        super(delegate);
        this.counters = counters;
    }

    /**
     * The live counters.
     *
     * @return the counters this wrapper adds to, updated as IO happens
     */
    public IoCounters counters() {
        return counters;
    }

    @Override
    protected PageFile wrap(PageFile file) {
        return new CountingPageFile(file, counters);
    }

    private static final class CountingPageFile extends ForwardingPageFile {
        private final IoCounters counters;
        private final IoPurpose purpose;

        CountingPageFile(PageFile file, IoCounters counters) {
            super(file);
            this.counters = counters;
            this.purpose = file.purpose();
        }

        @Override
        public void readFully(ByteBuffer dst, long position) throws IOException {
            int n = dst.remaining();
            super.readFully(dst, position);
            counters.recordRead(purpose, n);
        }

        @Override
        public void write(ByteBuffer src, long position) throws IOException {
            int n = src.remaining();
            super.write(src, position);
            counters.recordWrite(purpose, n);
        }

        @Override
        public ByteBuffer writeBehind(ByteBuffer src, long position) throws IOException {
            int n = src.remaining();
            ByteBuffer next = delegate().writeBehind(src, position);
            counters.recordWrite(purpose, n);
            return next;
        }

        @Override
        public long append(ByteBuffer src) throws IOException {
            int n = src.remaining();
            long at = super.append(src);
            counters.recordWrite(purpose, n);
            return at;
        }

        @Override
        public void force(boolean metadata) throws IOException {
            super.force(metadata);
            counters.recordForce(purpose);
        }
    }
}
