package dev.strata.lsm.engine;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The memtable budget's accounting ({@link MemtableBudget}), with stand-in stores. */
class MemtableBudgetTest {
    /** A store whose memtable bytes the test sets, counting how often the budget reads them. */
    private static final class FakeStore implements MemtableBudget.Member {
        volatile long bytes;
        volatile long active;
        final AtomicInteger reads = new AtomicInteger();
        final AtomicInteger switches = new AtomicInteger();

        @Override
        public long memtableBytes() {
            reads.incrementAndGet();
            return bytes;
        }

        @Override
        public long activeBytes() {
            return active;
        }

        @Override
        public void switchForBudget() {
            switches.incrementAndGet();
        }
    }

    @Test
    void aWriteUnderTheBudgetReadsNoStoresMemtables() {
        try (MemtableBudget budget = new MemtableBudget(1 << 20)) {
            List<FakeStore> stores = new ArrayList<>();
            for (int i = 0; i < 100; i++) {
                FakeStore s = new FakeStore();
                s.bytes = 1_000;
                s.active = 1_000;
                stores.add(s);
                budget.register(s);
            }
            stores.forEach(s -> s.reads.set(0));
            // What one store's write does with the budget: admission, the used bytes, the switch check.
            for (int w = 0; w < 10; w++) {
                budget.admit();
                budget.afterWrite();
                budget.usedBytes();
            }
            int reads = stores.stream().mapToInt(s -> s.reads.get()).sum();
            // A write costs O(1) in the budget, not a sum over every store's memtables.
            assertEquals(0, reads, "memtable reads of other stores during 10 writes");
        }
    }
}
