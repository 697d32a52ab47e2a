package dev.strata.lsm.version;

import dev.strata.lsm.policy.ComponentId;
import dev.strata.lsm.sstable.SSTableReader;

import java.util.Arrays;
import java.util.function.LongSupplier;

/**
 * A component as the engine uses it: its durable metadata, the open reader of its table,
 * the size of the file holding it, and its read statistics. Immutable but for the
 * statistics; the reader is shared by every version that contains the component and
 * closed by the {@link VersionSet} when no live version does.
 */
public final class Component {
    private final ComponentMeta meta;
    private final SSTableReader reader;
    private final LongSupplier fileBytes;
    private final ReadCounter reads;

    /** A component whose file holds only this table version (physical bytes = its size). */
    public Component(ComponentMeta meta, SSTableReader reader) {
        this(meta, reader, meta::sizeBytes, new ReadCounter());
    }

    Component(ComponentMeta meta, SSTableReader reader, LongSupplier fileBytes, ReadCounter reads) {
        this.meta = meta;
        this.reader = reader;
        this.fileBytes = fileBytes;
        this.reads = reads;
    }

    public ComponentMeta meta() {
        return meta;
    }

    public ComponentId id() {
        return meta.id();
    }

    public SSTableReader reader() {
        return reader;
    }

    /**
     * Bytes of the file that holds this component on disk: every table version appended to
     * it, less the dead pages punched out of it; {@link ComponentMeta#sizeBytes()} counts only
     * this version's pages.
     */
    public long physicalBytes() {
        return fileBytes.getAsLong();
    }

    /** Read statistics since the store opened. */
    public ReadCounter reads() {
        return reads;
    }

    /** Records that a point lookup searched this component's table at {@code nowMillis} (the store's clock). */
    public void recordRead(long nowMillis) {
        reads.record(nowMillis);
    }

    /** The same table with other metadata (same reader, file and statistics). */
    public Component withMeta(ComponentMeta m) {
        if (!m.id().equals(meta.id())) {
            throw new IllegalArgumentException("metadata of " + m.id() + " given for component " + meta.id());
        }
        return new Component(m, reader, fileBytes, reads);
    }

    /** Whether {@code key} lies within [minKey, maxKey]. */
    public boolean mayContain(byte[] key) {
        return Arrays.compareUnsigned(key, meta.minKey()) >= 0 && Arrays.compareUnsigned(key, meta.maxKey()) <= 0;
    }

    /** Whether the key ranges of the two components intersect. */
    public boolean overlaps(Component o) {
        return Arrays.compareUnsigned(meta.minKey(), o.meta.maxKey()) <= 0
                && Arrays.compareUnsigned(o.meta.minKey(), meta.maxKey()) <= 0;
    }

    @Override
    public String toString() {
        return meta.id().toString();
    }
}
