package dev.strata.lsm.bench.workload;

import dev.strata.lsm.bench.engine.BenchEngine;
import org.HdrHistogram.Histogram;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Runs one workload on an open engine with the configured worker threads and measures it.
 * Every loop is bounded by a count: fills write their share of the records, request
 * workloads issue their share of {@code --ops}, and readwhilewriting's writer stops when the
 * readers are done or after {@code --ops} writes. The first exception of any worker stops
 * the others and is rethrown.
 */
final class WorkloadDriver {
    private final BenchEngine engine;
    private final Path dir;
    private final WorkloadSettings settings;
    private final RecordFormat format;
    private final Keyspace keyspace;
    private final Monitor monitor;
    private final ProcessIo ioAtOpen;
    private final String ioSource;
    private final AtomicReference<Throwable> failure = new AtomicReference<>();

    WorkloadDriver(BenchEngine engine, Path dir, WorkloadSettings settings, RecordFormat format, Keyspace keyspace,
                   Monitor monitor, ProcessIo ioAtOpen, String ioSource) {
        this.engine = engine;
        this.dir = dir;
        this.settings = settings;
        this.format = format;
        this.keyspace = keyspace;
        this.monitor = monitor;
        this.ioAtOpen = ioAtOpen;
        this.ioSource = ioSource;
    }

    /** Runs {@code type}, the {@code position}-th workload of the list, to completion. */
    WorkloadResult run(WorkloadType type, int position) throws InterruptedException {
        failure.set(null);
        int threads = settings.threads();
        KeyDistribution distribution = settings.distributionOf(type);
        boolean fill = type.shape() == WorkloadType.Shape.FILL;
        long total = fill ? keyspace.records() : settings.ops();
        // Values differ per workload so that overwrites really change the data.
        long salt = position + 1;

        List<Recorder> measured = new ArrayList<>();
        List<Thread> workers = new ArrayList<>();
        CountDownLatch go = new CountDownLatch(1);
        CountDownLatch readersDone = new CountDownLatch(threads);
        long[] start = new long[1];
        long[] ends = new long[threads];
        for (int t = 0; t < threads; t++) {
            Recorder rec = new Recorder(true);
            measured.add(rec);
            int thread = t;
            long from = total * t / threads;
            long to = total * (t + 1) / threads;
            Runnable body;
            if (fill) {
                body = () -> fill(type, from, to, pacer(start[0]), rec, salt);
            } else {
                SplittableRandom random = new SplittableRandom(
                        RandomPermutation.mix(settings.seed() ^ ((long) position << 32) ^ thread));
                // Built before the clock starts: a zipfian chooser sums its zeta over the key space here.
                KeyChooser chooser = distribution.chooser(random, settings.zipfTheta(), thread, threads,
                        keyspace.readable());
                body = () -> requests(type, chooser, random, to - from, pacer(start[0]), rec, salt);
            }
            workers.add(worker(type.label() + "-" + t, go, body, () -> {
                ends[thread] = System.nanoTime();
                readersDone.countDown();
            }));
        }
        Recorder writerRecorder = null;
        if (type.shape() == WorkloadType.Shape.READ_WHILE_WRITING) {
            Recorder rec = new Recorder(false);
            writerRecorder = rec;
            SplittableRandom random = new SplittableRandom(
                    RandomPermutation.mix(settings.seed() ^ ((long) position << 32) ^ 0xFFFF));
            KeyChooser chooser = distribution.chooser(random, settings.zipfTheta(), 0, 1, keyspace.readable());
            workers.add(worker(type.label() + "-writer", go, () -> write(chooser, readersDone, rec, salt), () -> {
            }));
        }

        List<Recorder> all = new ArrayList<>(measured);
        if (writerRecorder != null) {
            all.add(writerRecorder);
        }
        ProcessIo ioBefore = ProcessIo.read();
        monitor.begin(type.label(), total, all);
        start[0] = System.nanoTime();
        go.countDown();
        for (Thread w : workers) {
            w.join();
        }
        long end = start[0];
        for (long e : ends) {
            end = Math.max(end, e);
        }
        monitor.end(type.writes() ? type.label() + " settling" : "between workloads");
        Throwable failed = failure.get();
        if (failed != null) {
            throw new IllegalStateException(engine.name() + " " + type.label() + " failed: " + failed, failed);
        }

        double settleSeconds = 0;
        if (type.writes()) {
            long s0 = System.nanoTime();
            engine.settle();
            settleSeconds = (System.nanoTime() - s0) / 1e9;
        }
        if (fill) {
            keyspace.markLoaded();
        }
        return measure(type, position, distribution, measured, all, writerRecorder, (end - start[0]) / 1e9,
                settleSeconds, ioBefore);
    }

