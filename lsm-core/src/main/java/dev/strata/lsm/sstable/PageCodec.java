package dev.strata.lsm.sstable;

import dev.strata.lsm.Compression;

import com.github.luben.zstd.Zstd;
import com.github.luben.zstd.ZstdCompressCtx;
import com.github.luben.zstd.ZstdDecompressCtx;
import dev.strata.lsm.ConfigException;
import net.jpountz.lz4.LZ4Compressor;
import net.jpountz.lz4.LZ4Factory;
import net.jpountz.lz4.LZ4SafeDecompressor;
import org.xerial.snappy.Snappy;

import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Callable;

/**
 * One page compression codec, through its native library. Codecs are thread safe. Every
 * decompressor is given the exact decompressed length (a page) and must either fill exactly
 * that many bytes or fail: the callers verify the compressed bytes' checksum first, and any
 * failure here is still reported as corruption, never as a crash or a short page.
 */
abstract class PageCodec {
    /** Loaded codecs by compression and level (a codec is loaded and checked once). */
    private static final Map<String, PageCodec> LOADED = new ConcurrentHashMap<>();

    abstract Compression compression();

    /** Bytes {@link #compress} may need for {@code length} input bytes. */
    abstract int maxCompressedLength(int length);

    /** Compresses {@code src[srcOff, srcOff + length)} into {@code dst} from {@code dstOff}; returns the bytes written. */
    abstract int compress(byte[] src, int srcOff, int length, byte[] dst, int dstOff);

    /**
     * Decompresses {@code src[off, off + length)} into {@code dst[0, expected)}.
     *
     * @throws Exception (any kind) if the input is malformed or does not decompress to exactly
     *     {@code expected} bytes
     */
    abstract void decompress(byte[] src, int off, int length, byte[] dst, int expected) throws Exception;

    /**
     * The codec for {@code c} at {@code level} (zstd only) with LZ4's default acceleration: the
     * codec readers decompress with (neither changes how a page decompresses).
     *
     * @throws ConfigException naming the codec if its native part cannot be loaded
     * @throws IllegalArgumentException for {@link Compression#NONE}
     */
    static PageCodec of(Compression c, int level) {
        return of(c, level, Compression.DEFAULT_LZ4_ACCELERATION);
    }

    /**
     * The codec for {@code c} at {@code level} (zstd only) and {@code lz4Acceleration} (lz4
     * only), its native library loaded and checked with a round trip.
     *
     * @throws ConfigException naming the codec if its native part cannot be loaded
     * @throws IllegalArgumentException for {@link Compression#NONE}
     */
    static PageCodec of(Compression c, int level, int lz4Acceleration) {
        int key = switch (c) {
            case ZSTD -> level;
            case LZ4 -> lz4Acceleration;
            default -> 0;
        };
        PageCodec codec = LOADED.get(c.configName() + key);
        if (codec == null) {
            codec = switch (c) {
                case NONE -> throw new IllegalArgumentException("compression none has no codec");
                case LZ4 -> load(c, () -> new Lz4(lz4Acceleration));
                case ZSTD -> load(c, () -> new ZstdCodec(level));
                case SNAPPY -> load(c, SnappyCodec::new);
            };
            LOADED.putIfAbsent(c.configName() + key, codec);
        }
        return codec;
    }

    /**
     * Creates a codec with {@code factory} and round-trips a small page through it; any
     * failure (a missing or broken native library is an {@link UnsatisfiedLinkError} or
     * another {@link Error}) is a {@link ConfigException} naming the codec. Package-private
     * so that tests can feed a failing factory.
     */
    static PageCodec load(Compression c, Callable<PageCodec> factory) {
        try {
            PageCodec codec = factory.call();
            byte[] page = new byte[4096];
            for (int i = 0; i < page.length; i++) {
                page[i] = (byte) (i % 61 < 40 ? 'a' + i % 7 : i * 31);
            }
            byte[] packed = new byte[codec.maxCompressedLength(page.length)];
            int n = codec.compress(page, 0, page.length, packed, 0);
            byte[] back = new byte[page.length];
            codec.decompress(packed, 0, n, back, page.length);
            if (!Arrays.equals(page, back)) {
                throw new IllegalStateException("a round trip through the codec changed the data");
            }
            return codec;
        } catch (Exception | Error e) {
            throw new ConfigException("compression codec '" + c.configName() + "' is not available: its native "
                    + "library could not be loaded or does not work on this platform (" + e + "); Strata never "
                    + "falls back to another codec", e);
        }
    }

