package dev.strata.lsm.policies;

import dev.strata.lsm.policy.*;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@link ForwardingMergePolicy} hands every {@link MergePolicy} call to the wrapped policy, so
 * a recording or checking wrapper never silently replaces a wrapped policy's decision with the
 * SPI's default.
 */
class ForwardingMergePolicyTest {

    private static final TreeView EMPTY = new TreeView(List.of(), 0, null, null, List.of(), 0L);

    /** A policy whose every answer differs from the SPI's default. */
    private static final class Distinct implements MergePolicy {
        final List<MergeTask> compaction = new ArrayList<>();
        final Placement ingest = Placement.newOldestRun(5);
        byte[] askedFrom;
        byte[] askedTo;
        List<ComponentView> askedTables;

        @Override
        public List<MergeTask> pickMerges(TreeView tree) {
            return List.of();
        }

        @Override
        public List<MergeTask> planCompaction(TreeView tree, byte[] from, byte[] to) {
            askedFrom = from;
            askedTo = to;
            return compaction;
        }

        @Override
        public Placement placeIngest(TreeView tree, List<ComponentView> tables) {
            askedTables = tables;
            return ingest;
        }
    }

    private static final class Plain extends ForwardingMergePolicy {
        Plain(MergePolicy delegate) {
            super(delegate);
        }
    }

    @Test
    void manualCompactionPlanComesFromTheWrappedPolicy() {
        Distinct inner = new Distinct();
        byte[] from = {1};
        byte[] to = {9};
        assertSame(inner.compaction, new Plain(inner).planCompaction(EMPTY, from, to));
        assertSame(from, inner.askedFrom);
        assertSame(to, inner.askedTo);
    }

    @Test
    void ingestPlacementComesFromTheWrappedPolicy() {
        Distinct inner = new Distinct();
        List<ComponentView> tables = List.of();
        assertEquals(inner.ingest, new Plain(inner).placeIngest(EMPTY, tables));
        assertSame(tables, inner.askedTables);
    }

    @Test
    void everySpiMethodIsForwarded() throws NoSuchMethodException {
        for (Method m : MergePolicy.class.getMethods()) {
            if (Modifier.isStatic(m.getModifiers())) {
                continue;
            }
            Method own = ForwardingMergePolicy.class.getMethod(m.getName(), m.getParameterTypes());
            assertEquals(ForwardingMergePolicy.class, own.getDeclaringClass(),
                    "ForwardingMergePolicy does not forward " + m.getName());
        }
    }
}
