package dev.strata.lsm.io;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/**
 * The portable {@link StorageIO}: buffered IO through {@link FileChannel}. It has no
 * alignment requirement and supports neither preallocation nor punching holes; the
 * native provider in {@code lsm-io-native} adds those.
 */
public final class FileChannelStorageIO implements StorageIO {

    @Override
    public PageFile open(Path path, OpenMode mode, IoPurpose purpose) throws IOException {
        Set<StandardOpenOption> options = EnumSet.of(StandardOpenOption.READ);
        switch (mode) {
            case READ -> { }
            case READ_WRITE -> options.add(StandardOpenOption.WRITE);
            case CREATE -> {
                options.add(StandardOpenOption.WRITE);
                options.add(StandardOpenOption.CREATE);
            }
            case CREATE_NEW -> {
                options.add(StandardOpenOption.WRITE);
                options.add(StandardOpenOption.CREATE_NEW);
            }
        }
        return new ChannelPageFile(path, purpose, FileChannel.open(path, options));
    }

    @Override
    public int alignment() {
        return 1;
    }

    @Override
    public boolean supportsPreallocate() {
        return false;
    }

    @Override
    public boolean supportsPunchHole() {
        return false;
    }

    @Override
    public boolean exists(Path path) {
        return Files.exists(path);
    }

    @Override
    public List<Path> list(Path dir) throws IOException {
        List<Path> files = new ArrayList<>();
        try (DirectoryStream<Path> stream = Files.newDirectoryStream(dir)) {
            for (Path p : stream) {
                if (Files.isRegularFile(p)) {
                    files.add(p);
                }
            }
        }
        Collections.sort(files);
        return files;
    }

    @Override
    public void createDirectories(Path dir) throws IOException {
        Files.createDirectories(dir);
    }

    @Override
    public void delete(Path path) throws IOException {
        Files.deleteIfExists(path);
    }

    @Override
    public void rename(Path source, Path target) throws IOException {
        try {
            Files.move(source, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (AtomicMoveNotSupportedException e) {
            throw new IOException("atomic rename not supported from " + source + " to " + target, e);
        }
    }

    @Override
    public void syncDirectory(Path dir) throws IOException {
        // On Linux a directory opened read-only can be fsync'ed; that persists its entries.
        try (FileChannel channel = FileChannel.open(dir, StandardOpenOption.READ)) {
            channel.force(true);
        }
    }

    /** One open file. Appends are serialized by the caller; positional reads are concurrent. */
    private static final class ChannelPageFile implements PageFile {
        private final Path path;
        private final IoPurpose purpose;
        private final FileChannel channel;
        private volatile long end;
        /** Where appends go once {@link #mapAppends()} was called; null before. */
        private MappedTail mappedTail;

        ChannelPageFile(Path path, IoPurpose purpose, FileChannel channel) throws IOException {
            this.path = path;
            this.purpose = purpose;
            this.channel = channel;
            this.end = channel.size();
        }

        @Override
        public Path path() {
            return path;
        }

        @Override
        public IoPurpose purpose() {
            return purpose;
        }

        @Override
        public void readFully(ByteBuffer dst, long position) throws IOException {
            long pos = position;
            while (dst.hasRemaining()) {
                int n = channel.read(dst, pos);
                if (n < 0) {
                    throw new EOFException("end of " + path + " at offset " + pos + " with "
                            + dst.remaining() + " bytes still to read");
                }
                pos += n;
            }
        }

        @Override
        public void write(ByteBuffer src, long position) throws IOException {
            long pos = position;
            while (src.hasRemaining()) {
                pos += channel.write(src, pos);
            }
            if (pos > end) {
                end = pos;
            }
        }

        @Override
        public long append(ByteBuffer src) throws IOException {
            long start = end;
            if (mappedTail == null) {
                write(src, start);
            } else {
                int length = src.remaining();
                mappedTail.write(src, start);
                end = start + length;
            }
            return start;
        }

        @Override
        public boolean mapAppends() {
            if (mappedTail == null) {
                mappedTail = new MappedTail(path, channel);
            }
            return true;
        }

        @Override
        public void force(boolean metadata) throws IOException {
            if (mappedTail != null) {
                mappedTail.force();
            }
            channel.force(metadata);
        }

        @Override
        public void truncate(long size) throws IOException {
            if (mappedTail != null) {
                mappedTail.release();
            }
            channel.truncate(size);
            end = size;
        }

        @Override
        public long size() {
            return end;
        }

        @Override
        public void close() throws IOException {
            try (channel) {
                if (mappedTail != null) {
                    mappedTail.release();
                    // The mapping extended the file past what was appended: cut the zeros off.
                    if (channel.size() > end) {
                        channel.truncate(end);
                    }
                }
            }
        }
    }
}
