package dev.strata.lsm.memtable;

import dev.strata.lsm.sstable.EntryType;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * A skip list of internal entries (user key ascending, then sequence number descending)
 * laid out in two arenas instead of one object per entry: nodes live in chunks of words,
 * key and value bytes in chunks of bytes, either on the Java heap ({@code long[]} and
 * {@code byte[]}) or in direct memory (direct buffers, {@code <memory offHeap="true"/>}); see
 * {@link Arena}. One thread inserts at a time; any number of threads read concurrently.
 *
 * <p>Why: a node keeps the first sixteen key bytes inline beside its forward pointers, so a
 * search step costs one cache miss instead of the three (index, node, key object) of a
 * {@link java.util.concurrent.ConcurrentSkipListMap}, and a full memtable is a few hundred
 * large arrays that the garbage collector never copies, not millions of small objects.
 *
 * <p>Node layout, in longs from the node's address: key bytes 0–7 and 8–15 as big-endian
 * unsigned numbers (zero padded), {@code seqno << 8 | type code}, {@code keyLength << 32 |
 * valueLength} (value length -1 for a tombstone), the address of the key bytes (the value
 * bytes follow them), the node before it on level 0 (a back link: a cursor steps back in one
 * load, and the insert of a newer version below uses it), then one forward pointer per level.
 *
 * <p>A newer version of a key already here, whose random height is 1 (three inserts in four),
 * is linked in front of the key's newest node found through the point-read index and that
 * node's level-0 predecessor, without a search: an overwrite then costs a few memory accesses
 * instead of one cache miss per level. Heights stay independent random draws, so the list's
 * shape, and every search's cost, is that of a skip list filled by searches. An address is {@code chunk << 32 |
 * offset}; 0 is the head node and means "none" in a forward pointer.
 *
 * <p>Inserts in ascending order (a sorted write batch, a restore's sorted chunk) search from a
 * finger: the predecessors the last search found on each level stay lower bounds for any
 * entry sorting after that search's entry, since nodes are only ever added, so such an insert
 * starts each level there instead of at the head (and once it has stepped forward on a level,
 * it is past the finger's predecessors on every level below). An insert in ascending order
 * then costs the levels its distance from the last one spans, not the list's height: a sorted
 * run into an empty memtable appends, and one as large as the memtable's contents walks them
 * nearly in order. An entry that does not sort after the finger searches from the head.
 *
 * <p>Concurrency: the inserting thread fills a node completely, then links it level by level
 * from the bottom with release stores; readers follow pointers with acquire loads, so a node
 * they reach is fully written. Chunk tables are replaced (copy, then volatile write) before
 * any node or byte in a new chunk is linked. Insertions are not atomic across levels, which
 * only means a reader may find a new node on level 0 before the upper levels know it.
 * Callers serialize insertions (the memtable is filled by one write-group leader at a time).
 */
final class ArenaSkipList {
    static final int MAX_HEIGHT = 16;
    private static final int BRANCHING = 4;

    static final int PREFIX0 = 0;
    static final int PREFIX1 = 1;
    static final int SEQ_TYPE = 2;
    static final int LENGTHS = 3;
    static final int DATA = 4;
    /** The node before this one on level 0 (0: the head); set with release stores, read with acquire loads. */
    static final int PREV = 5;
    static final int NEXT = 6;
    /** Bytes a node takes on top of its forward pointers. */
    static final int NODE_FIXED_BYTES = NEXT * Long.BYTES;

    private static final int FIRST_NODE_CHUNK = 1 << 10;
    private static final int MAX_NODE_CHUNK = 1 << 16;
    private static final int FIRST_DATA_CHUNK = 1 << 12;
    private static final int MAX_DATA_CHUNK = 1 << 20;

    private static final VarHandle LONGS = MethodHandles.arrayElementVarHandle(long[].class);

    /** The node and data chunks, on the heap or in direct memory. */
    private final Arena arena;
    private volatile int height = 1;
    private volatile int size;
    /** Written by the inserting thread only; volatile so that readers see the current figure. */
    private volatile long usedBytes;
    /** Distinct user keys whose newest entry is a put, and those whose newest entry is a delete (writer only). */
    private volatile int liveKeys;
    private volatile int deletedKeys;

    // Writer state, confined to the inserting thread (hand-offs between leaders are ordered by the store's mutex).
    /** Node chunks taken so far (the next chunk's number). */
    private int nodeChunksUsed;
    /**
     * Where the next node goes, for nodes of height 1 ({@code [0]}) and taller ones ({@code [1]}):
     * its chunk (-1 before the first) and the longs of it used. Taller nodes are kept in chunks
     * of their own, so that the levels above 0, which a search walks first, lie densely in few
     * pages (about a quarter of the nodes): a search then misses the cache and the TLB on
     * level 0 and 1 mostly, not on every level.
     */
    private final int[] nodeChunk = {-1, -1};
    private final int[] nodeUsed = new int[2];
    private int dataChunk = -1;
    private int dataUsed;

    /**
     * The point-read index: open addressing (linear probing, at most half full) from a user
     * key's hash to its newest node, one {@code long} per slot: the hash's upper 32 bits (which
     * also pick the home slot) over the node's address packed into 32 bits; 0 is an empty slot.
     * The writer sets a slot with one release store, so a reader sees it whole; it grows by
     * filling a new table and publishing it (readers of the old one miss only keys that are
     * newer than their sequence number anyway: a key is indexed before its write becomes
     * visible). Null when nodes no longer fit the packed form: the skip list answers alone.
     * Its growth counts in {@link #usedBytes}.
     */
    private volatile long[] pointIndex = new long[1 << 10];
    /** Keys in {@link #pointIndex} (writer only). */
    private int indexedKeys;

    private long random = 0x9E3779B97F4A7C15L;
    /** The predecessors, on each level below the list's height then, of the last searched entry. */
    private final long[] preds = new long[MAX_HEIGHT];
    /**
     * The node of the last entry inserted by a search, whose predecessors {@link #preds} holds
     * (0 before the first): the finger. Compared in the arena, never through the caller's key
     * array, which the caller may reuse once its write has returned.
     */
    private long fingerNode;

    /** A skip list with its chunks on the Java heap. */
    ArenaSkipList() {
        this(false);
    }

    /**
     * A skip list with its node and data chunks in direct memory ({@code offHeap}) or on the
     * Java heap; the point-read index stays on the heap either way. Direct chunks are freed
     * when the skip list becomes unreachable ({@link Arena.Direct}).
     */
    ArenaSkipList(boolean offHeap) {
        this.arena = Arena.create(offHeap);
        long head = allocateNode(MAX_HEIGHT);
        assert head == 0;
    }

    /** Entries inserted so far. */
    int size() {
        return size;
    }

    /** Distinct user keys whose newest entry is a put. */
    int liveKeys() {
        return liveKeys;
    }

    /** Distinct user keys whose newest entry is a delete. */
    int deletedKeys() {
        return deletedKeys;
    }

    /** Whether the chunks are in direct memory. */
    boolean offHeap() {
        return arena.offHeap();
    }

    /** Arena bytes the entries occupy: nodes, keys and values. */
    long usedBytes() {
        return usedBytes;
    }

    /**
     * Inserts an entry; {@code value} is ignored for {@link EntryType#DELETE}. Key and value
     * are copied. One thread at a time.
     */
    void insert(byte[] key, long seqno, EntryType type, byte[] value) {
        boolean tombstone = type == EntryType.DELETE;
        int valueLength = tombstone ? 0 : value.length;
        int h = randomHeight();
        long prefix0 = prefix(key, 0);
        long prefix1 = prefix(key, 8);
        long newest = h == 1 ? indexed(pointIndex, key, prefix0, prefix1) : 0;
        long node = allocateNode(h);
        long data = allocateData(key.length + valueLength);
        Arena a = arena;
        a.write(data, key, 0, key.length);
        if (!tombstone) {
            a.write(data + key.length, value, 0, valueLength);
        }
        a.setNode(node, prefix0, prefix1, seqno << 8 | type.code(),
                (long) key.length << 32 | ((tombstone ? -1 : valueLength) & 0xffffffffL), data);

        if (newest != 0 && seqno(newest) < seqno) {
            // A newer version of a key here: in front of its newest node, after that node's predecessor.
            long pred = prev(newest);
            a.setWord(node, PREV, pred);
            a.setWord(node, NEXT, newest);
            setPrev(newest, node);
            a.setWordRelease(pred, NEXT, node);
            usedBytes += NODE_FIXED_BYTES + Long.BYTES + key.length + valueLength;
            size = size + 1;
            countKey(pred, newest, key, tombstone);
            index(key, prefix0, prefix1, node, seqno);
            return;
        }
        int listHeight = height;
        int top = Math.max(listHeight, h);
        // The finger (see the class comment): an entry sorting after the last searched one starts
        // each level at that search's predecessor there, not at the head.
        boolean finger = fingerNode != 0 && compare(fingerNode, prefix0, prefix1, key, seqno) < 0;
        long x = 0;
        boolean moved = false;
        for (int level = top - 1; level >= 0; level--) {
            if (finger && !moved && level < listHeight) {
                x = preds[level];
            }
            long next = next(x, level);
            while (next != 0 && compare(next, prefix0, prefix1, key, seqno) < 0) {
                x = next;
                next = next(x, level);
                moved = true;
            }
            preds[level] = x;
        }
        fingerNode = node;
        for (int level = 0; level < h; level++) {
            a.setWord(node, NEXT + level, next(preds[level], level));
            a.setWordRelease(preds[level], NEXT + level, node);
        }
        a.setWord(node, PREV, preds[0]);
        long succ = a.word(node, NEXT);
        if (succ != 0) {
            setPrev(succ, node);
        }
        if (h > height) {
            height = h;
        }
        usedBytes += NODE_FIXED_BYTES + (long) h * Long.BYTES + key.length + valueLength;
        size = size + 1;
        countKey(preds[0], succ, key, tombstone);
        index(key, prefix0, prefix1, node, seqno);
    }

    /**
     * Records {@code node} as the newest entry of {@code key} in the point-read index, unless
     * the index already holds a newer one (an insert with a smaller sequence number than an
     * earlier one of the same key). Writer only.
     */
    private void index(byte[] key, long prefix0, long prefix1, long node, long seqno) {
        long[] table = pointIndex;
        if (table == null) {
            return;
        }
        if (chunkOf(node) >= 1 << 16 || offsetOf(node) >= 1 << 16) {
            // Not packable into a slot (a memtable of over 65,536 node chunks): no index from here on.
            pointIndex = null;
            return;
        }
        long hash = hash(key, prefix0, prefix1);
        int mask = table.length - 1;
        long tag = hash & 0xffffffff00000000L;
        for (int i = (int) (hash >>> 32) & mask; ; i = (i + 1) & mask) {
            long slot = table[i];
            if (slot == 0) {
                if ((indexedKeys + 1) * 2L > table.length) {
                    grow();
                    index(key, prefix0, prefix1, node, seqno);
                    return;
                }
                LONGS.setRelease(table, i, tag | pack(node));
                indexedKeys++;
                return;
            }
            if ((slot & 0xffffffff00000000L) == tag) {
                long other = unpack(slot);
                if (keyEquals(other, key)) {
                    if (seqno > seqno(other)) {
                        LONGS.setRelease(table, i, tag | pack(node));
                    }
                    return;
                }
            }
        }
    }

    /**
     * The newest node of {@code key} (first sixteen bytes {@code prefix0, prefix1}) in the
     * point-read index {@code table} (null: none), or 0 when the key has none there. Any thread.
     */
    private long indexed(long[] table, byte[] key, long prefix0, long prefix1) {
        if (table == null) {
            return 0;
        }
        long hash = hash(key, prefix0, prefix1);
        int mask = table.length - 1;
        long tag = hash & 0xffffffff00000000L;
        for (int i = (int) (hash >>> 32) & mask; ; i = (i + 1) & mask) {
            long slot = (long) LONGS.getAcquire(table, i);
            if (slot == 0) {
                return 0;
            }
            if ((slot & 0xffffffff00000000L) == tag && keyEquals(unpack(slot), key)) {
                return unpack(slot);
            }
        }
    }

    private long prev(long node) {
        return arena.word(node, PREV);
    }

    /**
     * Sets {@code node}'s back link; a release store, so a reader that follows it finds
     * {@code prev} fully written. Writer only.
     */
    private void setPrev(long node, long prev) {
        arena.setWordRelease(node, PREV, prev);
    }

    /**
     * The node before {@code node} on level 0, or 0 when {@code node} is the first. A reader
     * may get the predecessor from before a concurrent insert in front of {@code node}; such
     * an entry is newer than any snapshot the reader can hold, so skipping it changes nothing
     * the reader may see.
     */
    long previous(long node) {
        return arena.wordAcquire(node, PREV);
    }

    /** Doubles the point-read index: a new table, filled and then published (readers keep the old one meanwhile). Writer only. */
    private void grow() {
        long[] old = pointIndex;
        long[] table = new long[old.length * 2];
        int mask = table.length - 1;
        for (long slot : old) {
            if (slot == 0) {
                continue;
            }
            int i = (int) rehash(slot) & mask;
            while (table[i] != 0) {
                i = (i + 1) & mask;
            }
            table[i] = slot;
        }
        usedBytes += (long) (table.length - old.length) * Long.BYTES;
        pointIndex = table;
    }

    /**
     * The node of the newest entry of {@code key} with a sequence number at most {@code seqno},
     * or 0 when there is none: through the point-read index (a hash of the user key to its newest
     * node, then forward on level 0 past entries newer than {@code seqno}), which costs a few
     * memory accesses where a search of the skip list costs one per level and step. Falls back to
     * the search when the index cannot answer.
     */
    long newest(byte[] key, long seqno) {
        long[] table = pointIndex;
        if (table == null) {
            return seekEqual(key, seqno);
        }
        long node = indexed(table, key, prefix(key, 0), prefix(key, 8));
        // Versions of one key sit newest first on level 0.
        for (int steps = 0; node != 0 && steps < 8; steps++) {
            if (seqno(node) <= seqno) {
                return node;
            }
            node = next(node, 0);
            if (node != 0 && !keyEquals(node, key)) {
                return 0;
            }
        }
        return node == 0 ? 0 : seekEqual(key, seqno);
    }

    private long seekEqual(byte[] key, long seqno) {
        long node = seek(key, seqno);
        return node != 0 && keyEquals(node, key) ? node : 0;
    }

    /** A 64-bit hash of a user key whose first sixteen bytes are {@code prefix0, prefix1}. */
    private static long hash(byte[] key, long prefix0, long prefix1) {
        long h = prefix0 * 0x9E3779B97F4A7C15L;
        h = Long.rotateLeft(h, 31) ^ prefix1;
        h *= 0xC2B2AE3D27D4EB4FL;
        for (int i = 16; i < key.length; i++) {
            h = (h ^ (key[i] & 0xff)) * 0x100000001B3L;
        }
        h ^= key.length;
        h ^= h >>> 29;
        h *= 0xBF58476D1CE4E5B9L;
        return h ^ (h >>> 32);
    }

    /** The hash bits a slot keeps (its tag, the hash's upper half), which also give its position. */
    private static long rehash(long slot) {
        return slot >>> 32;
    }

    private static long pack(long node) {
        return (long) chunkOf(node) << 16 | offsetOf(node);
    }

    private static long unpack(long slot) {
        return (slot >>> 16 & 0xffff) << 32 | (slot & 0xffff);
    }

    /**
     * Keeps {@link #liveKeys} and {@link #deletedKeys}: the new entry is its key's newest unless
     * its predecessor holds the same key (a newer sequence number), and replaces the state of
     * the key's previous newest entry, its successor, if that holds the same key.
     */
    private void countKey(long pred, long succ, byte[] key, boolean tombstone) {
        if (pred != 0 && keyEquals(pred, key)) {
            return;
        }
        if (succ != 0 && keyEquals(succ, key)) {
            if (type(succ) == EntryType.DELETE) {
                deletedKeys = deletedKeys - 1;
            } else {
                liveKeys = liveKeys - 1;
            }
        }
        if (tombstone) {
            deletedKeys = deletedKeys + 1;
        } else {
            liveKeys = liveKeys + 1;
        }
    }

    /** The first node at or after {@code (key, seqno)} in internal-key order, or 0 if none. */
    long seek(byte[] key, long seqno) {
        long prefix0 = prefix(key, 0);
        long prefix1 = prefix(key, 8);
        long x = 0;
        long next = 0;
        for (int level = height - 1; level >= 0; level--) {
            next = next(x, level);
            while (next != 0 && compare(next, prefix0, prefix1, key, seqno) < 0) {
                x = next;
                next = next(x, level);
            }
        }
        return next;
    }

    /** The last node at or before {@code (key, seqno)} in internal-key order, or 0 if none. */
    long atOrBefore(byte[] key, long seqno) {
        long prefix0 = prefix(key, 0);
        long prefix1 = prefix(key, 8);
        long x = 0;
        for (int level = height - 1; level >= 0; level--) {
            long next = next(x, level);
            while (next != 0) {
                if (compare(next, prefix0, prefix1, key, seqno) > 0) {
                    break;
                }
                x = next;
                next = next(x, level);
            }
        }
        // x is the head (address 0, "none") when every node sorts after the target.
        return x;
    }

    /** The last node, or 0 when empty. */
    long last() {
        long x = 0;
        for (int level = height - 1; level >= 0; level--) {
            long next = next(x, level);
            while (next != 0) {
                x = next;
                next = next(x, level);
            }
        }
        return x;
    }

    /** The first node, or 0 when empty. */
    long first() {
        return next(0, 0);
    }

    /** The node after {@code node}, or 0 at the end. */
    long next(long node) {
        return next(node, 0);
    }

    long seqno(long node) {
        return arena.word(node, SEQ_TYPE) >>> 8;
    }

    EntryType type(long node) {
        return EntryType.fromCode((int) (arena.word(node, SEQ_TYPE) & 0xff));
    }

    /** A copy of the node's user key. */
    byte[] key(long node) {
        int keyLength = (int) (arena.word(node, LENGTHS) >>> 32);
        return arena.read(arena.word(node, DATA), keyLength);
    }

    /** A copy of the node's value, or null for a tombstone. */
    byte[] value(long node) {
        long lengths = arena.word(node, LENGTHS);
        int valueLength = (int) lengths;
        if (valueLength < 0) {
            return null;
        }
        int keyLength = (int) (lengths >>> 32);
        return arena.read(arena.word(node, DATA) + keyLength, valueLength);
    }

    /** Whether the node's user key equals {@code key}. */
    boolean keyEquals(long node, byte[] key) {
        return arena.keyEquals(node, key);
    }

    /**
     * Compares the node's internal key with {@code (key, seqno)}, whose first sixteen bytes
     * are {@code prefix0, prefix1}: negative when the node sorts first.
     */
    private int compare(long node, long prefix0, long prefix1, byte[] key, long seqno) {
        return arena.compareNode(node, prefix0, prefix1, key, seqno);
    }

    private long next(long node, int level) {
        return arena.wordAcquire(node, NEXT + level);
    }

    /** Bytes {@code from, from + 8} of {@code key} as a big-endian unsigned number, zero padded. */
    static long prefix(byte[] key, int from) {
        long p = 0;
        int end = Math.min(from + 8, key.length);
        for (int i = from; i < end; i++) {
            p |= (key[i] & 0xffL) << (56 - 8 * (i - from));
        }
        return p;
    }

    private int randomHeight() {
        int h = 1;
        while (h < MAX_HEIGHT && (nextRandom() & (BRANCHING - 1)) == 0) {
            h++;
        }
        return h;
    }

    private int nextRandom() {
        // xorshift64*
        random ^= random >>> 12;
        random ^= random << 25;
        random ^= random >>> 27;
        return (int) ((random * 0x2545F4914F6CDD1DL) >>> 32);
    }

    private long allocateNode(int h) {
        int longs = NEXT + h;
        int kind = h == 1 ? 0 : 1;
        int chunk = nodeChunk[kind];
        if (chunk < 0 || nodeUsed[kind] + longs > arena.nodeChunkLongs(chunk)) {
            int capacity = chunk < 0 ? FIRST_NODE_CHUNK : Math.min(MAX_NODE_CHUNK, arena.nodeChunkLongs(chunk) * 2);
            chunk = nodeChunksUsed++;
            arena.addNodeChunk(chunk, capacity);
            nodeChunk[kind] = chunk;
            nodeUsed[kind] = 0;
        }
        long address = (long) chunk << 32 | nodeUsed[kind];
        nodeUsed[kind] += longs;
        return address;
    }

    private long allocateData(int length) {
        if (dataChunk < 0 || dataUsed + length > arena.dataChunkBytes(dataChunk)) {
            int capacity = dataChunk < 0 ? FIRST_DATA_CHUNK : Math.min(MAX_DATA_CHUNK, arena.dataChunkBytes(dataChunk) * 2);
            dataChunk++;
            arena.addDataChunk(dataChunk, Math.max(capacity, length));
            dataUsed = 0;
        }
        long address = (long) dataChunk << 32 | dataUsed;
        dataUsed += length;
        return address;
    }

    private static int chunkOf(long address) {
        return (int) (address >>> 32);
    }

    private static int offsetOf(long address) {
        return (int) address;
    }
}
