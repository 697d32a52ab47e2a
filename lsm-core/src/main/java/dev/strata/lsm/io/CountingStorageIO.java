package dev.strata.lsm.io;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;

/**
 * Attributes every byte moved through a delegate {@link StorageIO} to the purpose its
 * file was opened for. The store always wraps its StorageIO in one of these; write and
 * space amplification are computed from {@link #counters()}.
 */
public final class CountingStorageIO implements StorageIO {
    private final StorageIO delegate;
    private final IoCounters counters;

    public CountingStorageIO(StorageIO delegate) {
        this(delegate, new IoCounters());
    }

    public CountingStorageIO(StorageIO delegate, IoCounters counters) {
        this.delegate = delegate;
        this.counters = counters;
    }

    /** The live counters. */
    public IoCounters counters() {
        return counters;
    }

    /** The wrapped implementation. */
    public StorageIO delegate() {
        return delegate;
    }

    @Override
    public PageFile open(Path path, OpenMode mode, IoPurpose purpose) throws IOException {
        return new CountingPageFile(delegate.open(path, mode, purpose), counters);
    }

    @Override
    public int alignment() {
        return delegate.alignment();
    }

    @Override
    public ByteBuffer allocate(int capacity) {
        return delegate.allocate(capacity);
    }

    @Override
    public boolean supportsPreallocate() {
        return delegate.supportsPreallocate();
    }

    @Override
    public boolean supportsPunchHole() {
        return delegate.supportsPunchHole();
    }

    @Override
    public boolean exists(Path path) {
        return delegate.exists(path);
    }

    @Override
    public List<Path> list(Path dir) throws IOException {
        return delegate.list(dir);
    }

    @Override
    public void createDirectories(Path dir) throws IOException {
        delegate.createDirectories(dir);
    }

    @Override
    public void delete(Path path) throws IOException {
        delegate.delete(path);
    }

    @Override
    public void rename(Path source, Path target) throws IOException {
        delegate.rename(source, target);
    }

    @Override
    public void syncDirectory(Path dir) throws IOException {
        delegate.syncDirectory(dir);
    }

    private static final class CountingPageFile implements PageFile {
        private final PageFile file;
        private final IoCounters counters;
        private final IoPurpose purpose;

        CountingPageFile(PageFile file, IoCounters counters) {
            this.file = file;
            this.counters = counters;
            this.purpose = file.purpose();
        }

        @Override
        public Path path() {
            return file.path();
        }

        @Override
        public IoPurpose purpose() {
            return purpose;
        }

        @Override
        public void readFully(ByteBuffer dst, long position) throws IOException {
            int n = dst.remaining();
            file.readFully(dst, position);
            counters.recordRead(purpose, n);
        }

        @Override
        public void write(ByteBuffer src, long position) throws IOException {
            int n = src.remaining();
            file.write(src, position);
            counters.recordWrite(purpose, n);
        }

        @Override
        public long append(ByteBuffer src) throws IOException {
            int n = src.remaining();
            long at = file.append(src);
            counters.recordWrite(purpose, n);
            return at;
        }

        @Override
        public void force(boolean metadata) throws IOException {
            file.force(metadata);
            counters.recordForce(purpose);
        }

        @Override
        public void truncate(long size) throws IOException {
            file.truncate(size);
        }

        @Override
        public long size() throws IOException {
            return file.size();
        }

        @Override
        public void preallocate(long offset, long length) throws IOException {
            file.preallocate(offset, length);
        }

        @Override
        public void punchHole(long offset, long length) throws IOException {
            file.punchHole(offset, length);
        }

        @Override
        public void close() throws IOException {
            file.close();
        }
    }
}
