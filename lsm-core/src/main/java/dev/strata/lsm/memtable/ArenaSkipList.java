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
 * <p>Node layout, in longs from the node's address: the node before it on level 0 (a back
 * link: a cursor steps back in one load, and the insert of a newer version below uses it), the
 * address of the key bytes (the value bytes follow them), {@code keyLength << 32 |
 * valueLength} (value length -1 for a tombstone), {@code seqno << 8 | type code}, key bytes
 * 8–15 and 0–7 as big-endian unsigned numbers (zero padded), then one forward pointer per
 * level. The words a search step reads, the key prefix and the level-0 forward pointer, are
 * thus adjacent (one cache line for seven nodes in eight), not six words apart.
 *
 * <p>A batch ({@link #insertBatch}) is sorted, then searched for in groups of eight entries
 * side by side, one step of each search in turn: the searches' cache misses, which dominate an
 * insert into a large memtable, then overlap instead of following one another. The group's
 * entries are linked in order, each after the predecessors found for it or after the group's
 * entries linked before it.
 *
 * <p>A newer version of a key already here, whose random height is 1 (three inserts in four),
 * is linked in front of the key's newest node found through the point-read index and that
 * node's level-0 predecessor, without a search: an overwrite then costs a few memory accesses
 * instead of one cache miss per level. Heights stay independent random draws, so the list's
 * shape, and every search's cost, is that of a skip list filled by searches. An address is {@code chunk << 32 |
 * offset}; 0 is the head node and means "none" in a forward pointer.
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

    /** The node before this one on level 0 (0: the head); set with release stores, read with acquire loads. */
    static final int PREV = 0;
    static final int DATA = 1;
    static final int LENGTHS = 2;
    static final int SEQ_TYPE = 3;
    static final int PREFIX1 = 4;
    static final int PREFIX0 = 5;
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
    /*
     * The counters readers ask for: written by the inserting thread only, with release stores
     * ({@link #publishCounters}, once per insert or batch, no full fence each), read with
     * acquire loads; the writer's running figures are the plain fields after them.
     */
    private int size;
    private long usedBytes;
    /** Distinct user keys whose newest entry is a put, and those whose newest entry is a delete. */
    private int liveKeys;
    private int deletedKeys;
    private int writerSize;
    private long writerUsedBytes;
    private int writerLiveKeys;
    private int writerDeletedKeys;

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
    /** The predecessor on every level of the entry being linked (writer only). */
    private final long[] preds = new long[MAX_HEIGHT];

    /** Entries of a sorted batch searched for side by side ({@link #searchGroup}). */
    private static final int GROUP = 8;
    // Writer state of a batch's group: each search's node and level, the predecessors found
    // (entry k's on level l at k * MAX_HEIGHT + l), and per level the group's last entry
    // linked there (0: none yet) with the predecessor that had been found for it.
    private final long[] groupX = new long[GROUP];
    private final int[] groupLevel = new int[GROUP];
    /** Each entry's random height, and the newest node of its key when it goes in front of it without a search (0: searched). */
    private final int[] groupHeight = new int[GROUP];
    private final long[] groupNewest = new long[GROUP];
    private final long[] groupPaths = new long[GROUP * MAX_HEIGHT];
    private final long[] lastLinked = new long[MAX_HEIGHT];
    private final long[] lastLinkedFound = new long[MAX_HEIGHT];

    private static final VarHandle SIZE;
    private static final VarHandle USED_BYTES;
    private static final VarHandle LIVE_KEYS;
    private static final VarHandle DELETED_KEYS;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            SIZE = lookup.findVarHandle(ArenaSkipList.class, "size", int.class);
            USED_BYTES = lookup.findVarHandle(ArenaSkipList.class, "usedBytes", long.class);
            LIVE_KEYS = lookup.findVarHandle(ArenaSkipList.class, "liveKeys", int.class);
            DELETED_KEYS = lookup.findVarHandle(ArenaSkipList.class, "deletedKeys", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

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
        return (int) SIZE.getAcquire(this);
    }

    /** Distinct user keys whose newest entry is a put. */
    int liveKeys() {
        return (int) LIVE_KEYS.getAcquire(this);
    }

    /** Distinct user keys whose newest entry is a delete. */
    int deletedKeys() {
        return (int) DELETED_KEYS.getAcquire(this);
    }

    /** Whether the chunks are in direct memory. */
    boolean offHeap() {
        return arena.offHeap();
    }

    /** Arena bytes the entries occupy: nodes, keys and values. */
    long usedBytes() {
        return (long) USED_BYTES.getAcquire(this);
    }

    /**
     * Inserts an entry; {@code value} is ignored for {@link EntryType#DELETE}. Key and value
     * are copied. One thread at a time.
     */
    void insert(byte[] key, long seqno, EntryType type, byte[] value) {
        insert(key, prefix(key, 0), prefix(key, 8), seqno, type, value);
        publishCounters();
    }

    /**
     * Inserts {@code count} entries, {@code keys[i], seqnos[i], types[i], values[i]} (a value
     * is ignored for {@link EntryType#DELETE}; sequence numbers distinct), in internal-key order
     * whatever their order in the arrays: sorted first, then each search resumes from the
     * previous one's path. The result is the same as inserting them one by one; readers see
     * each entry once it is linked, as they do with {@link #insert}. Keys and values are
     * copied; the arrays are not changed. One thread at a time.
     */
    void insertBatch(byte[][] keys, long[] seqnos, EntryType[] types, byte[][] values, int count) {
        long[] prefix0 = new long[count];
        long[] prefix1 = new long[count];
        for (int i = 0; i < count; i++) {
            prefix0[i] = prefix(keys[i], 0);
            prefix1[i] = prefix(keys[i], 8);
        }
        int[] order = sortedOrder(keys, seqnos, prefix0, prefix1, count);
        try {
            for (int start = 0; start < count; start += GROUP) {
                int g = Math.min(GROUP, count - start);
                // Heights first: an entry of height 1 that is a newer version of a key here goes
                // in front of the key's newest node without a search, as insert does. Not one
                // whose key the group's entry before it has (that one, newer, goes in first).
                long[] table = pointIndex;
                for (int k = 0; k < g; k++) {
                    int i = order[start + k];
                    int h = randomHeight();
                    groupHeight[k] = h;
                    long newest = 0;
                    if (h == 1 && (k == 0 || !sameKey(keys[order[start + k - 1]], keys[i]))) {
                        newest = indexed(table, keys[i], prefix0[i], prefix1[i]);
                        if (newest != 0 && seqno(newest) >= seqnos[i]) {
                            newest = 0;
                        }
                    }
                    groupNewest[k] = newest;
                }
                searchGroup(order, start, g, keys, seqnos, prefix0, prefix1);
                java.util.Arrays.fill(lastLinked, 0);
                for (int k = 0; k < g; k++) {
                    int i = order[start + k];
                    insertFound(k, keys[i], prefix0[i], prefix1[i], seqnos[i], types[i], values[i]);
                }
            }
        } finally {
            publishCounters();
        }
    }

    /**
     * Searches for the {@code g} entries {@code order[start .. start + g)} (in internal-key
     * order) side by side, one step of each in turn, and leaves each one's predecessor on every
     * level in {@link #groupPaths}: the steps of different searches do not depend on each other,
     * so the processor overlaps their cache misses, where one search waits for each in turn.
     * Against the list as it is before the group's inserts (see {@link #insertFound}). Writer only.
     */
    private void searchGroup(int[] order, int start, int g, byte[][] keys, long[] seqnos, long[] prefix0,
                             long[] prefix1) {
        int top = height;
        int active = 0;
        for (int k = 0; k < g; k++) {
            groupX[k] = 0;
            // Entries linked in front of a newer version need no search.
            groupLevel[k] = groupNewest[k] != 0 ? -1 : top - 1;
            if (groupNewest[k] == 0) {
                active++;
            }
            for (int level = top; level < MAX_HEIGHT; level++) {
                groupPaths[k * MAX_HEIGHT + level] = 0;
            }
        }
        while (active > 0) {
            for (int k = 0; k < g; k++) {
                int level = groupLevel[k];
                if (level < 0) {
                    continue;
                }
                int i = order[start + k];
                long x = groupX[k];
                long next = next(x, level);
                if (next != 0 && compare(next, prefix0[i], prefix1[i], keys[i], seqnos[i]) < 0) {
                    groupX[k] = next;
                } else {
                    groupPaths[k * MAX_HEIGHT + level] = x;
                    groupLevel[k] = level - 1;
                    if (level == 0) {
                        active--;
                    }
                }
            }
        }
    }

    /**
     * Inserts entry {@code k} of the group {@link #searchGroup} searched for, after the group's
     * entries before it: on each level its predecessor is the one found, unless the group's last
     * entry linked on that level had the same one found (it then sorts after that one and
     * before this entry, being a group entry before it in order), in which case it is that
     * entry. Writer only.
     */
    private void insertFound(int k, byte[] key, long prefix0, long prefix1, long seqno, EntryType type, byte[] value) {
        boolean tombstone = type == EntryType.DELETE;
        int valueLength = tombstone ? 0 : value.length;
        int h = groupHeight[k];
        long node = writeNode(h, key, prefix0, prefix1, seqno, type, value);
        if (groupNewest[k] != 0) {
            // On level 0 only, after the node before the key's newest: that is either a node
            // of the list as the group found it, or the group's last entry linked there (the
            // group's nodes so far all sort before this one); for the entries after it (an
            // older version of the same key, say) it counts as linked after the node found.
            long pred = linkInFront(node, groupNewest[k], key, prefix0, prefix1, seqno, tombstone, valueLength);
            lastLinkedFound[0] = lastLinked[0] != 0 && pred == lastLinked[0] ? lastLinkedFound[0] : pred;
            lastLinked[0] = node;
            return;
        }
        for (int level = 0; level < h; level++) {
            long found = groupPaths[k * MAX_HEIGHT + level];
            preds[level] = lastLinked[level] != 0 && lastLinkedFound[level] == found ? lastLinked[level] : found;
        }
        link(node, h, key, prefix0, prefix1, seqno, tombstone, valueLength);
        for (int level = 0; level < h; level++) {
            lastLinkedFound[level] = groupPaths[k * MAX_HEIGHT + level];
            lastLinked[level] = node;
        }
    }

    /** The indexes {@code 0 .. count - 1} in internal-key order of the entries they name (a stable merge sort). */
    private static int[] sortedOrder(byte[][] keys, long[] seqnos, long[] prefix0, long[] prefix1, int count) {
        int[] order = new int[count];
        boolean sorted = true;
        for (int i = 0; i < count; i++) {
            order[i] = i;
            if (i > 0 && sorted && compareEntries(i - 1, i, keys, seqnos, prefix0, prefix1) > 0) {
                sorted = false;
            }
        }
        if (!sorted) {
            mergeSort(order, new int[count], 0, count, keys, seqnos, prefix0, prefix1);
        }
        return order;
    }

    private static void mergeSort(int[] a, int[] tmp, int from, int to, byte[][] keys, long[] seqnos,
                                  long[] prefix0, long[] prefix1) {
        if (to - from <= 12) {
            for (int i = from + 1; i < to; i++) {
                int v = a[i];
                int j = i - 1;
                while (j >= from && compareEntries(a[j], v, keys, seqnos, prefix0, prefix1) > 0) {
                    a[j + 1] = a[j];
                    j--;
                }
                a[j + 1] = v;
            }
            return;
        }
        int mid = (from + to) >>> 1;
        mergeSort(a, tmp, from, mid, keys, seqnos, prefix0, prefix1);
        mergeSort(a, tmp, mid, to, keys, seqnos, prefix0, prefix1);
        if (compareEntries(a[mid - 1], a[mid], keys, seqnos, prefix0, prefix1) <= 0) {
            return;
        }
        System.arraycopy(a, from, tmp, from, to - from);
        int i = from;
        int j = mid;
        for (int k = from; k < to; k++) {
            if (j >= to || (i < mid && compareEntries(tmp[i], tmp[j], keys, seqnos, prefix0, prefix1) <= 0)) {
                a[k] = tmp[i++];
            } else {
                a[k] = tmp[j++];
            }
        }
    }

    /** Internal-key order of batch entries {@code i} and {@code j}: user key ascending (unsigned bytes), then sequence number descending. */
    private static int compareEntries(int i, int j, byte[][] keys, long[] seqnos, long[] prefix0, long[] prefix1) {
        int c = Long.compareUnsigned(prefix0[i], prefix0[j]);
        if (c != 0) {
            return c;
        }
        c = Long.compareUnsigned(prefix1[i], prefix1[j]);
        if (c != 0) {
            return c;
        }
        byte[] a = keys[i];
        byte[] b = keys[j];
        c = a.length > 16 && b.length > 16
                ? java.util.Arrays.compareUnsigned(a, 16, a.length, b, 16, b.length)
                : Integer.compare(a.length, b.length);
        return c != 0 ? c : Long.compare(seqnos[j], seqnos[i]);
    }

    /** Makes the writer's running counters visible to readers (release stores). Writer only. */
    private void publishCounters() {
        SIZE.setRelease(this, writerSize);
        USED_BYTES.setRelease(this, writerUsedBytes);
        LIVE_KEYS.setRelease(this, writerLiveKeys);
        DELETED_KEYS.setRelease(this, writerDeletedKeys);
    }

    /** Inserts one entry, whose key's first sixteen bytes are {@code prefix0, prefix1}. Writer only. */
    private void insert(byte[] key, long prefix0, long prefix1, long seqno, EntryType type, byte[] value) {
        boolean tombstone = type == EntryType.DELETE;
        int valueLength = tombstone ? 0 : value.length;
        int h = randomHeight();
        long newest = h == 1 ? indexed(pointIndex, key, prefix0, prefix1) : 0;
        long node = writeNode(h, key, prefix0, prefix1, seqno, type, value);
        if (newest != 0 && seqno(newest) < seqno) {
            linkInFront(node, newest, key, prefix0, prefix1, seqno, tombstone, valueLength);
            return;
        }
        search(0, Math.max(height, h) - 1, 0, prefix0, prefix1, key, seqno);
        link(node, h, key, prefix0, prefix1, seqno, tombstone, valueLength);
    }

    /**
     * Links the written node {@code node} (height 1), a newer version of the key whose newest
     * node is {@code newest}, in front of that node, after its predecessor, and counts and
     * indexes it; returns that predecessor. Writer only.
     */
    private long linkInFront(long node, long newest, byte[] key, long prefix0, long prefix1, long seqno,
                             boolean tombstone, int valueLength) {
        Arena a = arena;
        long pred = prev(newest);
        a.setWord(node, PREV, pred);
        a.setWord(node, NEXT, newest);
        setPrev(newest, node);
        a.setWordRelease(pred, NEXT, node);
        writerUsedBytes += NODE_FIXED_BYTES + Long.BYTES + key.length + valueLength;
        writerSize++;
        countKey(pred, newest, key, tombstone);
        index(key, prefix0, prefix1, node, seqno);
        return pred;
    }

    /** Whether two user keys are equal. */
    private static boolean sameKey(byte[] a, byte[] b) {
        return java.util.Arrays.equals(a, b);
    }

    /** Allocates a node of height {@code h} and its key and value bytes and fills them in (not linked yet). Writer only. */
    private long writeNode(int h, byte[] key, long prefix0, long prefix1, long seqno, EntryType type, byte[] value) {
        boolean tombstone = type == EntryType.DELETE;
        int valueLength = tombstone ? 0 : value.length;
        long node = allocateNode(h);
        long data = allocateData(key.length + valueLength);
        Arena a = arena;
        a.write(data, key, 0, key.length);
        if (!tombstone) {
            a.write(data + key.length, value, 0, valueLength);
        }
        a.setNode(node, prefix0, prefix1, seqno << 8 | type.code(),
                (long) key.length << 32 | ((tombstone ? -1 : valueLength) & 0xffffffffL), data);
        return node;
    }

    /**
     * Links the written node {@code node} of height {@code h} after {@link #preds} on levels 0
     * to {@code h - 1}, from the bottom with release stores, and counts and indexes it. Writer only.
     */
    private void link(long node, int h, byte[] key, long prefix0, long prefix1, long seqno, boolean tombstone,
                      int valueLength) {
        Arena a = arena;
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
        writerUsedBytes += NODE_FIXED_BYTES + (long) h * Long.BYTES + key.length + valueLength;
        writerSize++;
        countKey(preds[0], succ, key, tombstone);
        index(key, prefix0, prefix1, node, seqno);
    }

    /**
     * Sets {@link #preds} on levels {@code from} down to 0 for {@code (key, seqno)}, walking
     * from {@code x}, a node at least {@code from + 1} high (or the head) that sorts before it;
     * {@code bigger} is a node known to sort after it (0: none), so a step that reaches it
     * stops without a comparison (the node a level stops at is often the next level's too).
     */
    private void search(long x, int from, long bigger, long prefix0, long prefix1, byte[] key, long seqno) {
        for (int level = from; level >= 0; level--) {
            long next = next(x, level);
            while (next != 0 && next != bigger && compare(next, prefix0, prefix1, key, seqno) < 0) {
                x = next;
                next = next(x, level);
            }
            preds[level] = x;
            bigger = next;
        }
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
        writerUsedBytes += (long) (table.length - old.length) * Long.BYTES;
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
                writerDeletedKeys--;
            } else {
                writerLiveKeys--;
            }
        }
        if (tombstone) {
            writerDeletedKeys++;
        } else {
            writerLiveKeys++;
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
