package dev.strata.lsm.engine;

import dev.strata.lsm.Cursor;
import dev.strata.lsm.StoreClosedException;
import dev.strata.lsm.StoreException;
import dev.strata.lsm.sstable.InternalIterator;
import dev.strata.lsm.sstable.EntryType;

import java.io.IOException;
import java.util.Arrays;

/**
 * A {@link Cursor} over a merged internal stream: for each user key in range it yields
 * the newest version visible at the read sequence number, skipping tombstones. It pins
 * the version it reads until closed. Once its store is closed it throws
 * {@link StoreClosedException}, like every other call on the store.
 */
final class StoreCursor implements Cursor {
    private final InternalIterator it;
    private final long readSeq;
    private final byte[] from;
    private final byte[] to;
    private final Runnable onClose;
    private final Runnable checkStoreOpen;
    private boolean started;
    private boolean closed;
    private byte[] key;
    private byte[] value;

    /**
     * @param onClose runs once when the cursor is closed
     * @param checkStoreOpen throws {@link StoreClosedException} once the store is closed
     */
    StoreCursor(InternalIterator it, long readSeq, byte[] from, byte[] to, Runnable onClose, Runnable checkStoreOpen) {
        this.it = it;
        this.readSeq = readSeq;
        this.from = from;
        this.to = to;
        this.onClose = onClose;
        this.checkStoreOpen = checkStoreOpen;
    }

    private void checkUsable() {
        if (closed) {
            throw new StoreClosedException("cursor is closed");
        }
        checkStoreOpen.run();
    }

    @Override
    public boolean next() {
        checkUsable();
        try {
            if (!started) {
                started = true;
                if (from == null) {
                    it.seekToFirst();
                } else {
                    it.seek(from);
                }
            } else if (key != null) {
                // Skip the remaining (older) versions of the key just returned.
                while (it.valid() && Arrays.equals(it.key(), key)) {
                    it.next();
                }
            }
            while (it.valid()) {
                byte[] k = it.key();
                if (to != null && Arrays.compareUnsigned(k, to) >= 0) {
                    break;
                }
                if (it.seqno() > readSeq) {
                    it.next();
                    continue;
                }
                if (it.type() == EntryType.MERGE) {
                    MergeResolvingIterator.fullMerge(null, k, null, java.util.List.of()); // throws: no operator
                }
                if (it.type() == EntryType.DELETE) {
                    while (it.valid() && Arrays.equals(it.key(), k)) {
                        it.next();
                    }
                    continue;
                }
                key = k;
                value = it.value();
                return true;
            }
            key = null;
            value = null;
            return false;
        } catch (IOException e) {
            // The store may have closed the files under this cursor meanwhile.
            checkStoreOpen.run();
            throw new StoreException("scan failed: " + e, e);
        }
    }

    @Override
    public byte[] key() {
        checkUsable();
        if (key == null) {
            throw new IllegalStateException("cursor is not positioned at a key");
        }
        return key;
    }

    @Override
    public byte[] value() {
        checkUsable();
        if (key == null) {
            throw new IllegalStateException("cursor is not positioned at a key");
        }
        return value;
    }

    @Override
    public void close() {
        if (!closed) {
            closed = true;
            onClose.run();
        }
    }
}
