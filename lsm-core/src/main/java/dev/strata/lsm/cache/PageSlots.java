package dev.strata.lsm.cache;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;

/**
 * The arrays that hold the block cache's page images, reused instead of reallocated. A page
 * evicted from the cache gives its array back here, and the next page cached takes it, so a
 * cache that keeps missing (a data set larger than the cache) allocates nothing per miss:
 * the arrays are allocated once, live as long as the cache, and the collector never has to
 * copy, promote or reclaim page images. A Java-heap cache that allocated a new array per
 * miss turned every miss into old-generation garbage and long young-collection pauses
 * (copying the cached pages), which showed up as read tail latency.
 *
 * <p>Because an array is reused, a reader never receives it: it copies the image out under
 * a version check (a sequence lock). Each {@link Slot} carries a version that is odd while
 * the slot is being refilled and changes every time the slot is released or refilled; a
 * {@link Handle} names a slot at one version. A copy that saw the version change is
 * discarded and counted as a miss. Arrays are pooled per page size. Thread safe.
 *
 * <p>Off heap ({@code <memory offHeap="true"/>}), a slot's image is a direct buffer instead
 * of a {@code byte[]}: the images live outside the Java heap, the collector neither walks nor
 * copies them, and readers copy out of it under the same version check. The buffers are
 * pooled like the arrays, so they live as long as the cache and are freed (by their cleaners)
 * once the cache is unreachable.
 */
final class PageSlots {
    private static final VarHandle VERSION;

    static {
        try {
            VERSION = MethodHandles.lookup().findVarHandle(Slot.class, "version", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** A reusable page-sized array (or direct buffer) and its version. */
    static final class Slot {
        /** The image on the heap; null off heap. */
        private final byte[] page;
        /** The image in direct memory; null on the heap. */
        private final ByteBuffer direct;
        /** Odd while the image is being written; accessed through {@link #VERSION}. */
        @SuppressWarnings("unused")
        private volatile long version;

        Slot(int size, boolean offHeap) {
            this.page = offHeap ? null : new byte[size];
            this.direct = offHeap ? ByteBuffer.allocateDirect(size) : null;
        }

        /** The page size this slot holds. */
        int size() {
            return page != null ? page.length : direct.capacity();
        }

        /** Whether the image is in direct memory. */
        boolean offHeap() {
            return direct != null;
        }

        private void write(byte[] image) {
            if (page != null) {
                System.arraycopy(image, 0, page, 0, image.length);
            } else {
                direct.put(0, image, 0, image.length);
            }
        }

        private void read(byte[] dest) {
            if (page != null) {
                System.arraycopy(page, 0, dest, 0, page.length);
            } else {
                direct.get(0, dest, 0, dest.length);
            }
        }
    }

    /** A slot at the version that held one page's image; what the cache maps a page to. */
    record Handle(Slot slot, long version) {
    }

    /** Free slots by page size; guarded by its own monitor. */
    private final Map<Integer, ArrayDeque<Slot>> free = new HashMap<>();
    /**
     * The free list of the page size last used, and that size (guarded by {@link #free}'s
     * monitor): a store has one page size, so every release and take finds its list without
     * boxing the size and hashing it.
     */
    private ArrayDeque<Slot> lastFree;
    private int lastSize = -1;
    /** Whether new slots hold their images in direct memory. */
    private final boolean offHeap;

    /** Slots with their images on the Java heap. */
    PageSlots() {
        this(false);
    }

    /** Slots with their images in direct memory ({@code offHeap}) or on the Java heap. */
    PageSlots(boolean offHeap) {
        this.offHeap = offHeap;
    }

    /** Whether new slots hold their images in direct memory. */
    boolean offHeap() {
        return offHeap;
    }

    /**
     * A handle to a slot holding a copy of {@code image}; the caller may reuse {@code image}
     * afterwards.
     */
    Handle fill(byte[] image) {
        Slot slot = take(image.length);
        long v = (long) VERSION.getVolatile(slot) + 1; // even while free: odd now
        VERSION.setVolatile(slot, v);
        VarHandle.storeStoreFence(); // the odd version is visible before any byte changes
        slot.write(image);
        VERSION.setRelease(slot, v + 1);
        return new Handle(slot, v + 1);
    }

    /**
     * Copies the image {@code handle} names into {@code dest}, which must be as long as the
     * page; false, with {@code dest} overwritten, when the slot was released or refilled
     * since (the image is gone).
     */
    static boolean copy(Handle handle, byte[] dest) {
        Slot slot = handle.slot();
        if ((long) VERSION.getAcquire(slot) != handle.version()) {
            return false;
        }
        slot.read(dest);
        VarHandle.loadLoadFence(); // the copy is complete before the version is read again
        return (long) VERSION.getVolatile(slot) == handle.version();
    }

    /** Gives the slot of {@code handle} back for reuse; copies still under way will fail. */
    void release(Handle handle) {
        Slot slot = handle.slot();
        // Released once: the cache calls this once per removed mapping, and only the
        // mapping made by fill() at this version points at the slot.
        VERSION.setVolatile(slot, handle.version() + 2);
        synchronized (free) {
            freeList(slot.size()).push(slot);
        }
    }

    private Slot take(int size) {
        synchronized (free) {
            Slot slot = freeList(size).poll();
            if (slot != null) {
                return slot;
            }
        }
        return new Slot(size, offHeap);
    }

    /** The free list of pages of {@code size} bytes, made when first asked for; the caller holds {@link #free}'s monitor. */
    private ArrayDeque<Slot> freeList(int size) {
        if (size != lastSize) {
            lastFree = free.computeIfAbsent(size, k -> new ArrayDeque<>());
            lastSize = size;
        }
        return lastFree;
    }

    /** Free slots of all sizes (for tests). */
    int freeSlots() {
        synchronized (free) {
            return free.values().stream().mapToInt(ArrayDeque::size).sum();
        }
    }
}
