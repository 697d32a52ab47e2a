package dev.strata.lsm.io;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;

/**
 * A {@link StorageIO} that passes everything to a delegate. Subclasses observe or change
 * one operation (counting, fault injection, tracing) and wrap opened files with
 * {@link #wrap}, typically in a {@link ForwardingPageFile} subclass.
 */
public class ForwardingStorageIO implements StorageIO {
    private final StorageIO delegate;

    /**
     * Forwards every call to {@code delegate}.
     *
     * @param delegate the implementation every call goes to (not null)
     */
    public ForwardingStorageIO(StorageIO delegate) {
        this.delegate = delegate;
    }

    /**
     * Wraps every opened file; the default returns it unchanged.
     *
     * @param file a file just opened by the delegate
     * @return the file callers get: {@code file} or a wrapper of it
     */
    protected PageFile wrap(PageFile file) {
        return file;
    }

    @Override
    public PageFile open(Path path, OpenMode mode, IoPurpose purpose) throws IOException {
        return wrap(delegate.open(path, mode, purpose));
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

    /**
     * The wrapped implementation.
     *
     * @return the implementation given to the constructor
     */
    public StorageIO delegate() {
        return delegate;
    }

    /** A {@link PageFile} that passes everything to a delegate. */
    public static class ForwardingPageFile implements PageFile {
        private final PageFile delegate;

        /**
         * Forwards every call to {@code delegate}.
         *
         * @param delegate the file every call goes to (not null)
         */
        public ForwardingPageFile(PageFile delegate) {
            this.delegate = delegate;
        }

        /**
         * The wrapped file. {@link #writeBehind} is not forwarded: it goes through this
         * wrapper's {@link #write}, so a subclass that overrides {@code write} sees every write.
         *
         * @return the file given to the constructor
         */
        protected PageFile delegate() {
            return delegate;
        }

        @Override
        public Path path() {
            return delegate.path();
        }

        @Override
        public IoPurpose purpose() {
            return delegate.purpose();
        }

        @Override
        public void readFully(ByteBuffer dst, long position) throws IOException {
            delegate.readFully(dst, position);
        }

        @Override
        public void write(ByteBuffer src, long position) throws IOException {
            delegate.write(src, position);
        }

        @Override
        public long append(ByteBuffer src) throws IOException {
            return delegate.append(src);
        }

        @Override
        public void force(boolean metadata) throws IOException {
            delegate.force(metadata);
        }

        @Override
        public void truncate(long size) throws IOException {
            delegate.truncate(size);
        }

        @Override
        public long size() throws IOException {
            return delegate.size();
        }

        @Override
        public void preallocate(long offset, long length) throws IOException {
            delegate.preallocate(offset, length);
        }

        @Override
        public boolean mapAppends() throws IOException {
            return delegate.mapAppends();
        }

        @Override
        public void punchHole(long offset, long length) throws IOException {
            delegate.punchHole(offset, length);
        }

        @Override
        public long allocatedBytes() throws IOException {
            return delegate.allocatedBytes();
        }

        @Override
        public void close() throws IOException {
            delegate.close();
        }
    }
}
