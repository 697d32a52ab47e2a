package dev.strata.lsm.server;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;

/**
 * SCAN's cursors: a client gets a number (RESP clients parse cursors as unsigned 64-bit
 * integers) that stands for the key to resume after. The node keeps the most recent
 * {@code capacity} of them; an older one is answered with an error rather than restarted,
 * which would return keys twice. Cursor 0 starts and ends every iteration, as in Redis.
 */
final class ScanCursors {
    private final int capacity;
    private final Map<Long, byte[]> resumeAfter;

    ScanCursors(int capacity) {
        this.capacity = capacity;
        this.resumeAfter = new LinkedHashMap<>(16, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<Long, byte[]> eldest) {
                return size() > ScanCursors.this.capacity;
            }
        };
    }

    /** A new cursor that resumes after {@code lastKey}. */
    synchronized long save(byte[] lastKey) {
        long id;
        do {
            id = ThreadLocalRandom.current().nextLong(1, Long.MAX_VALUE);
        } while (resumeAfter.containsKey(id));
        resumeAfter.put(id, lastKey.clone());
        return id;
    }

    /** The key cursor {@code id} resumes after, or null when the node does not know it. */
    synchronized byte[] lookup(long id) {
        byte[] k = resumeAfter.get(id);
        return k == null ? null : k.clone();
    }

    synchronized int size() {
        return resumeAfter.size();
    }
}
