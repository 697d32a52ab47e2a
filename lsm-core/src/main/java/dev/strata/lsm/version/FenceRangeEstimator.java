package dev.strata.lsm.version;

import dev.strata.lsm.policy.ComponentId;
import dev.strata.lsm.policy.ComponentView;
import dev.strata.lsm.policy.TreeView;
import dev.strata.lsm.sstable.TableFences;

import java.io.IOException;
import java.util.List;

/**
 * A {@link TreeView.RangeEstimator} over the tables of one version: the bytes of a
 * component in a key range are its size times the fraction of its leaves there, as the
 * table's interior-page fences tell ({@link TableFences}). A component this version does
 * not hold, or whose interior pages cannot be read, is estimated by interpolating over its
 * key range. Immutable; fences are read on first use and kept by each table's reader.
 */
final class FenceRangeEstimator implements TreeView.RangeEstimator {
    private static final System.Logger LOG = System.getLogger(FenceRangeEstimator.class.getName());

    private final Version version;
    private final List<Component> extra;

    FenceRangeEstimator(Version version, List<Component> extra) {
        this.version = version;
        this.extra = List.copyOf(extra);
    }

    @Override
    public long bytesInRange(ComponentView component, byte[] from, byte[] to) {
        return Math.round(component.sizeBytes() * fencesOf(component).fraction(from, to));
    }

    private TableFences fencesOf(ComponentView view) {
        Component c = find(view.id());
        if (c != null && c.reader() != null) {
            try {
                return c.reader().fences();
            } catch (IOException | RuntimeException e) {
                LOG.log(System.Logger.Level.DEBUG, "fences of " + view.id() + " unreadable; interpolating", e);
            }
        }
        return TableFences.uniform(view.minKey(), view.maxKey());
    }

    private Component find(ComponentId id) {
        Component c = version.find(id);
        if (c == null) {
            for (Component e : extra) {
                if (e.id().equals(id)) {
                    return e;
                }
            }
        }
        return c;
    }
}
