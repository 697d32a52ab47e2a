package dev.strata.lsm.bench.workload;

import dev.strata.lsm.bench.engine.BenchEngine;

import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/** An in-memory engine whose gets take a set time, to test what the driver measures. */
final class FakeEngine implements BenchEngine {
    private final ConcurrentSkipListMap<byte[], byte[]> map = new ConcurrentSkipListMap<>(Arrays::compareUnsigned);
    private final long getMillis;
    final AtomicLong gets = new AtomicLong();

    FakeEngine(long getMillis) {
        this.getMillis = getMillis;
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
    }

    @Override
    public byte[] get(byte[] key) {
        gets.incrementAndGet();
        if (getMillis > 0) {
            try {
                TimeUnit.MILLISECONDS.sleep(getMillis);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
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
