package dev.strata.lsm.server;

import java.util.Arrays;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Striped locks over keys: every write of the node holds the stripes of the keys it
 * writes, so that read-modify-write commands (INCR, SET NX/XX) are atomic against every
 * other write of the same key. Several stripes are always taken in ascending order.
 */
final class KeyLocks {
    private final ReentrantLock[] stripes;

    KeyLocks(int stripeCount) {
        stripes = new ReentrantLock[Integer.highestOneBit(Math.max(1, stripeCount - 1)) << 1];
        for (int i = 0; i < stripes.length; i++) {
            stripes[i] = new ReentrantLock();
        }
    }

    private int stripe(byte[] key) {
        int h = Arrays.hashCode(key);
        h ^= h >>> 16;
        return h & (stripes.length - 1);
    }

    /** Locks the stripe of {@code key}; close the result to unlock. */
    Held lock(byte[] key) {
        ReentrantLock l = stripes[stripe(key)];
        l.lock();
        return l::unlock;
    }

    /** Locks the stripes of all {@code keys} (in stripe order, each once). */
    Held lockAll(List<byte[]> keys) {
        int[] all = new int[keys.size()];
        for (int i = 0; i < all.length; i++) {
            all[i] = stripe(keys.get(i));
        }
        Arrays.sort(all);
        int distinct = 0;
        for (int i = 0; i < all.length; i++) {
            if (i == 0 || all[i] != all[i - 1]) {
                all[distinct++] = all[i];
            }
        }
        int[] idx = distinct == all.length ? all : Arrays.copyOf(all, distinct);
        int locked = 0;
        try {
            for (int i : idx) {
                stripes[i].lock();
                locked++;
            }
        } catch (RuntimeException | Error e) {
            for (int j = locked - 1; j >= 0; j--) {
                stripes[idx[j]].unlock();
            }
            throw e;
        }
        return () -> {
            for (int j = idx.length - 1; j >= 0; j--) {
                stripes[idx[j]].unlock();
            }
        };
    }

    /** A held set of stripes. */
    interface Held extends AutoCloseable {
        @Override
        void close();
    }
}
