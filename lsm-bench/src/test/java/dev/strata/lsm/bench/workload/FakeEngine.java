package dev.strata.lsm.bench.workload;

import dev.strata.lsm.bench.engine.BenchEngine;

import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * An in-memory engine whose gets take a set time, and whose puts may take a set time and
 * stall periodically, to test what the driver measures.
 */
final class FakeEngine implements BenchEngine {
    private final ConcurrentSkipListMap<byte[], byte[]> map = new ConcurrentSkipListMap<>(Arrays::compareUnsigned);
    private final long getMillis;
    final AtomicLong gets = new AtomicLong();

    private final long putNanos;
    private final long stallMillis;
    private final long stallPeriodNanos;
    private long nextStall;

    FakeEngine(long getMillis) {
        this(getMillis, 0, 0, 0);
    }

    /**
     * Puts take {@code putNanos} (spinning), and the first put after every
     * {@code stallPeriodNanos} (counted from the first put, then from the stall's end)
     * stalls {@code stallMillis} more.
     */
    FakeEngine(long getMillis, long putNanos, long stallMillis, long stallPeriodNanos) {
        this.getMillis = getMillis;
        this.putNanos = putNanos;
        this.stallMillis = stallMillis;
        this.stallPeriodNanos = stallPeriodNanos;
    }

    @Override
    public String name() {
        return "fake";
    }

    @Override
    public String describe() {
        return "in memory, gets take " + getMillis + " ms";
    }

    @Override
    public String durability() {
        return "none";
    }

    @Override
    public void put(byte[] key, byte[] value) {
        map.put(key, value);
        if (putNanos == 0 && stallPeriodNanos == 0) {
            return;
        }
        synchronized (this) {
            long start = System.nanoTime();
            while (System.nanoTime() - start < putNanos) {
                Thread.onSpinWait();
            }
            if (stallPeriodNanos > 0) {
                if (nextStall == 0) {
                    nextStall = start + stallPeriodNanos;
                } else if (System.nanoTime() >= nextStall) {
                    sleep(stallMillis);
                    nextStall = System.nanoTime() + stallPeriodNanos;
                }
            }
        }
    }

    private static void sleep(long millis) {
        try {
            TimeUnit.MILLISECONDS.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    @Override
    public byte[] get(byte[] key) {
        gets.incrementAndGet();
        if (getMillis > 0) {
            sleep(getMillis);
        }
        return map.get(key);
    }

    @Override
    public void delete(byte[] key) {
        map.remove(key);
    }

    @Override
    public int scan(byte[] from, int count) {
        return (int) map.tailMap(from).entrySet().stream().limit(count).count();
    }

    @Override
    public void settle() {
    }

    @Override
    public Map<String, Object> ownCounters() {
        return Map.of("entries", map.size());
    }

    @Override
    public void close() {
    }
}
