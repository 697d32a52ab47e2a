package dev.strata.lsm.engine;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

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

    @Test
    void theTotalIsTheSumOfTheOpenStoresLastReportsThroughRandomChanges() {
        long seed = System.nanoTime();
        Random random = new Random(seed);
        try (MemtableBudget budget = new MemtableBudget(Long.MAX_VALUE / 4)) {
            List<FakeStore> stores = new ArrayList<>();
            List<MemtableBudget.Share> shares = new ArrayList<>();
            List<Boolean> open = new ArrayList<>();
            for (int op = 0; op < 5_000; op++) {
                int what = random.nextInt(10);
                if (what == 0 || stores.isEmpty()) {
                    FakeStore s = new FakeStore();
                    s.active = random.nextInt(1_000);
                    s.bytes = s.active + random.nextInt(1_000);
                    stores.add(s);
                    shares.add(budget.register(s));
                    open.add(true);
                } else {
                    int i = random.nextInt(stores.size());
                    FakeStore s = stores.get(i);
                    if (what == 1) {
                        shares.get(i).release();      // the store closes (again: idempotent)
                        open.set(i, false);
                    } else if (what == 2) {
                        s.bytes -= s.active;            // a switch: the active bytes wait for a flush
                        s.active = 0;
                        shares.get(i).refresh();
                    } else if (what == 3) {
                        s.bytes = s.active;             // a flush drops the immutable memtables
                        shares.get(i).refresh();
                    } else {
                        int grow = random.nextInt(5_000);  // a write
                        s.active += grow;
                        s.bytes += grow;
                        shares.get(i).refresh();        // a released share ignores it
                    }
                }
                long sum = 0;
                long activeSum = 0;
                int members = 0;
                for (int i = 0; i < stores.size(); i++) {
                    if (open.get(i)) {
                        sum += stores.get(i).bytes;
                        activeSum += stores.get(i).active;
                        members++;
                    }
                }
                assertEquals(sum, budget.usedBytes(), "seed " + seed + ", op " + op);
                assertEquals(activeSum, budget.activeBytes(), "seed " + seed + ", op " + op);
                assertEquals(members, budget.members(), "seed " + seed + ", op " + op);
            }
        }
    }

    @Test
    void aWriteWaitingForRoomIsWokenWhenAFlushGivesBytesBack() throws Exception {
        try (MemtableBudget budget = new MemtableBudget(10_000)) {
            FakeStore s = new FakeStore();
            s.bytes = 20_000;   // all switched out, waiting for the flush: nothing to switch
            MemtableBudget.Share share = budget.register(s);
            Thread writer = new Thread(budget::admit);
            writer.start();
            writer.join(300);
            assertTrue(writer.isAlive(), "the write waits while the memtables hold twice the budget");
            long t0 = System.nanoTime();
            s.bytes = 0;
            share.refresh();
            writer.join(TimeUnit.SECONDS.toMillis(5));
            assertFalse(writer.isAlive(), "the write was let in once the flush gave its bytes back");
            assertTrue(System.nanoTime() - t0 < TimeUnit.SECONDS.toNanos(5));
            assertEquals(0, s.switches.get(), "nothing active: no switch asked for");
        }
    }

    @Test
    void memtablesWaitingForTheirFlushMakeNoMoreSwitches() throws Exception {
        try (MemtableBudget budget = new MemtableBudget(8_000)) {
            FakeStore a = new FakeStore();
            a.active = 1_000;
            a.bytes = 7_900;    // 6,900 switched out, flushing: past 7/8 of the budget all told
            FakeStore b = new FakeStore();
            MemtableBudget.Share shareA = budget.register(a);
            budget.register(b);
            budget.afterWrite();
            Thread.sleep(50);
            assertEquals(0, a.switches.get() + b.switches.get(),
                    "1,000 of 8,000 active: a switch would only make another small flush");
            a.active = 7_500;   // the active memtables now hold more than 7/8 of the budget
            a.bytes = 7_500;
            shareA.refresh();
            budget.afterWrite();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (a.switches.get() == 0 && System.nanoTime() < deadline) {
                Thread.sleep(5);
            }
            assertEquals(1, a.switches.get(), "the largest active memtable is switched out");
            assertEquals(0, b.switches.get());
        }
    }
}