    private WorkloadResult measure(WorkloadType type, int position, KeyDistribution distribution,
                                   List<Recorder> measured, List<Recorder> all, Recorder writer, double seconds,
                                   double settleSeconds, ProcessIo ioBefore) {
        ProcessIo ioAfter = ProcessIo.read();
        long ops = 0;
        long misses = 0;
        long userBytes = 0;
        Histogram counted = new Histogram(Recorder.SIGNIFICANT_DIGITS);
        Map<Operation, Histogram> byOperation = Recorder.emptyByOperation();
        for (Recorder r : all) {
            userBytes += r.userBytesWritten();
            misses += r.misses();
            r.mergeInto(byOperation);
        }
        for (Recorder r : measured) {
            ops += r.ops();
            Map<Operation, Histogram> own = Recorder.emptyByOperation();
            r.mergeInto(own);
            own.values().forEach(counted::add);
        }
        long processBytes = ioBefore == null || ioAfter == null ? -1 : ioAfter.writtenSince(ioBefore, ioSource);
        Double wa = processBytes >= 0 && userBytes > 0 ? (double) processBytes / userBytes : null;
        long userSinceOpen = monitor.userBytesSinceOpen();
        Double cumulativeWa = ioAtOpen != null && ioAfter != null && userSinceOpen > 0
                ? (double) ioAfter.writtenSince(ioAtOpen, ioSource) / userSinceOpen : null;
        DiskUsage disk = DiskUsage.of(dir);
        long liveBytes = keyspace.liveRecords() * format.recordBytes();
        Double sa = liveBytes > 0 ? (double) disk.bytes() / liveBytes : null;
        Double saApparent = liveBytes > 0 ? (double) disk.apparentBytes() / liveBytes : null;
        DiskUsage peak = monitor.phasePeakDisk(disk);
        Double peakSa = liveBytes > 0 ? (double) peak.bytes() / liveBytes : null;
        return new WorkloadResult(engine.name(), type.label(), position,
                distribution == null ? null : distribution.label(), ops, seconds,
                writer == null ? 0 : writer.ops(), counted, byOperation, misses, userBytes, processBytes,
                ioSource, wa, cumulativeWa, settleSeconds, disk, liveBytes, sa, saApparent, peak, peakSa, engine.ownCounters());
    }

    private Pacer pacer(long startNanos) {
        return settings.openLoop() ? Pacer.openLoop(settings.rate() / settings.threads(), startNanos) : Pacer.closedLoop();
    }

    private Thread worker(String name, CountDownLatch go, Runnable body, Runnable onExit) {
        Thread t = new Thread(() -> {
            try {
                go.await();
                body.run();
            } catch (Throwable e) {
                failure.compareAndSet(null, e);
            } finally {
                onExit.run();
            }
        }, "bench-" + engine.name() + "-" + name);
        t.start();
        return t;
    }

    private boolean failed() {
        return failure.get() != null;
    }

    /** Writes records [from, to) of the fill order. */
    private void fill(WorkloadType type, long from, long to, Pacer pacer, Recorder rec, long salt) {
        RandomPermutation order = type.randomOrder() ? new RandomPermutation(keyspace.records(), settings.seed()) : null;
        Operation op = type.fillOperation();
        long bytes = format.recordBytes();
        for (long i = from; i < to && !failed(); i++) {
            long record = order == null ? i : order.apply(i);
            byte[] key = format.key(record);
            byte[] value = format.value(record, salt);
            long t0 = pacer.awaitStart(i - from);
            engine.put(key, value);
            rec.record(op, System.nanoTime() - t0, bytes);
        }
    }

    /** Issues {@code count} requests drawn from {@code mix}. */
    private void requests(WorkloadType type, KeyChooser chooser, SplittableRandom random, long count, Pacer pacer,
                          Recorder rec, long salt) {
        long bytes = format.recordBytes();
        WorkloadType.Mix mix = type.mix();
        int maxScan = settings.maxScanLength();
        int fixedScan = type.fixedScanLength() ? 1 + settings.scanLength() : 0;
        for (long i = 0; i < count && !failed(); i++) {
            Operation op = mix.pick(random.nextInt(100));
            long record = op == Operation.INSERT ? keyspace.allocate() : chooser.next(keyspace.readable());
            byte[] key = format.key(record);
            byte[] value = op.writes() ? format.value(record, salt) : null;
            int scanLength = op != Operation.SCAN ? 0 : fixedScan > 0 ? fixedScan : 1 + random.nextInt(maxScan);
            long t0 = pacer.awaitStart(i);
            switch (op) {
                case GET -> {
                    if (engine.get(key) == null) {
                        rec.miss();
                    }
                }
                case PUT, INSERT -> engine.put(key, value);
                case SCAN -> engine.scan(key, scanLength);
                case READ_MODIFY_WRITE -> {
                    if (engine.get(key) == null) {
                        rec.miss();
                    }
                    engine.put(key, value);
                }
            }
            rec.record(op, System.nanoTime() - t0, op.writes() ? bytes : 0);
            if (op == Operation.INSERT) {
                keyspace.acknowledge(record);
            }
        }
    }

    /** readwhilewriting's writer: unpaced overwrites until the readers finish, at most --ops of them. */
    private void write(KeyChooser chooser, CountDownLatch readersDone, Recorder rec, long salt) {
        long bytes = format.recordBytes();
        for (long i = 0; i < settings.ops() && readersDone.getCount() > 0 && !failed(); i++) {
            long record = chooser.next(keyspace.readable());
            byte[] key = format.key(record);
            byte[] value = format.value(record, salt);
            long t0 = System.nanoTime();
            engine.put(key, value);
            rec.record(Operation.PUT, System.nanoTime() - t0, bytes);
        }
    }
}
