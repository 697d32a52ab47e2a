package dev.strata.lsm.bench.workload;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

class KeyspaceTest {

    @Test
    void readsStayBelowTheFirstUnacknowledgedInsert() {
        Keyspace k = new Keyspace(100);
        assertEquals(100, k.readable());
        long a = k.allocate();
        long b = k.allocate();
        long c = k.allocate();
        assertEquals(100, a);
        k.acknowledge(b);
        assertEquals(100, k.readable(), "record 100 is not written yet");
        k.acknowledge(a);
        assertEquals(102, k.readable());
        k.acknowledge(c);
        assertEquals(103, k.readable());
    }

    @Test
    void liveRecordsCountTheLoadOnlyOnceLoaded() {
        Keyspace k = new Keyspace(10);
        k.acknowledge(k.allocate());
        assertEquals(1, k.liveRecords());
        k.markLoaded();
        assertEquals(11, k.liveRecords());
    }
}