    /**
     * LZ4 through lz4-java's JNI binding (the native instance; no pure-Java fallback). At
     * acceleration 1 through its thread-safe fast compressor (LZ4's default, as RocksDB's lz4);
     * above 1 through fast-reset compressors, which hold a native state each and may be used by
     * one thread at a time: they are borrowed from a pool and given back after each page, so the
     * codec holds as many states as threads ever compressed with it at once.
     */
    private static final class Lz4 extends PageCodec {
        private final int acceleration;
        private final LZ4Compressor compressor;
        private final LZ4SafeDecompressor decompressor;
        /** Idle fast-reset compressors (acceleration above 1). */
        private final java.util.concurrent.ConcurrentLinkedDeque<LZ4Compressor> idle =
                new java.util.concurrent.ConcurrentLinkedDeque<>();

        Lz4(int acceleration) {
            if (acceleration < 1 || acceleration > Compression.MAX_LZ4_ACCELERATION) {
                throw new IllegalArgumentException("lz4 acceleration must be 1 to " + Compression.MAX_LZ4_ACCELERATION
                        + ", got " + acceleration);
            }
            this.acceleration = acceleration;
            LZ4Factory f = LZ4Factory.nativeInstance();
            compressor = f.fastCompressor();
            decompressor = f.safeDecompressor();
        }

        @Override
        int compress(byte[] src, int srcOff, int length, byte[] dst, int dstOff) {
            if (acceleration == 1) {
                return compressor.compress(src, srcOff, length, dst, dstOff, dst.length - dstOff);
            }
            LZ4Compressor c = idle.pollFirst();
            if (c == null) {
                c = LZ4Factory.nativeInstance().fastResetCompressor(acceleration);
            }
            try {
                return c.compress(src, srcOff, length, dst, dstOff, dst.length - dstOff);
            } finally {
                idle.addFirst(c);
            }
        }

        @Override
        public String toString() {
            return "lz4 acceleration " + acceleration;
        }

        @Override
        Compression compression() {
            return Compression.LZ4;
        }

        @Override
        int maxCompressedLength(int length) {
            return compressor.maxCompressedLength(length);
        }

        @Override
        void decompress(byte[] src, int off, int length, byte[] dst, int expected) {
            int n = decompressor.decompress(src, off, length, dst, 0, expected);
            if (n != expected) {
                throw new IllegalStateException("lz4 page decompressed to " + n + " bytes, expected " + expected);
            }
        }
    }

    /** Zstandard through zstd-jni, with one compression and one decompression context per thread. */
    private static final class ZstdCodec extends PageCodec {
        private final int level;
        private final ThreadLocal<ZstdCompressCtx> compressors;
        private final ThreadLocal<ZstdDecompressCtx> decompressors = ThreadLocal.withInitial(ZstdDecompressCtx::new);

        ZstdCodec(int level) {
            if (level < Compression.MIN_ZSTD_LEVEL || level > Compression.MAX_ZSTD_LEVEL) {
                throw new IllegalArgumentException("zstd level must be " + Compression.MIN_ZSTD_LEVEL + " to "
                        + Compression.MAX_ZSTD_LEVEL + ", got " + level);
            }
            com.github.luben.zstd.util.Native.load();
            this.level = level;
            this.compressors = ThreadLocal.withInitial(() -> new ZstdCompressCtx().setLevel(level));
        }

        @Override
        Compression compression() {
            return Compression.ZSTD;
        }

        @Override
        int maxCompressedLength(int length) {
            return (int) Zstd.compressBound(length);
        }

        @Override
        int compress(byte[] src, int srcOff, int length, byte[] dst, int dstOff) {
            return compressors.get().compressByteArray(dst, dstOff, dst.length - dstOff, src, srcOff, length);
        }

        @Override
        void decompress(byte[] src, int off, int length, byte[] dst, int expected) {
            int n = decompressors.get().decompressByteArray(dst, 0, expected, src, off, length);
            if (n != expected) {
                throw new IllegalStateException("zstd page decompressed to " + n + " bytes, expected " + expected);
            }
        }

        @Override
        public String toString() {
            return "zstd level " + level;
        }
    }

    /** Snappy through snappy-java. */
    private static final class SnappyCodec extends PageCodec {
        SnappyCodec() {
            Snappy.maxCompressedLength(1); // loads the native library (SnappyError when it cannot)
        }

        @Override
        Compression compression() {
            return Compression.SNAPPY;
        }

        @Override
        int maxCompressedLength(int length) {
            return Snappy.maxCompressedLength(length);
        }

        @Override
        int compress(byte[] src, int srcOff, int length, byte[] dst, int dstOff) {
            try {
                return Snappy.compress(src, srcOff, length, dst, dstOff);
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }

        @Override
        void decompress(byte[] src, int off, int length, byte[] dst, int expected) throws java.io.IOException {
            // The declared length bounds what the native code writes: check it before decompressing.
            int declared = Snappy.uncompressedLength(src, off, length);
            if (declared != expected) {
                throw new IllegalStateException("snappy page declares " + declared + " bytes, expected " + expected);
            }
            int n = Snappy.uncompress(src, off, length, dst, 0);
            if (n != expected) {
                throw new IllegalStateException("snappy page decompressed to " + n + " bytes, expected " + expected);
            }
        }
    }
}
