package dev.strata.lsm.memtable;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * Where an {@link ArenaSkipList} keeps its node words and its key and value bytes: chunks on
 * the Java heap ({@link Heap}: {@code long[]} and {@code byte[]}) or in direct memory
 * ({@link Direct}: direct {@link ByteBuffer}s, outside the heap the collector walks and copies).
 * An address is {@code chunk << 32 | offset}, the offset in longs for node chunks and in bytes
 * for data chunks, the same in both forms.
 *
 * <p>There are exactly two final implementations, and a skip list holds one for its life, so
 * each call site sees one or two receiver types and the JIT inlines the accessors (a process
 * that never turns off-heap memory on never even loads {@link Direct}).
 *
 * <p>Concurrency, as the skip list's: one writer allocates chunks and writes words and bytes;
 * readers read concurrently. A chunk table is replaced or its new slot filled, then the table
 * published with a volatile write, before anything in the new chunk is linked; words that link
 * nodes are written with release stores ({@link #setWordRelease}) and read with acquire loads
 * ({@link #wordAcquire}).
 */
abstract sealed class Arena permits Arena.Heap, Arena.Direct {

    /** Whether the chunks are in direct memory. */
    abstract boolean offHeap();

    /** Word {@code index} of the node at {@code node} (a plain load). */
    abstract long word(long node, int index);

    /** Word {@code index} of the node at {@code node}, with an acquire load. */
    abstract long wordAcquire(long node, int index);

    /** Sets word {@code index} of the node at {@code node} (a plain store; writer only). */
    abstract void setWord(long node, int index, long value);

    /**
     * Writes the fixed words of a new node at {@code node} (plain stores, one read of the chunk
     * table; writer only, before the node is linked).
     */
    abstract void setNode(long node, long prefix0, long prefix1, long seqType, long lengths, long data);

    /** Sets word {@code index} of the node at {@code node} with a release store (writer only). */
    abstract void setWordRelease(long node, int index, long value);

    /** Makes node chunk {@code chunk} (the next unused number) of {@code longs} words and publishes it. Writer only. */
    abstract void addNodeChunk(int chunk, int longs);

    /** Words in node chunk {@code chunk}. */
    abstract int nodeChunkLongs(int chunk);

    /** Makes data chunk {@code chunk} (the next unused number) of {@code bytes} bytes and publishes it. Writer only. */
    abstract void addDataChunk(int chunk, int bytes);

    /** Bytes in data chunk {@code chunk}. */
    abstract int dataChunkBytes(int chunk);

    /** Copies {@code src[from, from + length)} to {@code data}. Writer only. */
    abstract void write(long data, byte[] src, int from, int length);

    /** A copy of {@code length} bytes at {@code data}. */
    abstract byte[] read(long data, int length);

    /** Compares {@code length} bytes at {@code data} with {@code key[from, to)} as unsigned bytes, as {@link Arrays#compareUnsigned}. */
    abstract int compare(long data, int length, byte[] key, int from, int to);

    /** Whether {@code length} bytes at {@code data} equal {@code key[from, to)}. */
    abstract boolean equal(long data, int length, byte[] key, int from, int to);

    /**
     * Compares the internal key of the node at {@code node} with {@code (key, seqno)}, whose
     * first sixteen bytes are {@code prefix0, prefix1} (big-endian, zero padded): negative when
     * the node sorts first (user key ascending, then sequence number descending). One read of
     * the chunk table, as a search step takes one per node it passes.
     */
    abstract int compareNode(long node, long prefix0, long prefix1, byte[] key, long seqno);

    /** Whether the user key of the node at {@code node} equals {@code key}. */
    abstract boolean keyEquals(long node, byte[] key);

    static int chunkOf(long address) {
        return (int) (address >>> 32);
    }

    static int offsetOf(long address) {
        return (int) address;
    }

    /** An arena of the given kind. */
    static Arena create(boolean offHeap) {
        return offHeap ? new Direct() : new Heap();
    }

    /** Chunks on the Java heap: {@code long[]} node chunks, {@code byte[]} data chunks. */
    static final class Heap extends Arena {
        private static final VarHandle LONGS = MethodHandles.arrayElementVarHandle(long[].class);

        private volatile long[][] nodeChunks = new long[4][];
        private volatile byte[][] dataChunks = new byte[4][];

        @Override
        boolean offHeap() {
            return false;
        }

        @Override
        long word(long node, int index) {
            return nodeChunks[chunkOf(node)][offsetOf(node) + index];
        }

        @Override
        long wordAcquire(long node, int index) {
            return (long) LONGS.getAcquire(nodeChunks[chunkOf(node)], offsetOf(node) + index);
        }

        @Override
        void setWord(long node, int index, long value) {
            nodeChunks[chunkOf(node)][offsetOf(node) + index] = value;
        }

        @Override
        void setWordRelease(long node, int index, long value) {
            LONGS.setRelease(nodeChunks[chunkOf(node)], offsetOf(node) + index, value);
        }

        @Override
        void setNode(long node, long prefix0, long prefix1, long seqType, long lengths, long data) {
            long[] n = nodeChunks[chunkOf(node)];
            int o = offsetOf(node);
            n[o + ArenaSkipList.PREFIX0] = prefix0;
            n[o + ArenaSkipList.PREFIX1] = prefix1;
            n[o + ArenaSkipList.SEQ_TYPE] = seqType;
            n[o + ArenaSkipList.LENGTHS] = lengths;
            n[o + ArenaSkipList.DATA] = data;
        }

        @Override
        void addNodeChunk(int chunk, int longs) {
            long[][] chunks = nodeChunks;
            if (chunk == chunks.length) {
                chunks = Arrays.copyOf(chunks, chunks.length * 2);
            }
            chunks[chunk] = new long[longs];
            nodeChunks = chunks;
        }

        @Override
        int nodeChunkLongs(int chunk) {
            return nodeChunks[chunk].length;
        }

        @Override
        void addDataChunk(int chunk, int bytes) {
            byte[][] chunks = dataChunks;
            if (chunk == chunks.length) {
                chunks = Arrays.copyOf(chunks, chunks.length * 2);
            }
            chunks[chunk] = new byte[bytes];
            dataChunks = chunks;
        }

        @Override
        int dataChunkBytes(int chunk) {
            return dataChunks[chunk].length;
        }

        @Override
        void write(long data, byte[] src, int from, int length) {
            System.arraycopy(src, from, dataChunks[chunkOf(data)], offsetOf(data), length);
        }

        @Override
        byte[] read(long data, int length) {
            int at = offsetOf(data);
            return Arrays.copyOfRange(dataChunks[chunkOf(data)], at, at + length);
        }

        @Override
        int compare(long data, int length, byte[] key, int from, int to) {
            int at = offsetOf(data);
            return Arrays.compareUnsigned(dataChunks[chunkOf(data)], at, at + length, key, from, to);
        }

        @Override
        boolean equal(long data, int length, byte[] key, int from, int to) {
            int at = offsetOf(data);
            return Arrays.equals(dataChunks[chunkOf(data)], at, at + length, key, from, to);
        }

        @Override
        int compareNode(long node, long prefix0, long prefix1, byte[] key, long seqno) {
            long[] n = nodeChunks[chunkOf(node)];
            int o = offsetOf(node);
            int c = Long.compareUnsigned(n[o + ArenaSkipList.PREFIX0], prefix0);
            if (c != 0) {
                return c;
            }
            c = Long.compareUnsigned(n[o + ArenaSkipList.PREFIX1], prefix1);
            if (c != 0) {
                return c;
            }
            int keyLength = (int) (n[o + ArenaSkipList.LENGTHS] >>> 32);
            if (keyLength > 16 && key.length > 16) {
                long data = n[o + ArenaSkipList.DATA];
                int at = offsetOf(data);
                c = Arrays.compareUnsigned(dataChunks[chunkOf(data)], at + 16, at + keyLength, key, 16, key.length);
            } else {
                // Equal zero-padded first sixteen bytes and one key no longer: the shorter is a prefix of the other.
                c = Integer.compare(keyLength, key.length);
            }
            if (c != 0) {
                return c;
            }
            // Newer (larger) sequence numbers sort first.
            return Long.compare(seqno, n[o + ArenaSkipList.SEQ_TYPE] >>> 8);
        }

        @Override
        boolean keyEquals(long node, byte[] key) {
            long[] n = nodeChunks[chunkOf(node)];
            int o = offsetOf(node);
            int keyLength = (int) (n[o + ArenaSkipList.LENGTHS] >>> 32);
            if (keyLength != key.length || n[o + ArenaSkipList.PREFIX0] != ArenaSkipList.prefix(key, 0)
                    || n[o + ArenaSkipList.PREFIX1] != ArenaSkipList.prefix(key, 8)) {
                return false;
            }
            if (keyLength <= 16) {
                return true;
            }
            long data = n[o + ArenaSkipList.DATA];
            int at = offsetOf(data);
            return Arrays.equals(dataChunks[chunkOf(data)], at + 16, at + keyLength, key, 16, keyLength);
        }
    }

    /**
     * Chunks in direct memory: {@link ByteBuffer#allocateDirect} buffers, node chunks in the
     * platform's byte order (words read and written whole, ordered ones through a
     * {@link MethodHandles#byteBufferViewVarHandle} view), data chunks big-endian (compared
     * eight bytes at a time as unsigned numbers).
     *
     * <p>Lifetime: a direct buffer's memory is returned to the operating system by its cleaner
     * once the buffer is unreachable, that is once the memtable holding it is dropped (flushed)
     * and no reader holds it any more, and a collection has found it so. Until then it counts
     * against {@code -XX:MaxDirectMemorySize} (by default the maximum heap size).
     */
    static final class Direct extends Arena {
        private static final VarHandle WORDS = MethodHandles.byteBufferViewVarHandle(long[].class,
                ByteOrder.nativeOrder());
        private static final VarHandle BIG_ENDIAN_LONGS = MethodHandles.byteArrayViewVarHandle(long[].class,
                ByteOrder.BIG_ENDIAN);

        private volatile ByteBuffer[] nodeChunks = new ByteBuffer[4];
        private volatile ByteBuffer[] dataChunks = new ByteBuffer[4];

        @Override
        boolean offHeap() {
            return true;
        }

        @Override
        long word(long node, int index) {
            return nodeChunks[chunkOf(node)].getLong((offsetOf(node) + index) << 3);
        }

        @Override
        long wordAcquire(long node, int index) {
            return (long) WORDS.getAcquire(nodeChunks[chunkOf(node)], (offsetOf(node) + index) << 3);
        }

        @Override
        void setWord(long node, int index, long value) {
            nodeChunks[chunkOf(node)].putLong((offsetOf(node) + index) << 3, value);
        }

        @Override
        void setWordRelease(long node, int index, long value) {
            WORDS.setRelease(nodeChunks[chunkOf(node)], (offsetOf(node) + index) << 3, value);
        }

        @Override
        void setNode(long node, long prefix0, long prefix1, long seqType, long lengths, long data) {
            ByteBuffer n = nodeChunks[chunkOf(node)];
            int o = offsetOf(node) << 3;
            n.putLong(o + (ArenaSkipList.PREFIX0 << 3), prefix0);
            n.putLong(o + (ArenaSkipList.PREFIX1 << 3), prefix1);
            n.putLong(o + (ArenaSkipList.SEQ_TYPE << 3), seqType);
            n.putLong(o + (ArenaSkipList.LENGTHS << 3), lengths);
            n.putLong(o + (ArenaSkipList.DATA << 3), data);
        }

        @Override
        void addNodeChunk(int chunk, int longs) {
            ByteBuffer[] chunks = nodeChunks;
            if (chunk == chunks.length) {
                chunks = Arrays.copyOf(chunks, chunks.length * 2);
            }
            chunks[chunk] = ByteBuffer.allocateDirect(longs * Long.BYTES).order(ByteOrder.nativeOrder());
            nodeChunks = chunks;
        }

        @Override
        int nodeChunkLongs(int chunk) {
            return nodeChunks[chunk].capacity() / Long.BYTES;
        }

        @Override
        void addDataChunk(int chunk, int bytes) {
            ByteBuffer[] chunks = dataChunks;
            if (chunk == chunks.length) {
                chunks = Arrays.copyOf(chunks, chunks.length * 2);
            }
            chunks[chunk] = ByteBuffer.allocateDirect(bytes);
            dataChunks = chunks;
        }

        @Override
        int dataChunkBytes(int chunk) {
            return dataChunks[chunk].capacity();
        }

        @Override
        void write(long data, byte[] src, int from, int length) {
            dataChunks[chunkOf(data)].put(offsetOf(data), src, from, length);
        }

        @Override
        byte[] read(long data, int length) {
            byte[] copy = new byte[length];
            dataChunks[chunkOf(data)].get(offsetOf(data), copy, 0, length);
            return copy;
        }

        @Override
        int compare(long data, int length, byte[] key, int from, int to) {
            ByteBuffer chunk = dataChunks[chunkOf(data)];
            int at = offsetOf(data);
            int common = Math.min(length, to - from);
            int i = 0;
            for (; i + Long.BYTES <= common; i += Long.BYTES) {
                long a = chunk.getLong(at + i);
                long b = (long) BIG_ENDIAN_LONGS.get(key, from + i);
                if (a != b) {
                    return Long.compareUnsigned(a, b);
                }
            }
            for (; i < common; i++) {
                int c = Integer.compare(chunk.get(at + i) & 0xff, key[from + i] & 0xff);
                if (c != 0) {
                    return c;
                }
            }
            return Integer.compare(length, to - from);
        }

        @Override
        boolean equal(long data, int length, byte[] key, int from, int to) {
            return length == to - from && compare(data, length, key, from, to) == 0;
        }

        @Override
        int compareNode(long node, long prefix0, long prefix1, byte[] key, long seqno) {
            ByteBuffer n = nodeChunks[chunkOf(node)];
            int o = offsetOf(node) << 3;
            int c = Long.compareUnsigned(n.getLong(o + (ArenaSkipList.PREFIX0 << 3)), prefix0);
            if (c != 0) {
                return c;
            }
            c = Long.compareUnsigned(n.getLong(o + (ArenaSkipList.PREFIX1 << 3)), prefix1);
            if (c != 0) {
                return c;
            }
            int keyLength = (int) (n.getLong(o + (ArenaSkipList.LENGTHS << 3)) >>> 32);
            if (keyLength > 16 && key.length > 16) {
                c = compare(n.getLong(o + (ArenaSkipList.DATA << 3)) + 16, keyLength - 16, key, 16, key.length);
            } else {
                c = Integer.compare(keyLength, key.length);
            }
            if (c != 0) {
                return c;
            }
            return Long.compare(seqno, n.getLong(o + (ArenaSkipList.SEQ_TYPE << 3)) >>> 8);
        }

        @Override
        boolean keyEquals(long node, byte[] key) {
            ByteBuffer n = nodeChunks[chunkOf(node)];
            int o = offsetOf(node) << 3;
            int keyLength = (int) (n.getLong(o + (ArenaSkipList.LENGTHS << 3)) >>> 32);
            if (keyLength != key.length || n.getLong(o + (ArenaSkipList.PREFIX0 << 3)) != ArenaSkipList.prefix(key, 0)
                    || n.getLong(o + (ArenaSkipList.PREFIX1 << 3)) != ArenaSkipList.prefix(key, 8)) {
                return false;
            }
            return keyLength <= 16
                    || equal(n.getLong(o + (ArenaSkipList.DATA << 3)) + 16, keyLength - 16, key, 16, keyLength);
        }
    }
}
