package dev.strata.lsm.engine;

import dev.strata.lsm.io.AlignedBuffers;
import dev.strata.lsm.io.IoPurpose;
import dev.strata.lsm.io.PageFile;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;

/**
 * A read-only view of a {@link PageFile} that reads it in large aligned chunks and answers
 * page reads from the last chunk: for one pass over a table in about its file order (bulk
 * ingest's validation walks the leaves, which a table writer laid out in key order, with
 * their interior pages between them), a few hundred reads where page by page took one per
 * page. Reads larger than a chunk go to the file. Not thread safe; closing it closes the file.
 */
final class ReadAheadFile implements PageFile {
    /** Bytes per chunk. */
    static final int CHUNK_BYTES = 1 << 20;

    private final PageFile file;
    private final long size;
    private final ByteBuffer chunk = AlignedBuffers.allocate(CHUNK_BYTES, AlignedBuffers.PAGE_ALIGNMENT);
    private long chunkStart = -1;
    private int chunkLength;

    ReadAheadFile(PageFile file) throws IOException {
        this.file = file;
        this.size = file.size();
    }

    @Override
    public Path path() {
        return file.path();
    }

    @Override
    public IoPurpose purpose() {
        return file.purpose();
    }

    @Override
    public void readFully(ByteBuffer dst, long position) throws IOException {
        int n = dst.remaining();
        if (chunkStart < 0 || position < chunkStart || position + n > chunkStart + chunkLength) {
            long start = position - position % AlignedBuffers.PAGE_ALIGNMENT;
            long length = Math.min(CHUNK_BYTES, size - start);
            if (n > CHUNK_BYTES - (position - start) || position + n > size || length <= 0) {
                file.readFully(dst, position); // larger than a chunk, or past the end: the file says so
                return;
            }
            // A chunk is whole pages; the file's last one may be short of a page only in a damaged file.
            chunk.clear().limit((int) length);
            file.readFully(chunk, start);
            chunkStart = start;
            chunkLength = (int) length;
        }
        ByteBuffer view = chunk.duplicate();
        view.limit((int) (position - chunkStart) + n).position((int) (position - chunkStart));
        dst.put(view);
    }

    @Override
    public void write(ByteBuffer src, long position) {
        throw new UnsupportedOperationException("read-ahead view of " + file.path() + " is read-only");
    }

    @Override
    public long append(ByteBuffer src) {
        throw new UnsupportedOperationException("read-ahead view of " + file.path() + " is read-only");
    }

    @Override
    public void force(boolean metadata) {
        throw new UnsupportedOperationException("read-ahead view of " + file.path() + " is read-only");
    }

    @Override
    public void truncate(long newSize) {
        throw new UnsupportedOperationException("read-ahead view of " + file.path() + " is read-only");
    }

    @Override
    public long size() {
        return size;
    }

    @Override
    public void close() throws IOException {
        file.close();
    }
}
