package dev.strata.lsm.bench.engine;

import dev.strata.lsm.StoreConfig;
import org.iq80.leveldb.CompressionType;
import org.iq80.leveldb.DB;
import org.iq80.leveldb.DBIterator;
import org.iq80.leveldb.Options;
import org.iq80.leveldb.WriteOptions;
import org.iq80.leveldb.impl.DbImpl;
import org.iq80.leveldb.impl.FileMetaData;
import org.iq80.leveldb.impl.Iq80DBFactory;
import org.iq80.leveldb.impl.Version;
import org.iq80.leveldb.impl.VersionSet;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.Field;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * LevelDB as a {@link BenchEngine}: the pure-Java port (org.iq80.leveldb), with write buffer,
 * block cache and block size matched to Strata's configuration, no compression (Strata does
 * not compress) and {@code sync=false} writes. The port has no bloom filters, so its reads
 * of absent keys cost more than the other engines'; that is the engine as shipped.
 */
final class LevelDbAdapter implements BenchEngine {
    static final String NAME = "leveldb";
    /** LevelDB's fixed level count ({@code config::kNumLevels}). */
    private static final int LEVELS = 7;

    private final DbImpl db;
    private final VersionSet versions;
    private final WriteOptions writeOptions = new WriteOptions().sync(false);
    private final String description;

    /**
     * The LevelDB port's codec for Strata's: it has Snappy only, so lz4 and zstd run it
     * uncompressed (said on stderr, so a comparison is not read as like for like).
     */
    static CompressionType levelDbCodec(dev.strata.lsm.Compression c) {
        if (c == dev.strata.lsm.Compression.SNAPPY) {
            return CompressionType.SNAPPY;
        }
        if (c != dev.strata.lsm.Compression.NONE) {
            System.err.println("leveldb: the port has no " + c + " codec; it runs uncompressed");
        }
        return CompressionType.NONE;
    }

    LevelDbAdapter(Path dir, StoreConfig config) {
        int writeBuffer = (int) Math.min(config.memtableBytes(), Integer.MAX_VALUE);
        Options options = new Options()
                .createIfMissing(true)
                .writeBufferSize(writeBuffer)
                .cacheSize(config.blockCacheBytes())
                .blockSize(config.pageSize())
                .compressionType(levelDbCodec(config.compression()));
        try {
            DB opened = Iq80DBFactory.factory.open(dir.toFile(), options);
            db = (DbImpl) opened;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot open leveldb in " + dir, e);
        }
        versions = versionSet(db);
        description = String.format("iq80 leveldb 0.12, write_buffer_size=%d, cache %d bytes, block_size=%d, "
                + "compression %s, no bloom filters (not in the port)", writeBuffer, config.blockCacheBytes(),
                config.pageSize(), options.compressionType());
    }

    /**
     * The port exposes no property or "compaction pending" call (its getProperty returns
     * null), so its version set is read directly: it knows both.
     */
    private static VersionSet versionSet(DbImpl db) {
        try {
            Field f = DbImpl.class.getDeclaredField("versions");
            f.setAccessible(true);
            return (VersionSet) f.get(db);
        } catch (ReflectiveOperationException | RuntimeException e) {
            throw new IllegalStateException("cannot read the version set of iq80 leveldb: " + e, e);
        }
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String describe() {
        return description;
    }

    @Override
    public String durability() {
        return "log on, WriteOptions.sync=false: each write is written to the OS, no fsync";
    }

    @Override
    public void put(byte[] key, byte[] value) {
        db.put(key, value, writeOptions);
    }

    @Override
    public byte[] get(byte[] key) {
        return db.get(key);
    }

    @Override
    public void delete(byte[] key) {
        db.delete(key, writeOptions);
    }

    @Override
    public int scan(byte[] from, int count) {
        int n = 0;
        try (DBIterator it = db.iterator()) {
            for (it.seek(from); n < count && it.hasNext(); n++) {
                Map.Entry<byte[], byte[]> e = it.next();
                if (e.getKey() == null || e.getValue() == null) {
                    throw new IllegalStateException("leveldb iterator returned a null entry");
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("leveldb scan failed", e);
        }
        return n;
    }

    @Override
    public void settle() {
        db.flushMemTable();
        db.checkBackgroundException();
        // Compactions run one at a time on a single-threaded executor. Suspending queues a
        // task behind the running compaction, so while suspended the version set is stable
        // and says whether another compaction is due.
        BackgroundWork.awaitIdle(NAME, () -> {
            try {
                db.suspendCompactions();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while suspending leveldb compactions", e);
            }
            try {
                db.checkBackgroundException();
                return versions.needsCompaction();
            } finally {
                db.resumeCompactions();
            }
        });
    }

    @Override
    public Map<String, Object> ownCounters() {
        Map<String, Object> m = new LinkedHashMap<>();
        int[] files = new int[LEVELS];
        long[] bytes = new long[LEVELS];
        Version current = versions.getCurrent();
        for (int level = 0; level < LEVELS; level++) {
            for (FileMetaData f : current.getFiles(level)) {
                files[level]++;
                bytes[level] += f.getFileSize();
            }
        }
        m.put("liveTableBytes", java.util.Arrays.stream(bytes).sum());
        m.put("filesPerLevel", files);
        m.put("tableBytesPerLevel", bytes);
        m.put("compactionPending", versions.needsCompaction());
        return m;
    }

    @Override
    public void close() {
        db.close();
    }
}
