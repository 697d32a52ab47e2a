package dev.strata.lsm.version;

import dev.strata.lsm.policy.ComponentId;
import dev.strata.lsm.sstable.SSTableReader;

import java.util.Arrays;

/**
 * A component as the engine uses it: its durable metadata and the open reader of its
 * table. Immutable; the reader is shared by every version that contains the component
 * and closed by the {@link VersionSet} when no live version does.
 */
public final class Component {
    private final ComponentMeta meta;
    private final SSTableReader reader;

    public Component(ComponentMeta meta, SSTableReader reader) {
        this.meta = meta;
        this.reader = reader;
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
