package dev.strata.lsm.bench.workload;

import dev.strata.lsm.bench.engine.BenchEngine;
import dev.strata.lsm.bench.engine.BulkIngest;
import org.HdrHistogram.Histogram;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
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
    /** Counters a workload adds to the engine's in its result (the ingest workload's phases). */
    private final Map<String, Object> extraCounters = new java.util.LinkedHashMap<>();

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
        if (type.shape() == WorkloadType.Shape.INGEST) {
            return ingest(type, position);
        }
        if (type.shape() == WorkloadType.Shape.DELETE_RANGE) {
            return deleteRange(type, position);
        }
        if (type.request() != null && !engine.hasReadExtensions()) {
            DiskUsage disk = DiskUsage.of(dir);
            return new WorkloadResult(engine.name(), type.label(), position, null, 0, 0, 0,
                    new Histogram(Recorder.SIGNIFICANT_DIGITS), Recorder.emptyByOperation(), 0, 0, -1, ioSource, null,
                    null, 0, disk, keyspace.liveRecords() * format.recordBytes(), null, null, disk, null,
                    engine.ownCounters(), engine.name() + " has no " + type.request().label() + " in this driver");
        }
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
        Map<String, Object> counters = new java.util.LinkedHashMap<>(engine.ownCounters());
        counters.putAll(extraCounters);
        return new WorkloadResult(engine.name(), type.label(), position,
                distribution == null ? null : distribution.label(), ops, seconds,
                writer == null ? 0 : writer.ops(), counted, byOperation, misses, userBytes, processBytes,
                ioSource, wa, cumulativeWa, settleSeconds, disk, liveBytes, sa, saApparent, peak, peakSa, counters,
                null);
    }

    /** Keys the ingest workload reads back after ingesting (fewer when there are fewer records). */
    static final int INGEST_VERIFY_SAMPLE = 1000;

    /**
     * The ingest workload, on one thread: the records in key order into external table files
     * of {@code ingestFileRecords} records each (written beside the data directory, on the
     * same file system, by the engine's own table writer, each finished durably), then one
     * ingest call for all of them. The throughput counts both; the latency samples are one per
     * file written ({@link Operation#WRITE_FILE}) and one for the call ({@link Operation#INGEST}).
     * Afterwards, outside the timing, a sample of keys spread over the key space (first and
     * last included) must read back with the values written, and the key after the last must
     * be absent; a mismatch fails the run.
     */
    private WorkloadResult ingest(WorkloadType type, int position) {
        BulkIngest bulk = engine.bulkIngest();
        if (bulk == null) {
            DiskUsage disk = DiskUsage.of(dir);
            return new WorkloadResult(engine.name(), type.label(), position, null, 0, 0, 0,
                    new Histogram(Recorder.SIGNIFICANT_DIGITS), Recorder.emptyByOperation(), 0, 0, -1, ioSource, null,
                    null, 0, disk, keyspace.liveRecords() * format.recordBytes(), null, null, disk, null,
                    engine.ownCounters(), engine.name() + " has no ingest of external table files");
        }
        long salt = position + 1;
        long records = keyspace.records();
        long perFile = settings.ingestFileRecords();
        long bytesPerRecord = format.recordBytes();
        Path staging = dir.toAbsolutePath().resolveSibling(dir.getFileName() + ".ingest-files");
        Comparison.deleteTree(staging);
        try {
            Files.createDirectories(staging);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create " + staging, e);
        }
        Recorder rec = new Recorder(true);
        List<Path> files = new ArrayList<>();
        long fileBytes = 0;
        ProcessIo ioBefore = ProcessIo.read();
        monitor.begin(type.label(), records, List.of(rec));
        long start = System.nanoTime();
        long written;
        long end;
        try {
            for (long from = 0; from < records; from += perFile) {
                long to = Math.min(records, from + perFile);
                Path file = staging.resolve(String.format("ingest-%06d.sst", files.size()));
                long t0 = System.nanoTime();
                try (BulkIngest.TableFile f = bulk.create(file)) {
                    for (long r = from; r < to; r++) {
                        f.put(format.key(r), format.value(r, salt));
                    }
                    fileBytes += f.finish();
                }
                rec.recordBatch(Operation.WRITE_FILE, System.nanoTime() - t0, to - from, (to - from) * bytesPerRecord);
                files.add(file);
            }
            written = System.nanoTime();
            bulk.ingest(files, "full".equals(settings.ingestVerification()));
            end = System.nanoTime();
            rec.recordBatch(Operation.INGEST, end - written, 0, 0);
        } catch (RuntimeException e) {
            Comparison.deleteTree(staging); // files a failed ingest left: gigabytes, no diagnosis in them
            throw e;
        } finally {
            monitor.end(type.label() + " settling");
        }
        int verified = verifyIngested(records, salt);
        long s0 = System.nanoTime();
        engine.settle();
        double settleSeconds = (System.nanoTime() - s0) / 1e9;
        keyspace.markLoaded();
        Comparison.deleteTree(staging);
        extraCounters.put("ingestFiles", (long) files.size());
        extraCounters.put("ingestFileBytes", fileBytes);
        extraCounters.put("ingestWriteFilesSeconds", (written - start) / 1e9);
        extraCounters.put("ingestCallSeconds", (end - written) / 1e9);
        extraCounters.put("ingestVerifiedKeys", (long) verified);
        try {
            return measure(type, position, null, List.of(rec), List.of(rec), null, (end - start) / 1e9, settleSeconds,
                    ioBefore);
        } finally {
            extraCounters.clear();
        }
    }

    /** Records the deleterange workload deletes each way (fewer when there are fewer than twice as many records). */
    static final long DELETE_RANGE_RECORDS = 1_000_000;
    /** Gets over a deleted range after each half of the deleterange workload. */
    static final int DELETED_GETS = 1000;

    /**
     * The deleterange workload, on one thread, on the loaded records: records {@code [0, m)}
     * deleted by one range delete, then records {@code [m, 2m)} one by one, with
     * {@code m = min(1,000,000, records / 2)}. Each half is timed (the call or calls only) and
     * then settled (memtable flushed, merges done); its bytes written are the process's from
     * its start to the end of its settling. Over each deleted range, before and after settling,
     * {@value #DELETED_GETS} gets spread over it (each must find nothing) and one scan from its
     * first key (which must land on the first record after it) are timed. The figures are
     * counters of the result ({@code deleteRange*}, {@code pointDelete*}).
     */
    private WorkloadResult deleteRange(WorkloadType type, int position) {
        if (!engine.hasDeleteRange()) {
            DiskUsage disk = DiskUsage.of(dir);
            return new WorkloadResult(engine.name(), type.label(), position, null, 0, 0, 0,
                    new Histogram(Recorder.SIGNIFICANT_DIGITS), Recorder.emptyByOperation(), 0, 0, -1, ioSource, null,
                    null, 0, disk, keyspace.liveRecords() * format.recordBytes(), null, null, disk, null,
                    engine.ownCounters(), engine.name() + " has no range delete");
        }
        if (!keyspace.loaded() || keyspace.records() < 2) {
            throw new IllegalStateException("deleterange deletes loaded records: run it after a fill of at least 2 "
                    + "records (e.g. --workloads fillseq,deleterange)");
        }
        long m = Math.min(DELETE_RANGE_RECORDS, keyspace.records() / 2);
        Recorder rec = new Recorder(true);
        ProcessIo ioBefore = ProcessIo.read();
        monitor.begin(type.label(), 2 * m, List.of(rec));
        double settleSeconds = 0;
        long callNanos;
        try {
            // One range delete of [0, m).
            ProcessIo p0 = ProcessIo.read();
            long t0 = System.nanoTime();
            engine.deleteRange(format.key(0), format.key(m));
            long t1 = System.nanoTime();
            rec.recordBatch(Operation.DELETE_RANGE, t1 - t0, m, 0);
            readBackDeleted("deleteRange", 0, m, "");
            long s0 = System.nanoTime();
            engine.settle();
            long s1 = System.nanoTime();
            ProcessIo p1 = ProcessIo.read();
            readBackDeleted("deleteRange", 0, m, "Settled");
            extraCounters.put("deleteRangeRecords", m);
            extraCounters.put("deleteRangeSeconds", (t1 - t0) / 1e9);
            extraCounters.put("deleteRangeSettleSeconds", (s1 - s0) / 1e9);
            extraCounters.put("deleteRangeBytesWritten", p0 == null || p1 == null ? -1 : p1.writtenSince(p0, ioSource));

            // The next m records one delete at a time.
            ProcessIo p2 = ProcessIo.read();
            long t2 = System.nanoTime();
            for (long r = m; r < 2 * m; r++) {
                long d0 = System.nanoTime();
                engine.delete(format.key(r));
                rec.record(Operation.DELETE, System.nanoTime() - d0, 0);
            }
            long t3 = System.nanoTime();
            readBackDeleted("pointDelete", m, 2 * m, "");
            long s2 = System.nanoTime();
            engine.settle();
            long s3 = System.nanoTime();
            ProcessIo p3 = ProcessIo.read();
            readBackDeleted("pointDelete", m, 2 * m, "Settled");
            extraCounters.put("pointDeleteRecords", m);
            extraCounters.put("pointDeleteSeconds", (t3 - t2) / 1e9);
            extraCounters.put("pointDeleteSettleSeconds", (s3 - s2) / 1e9);
            extraCounters.put("pointDeleteBytesWritten", p2 == null || p3 == null ? -1 : p3.writtenSince(p2, ioSource));
            callNanos = (t1 - t0) + (t3 - t2);
            settleSeconds = ((s1 - s0) + (s3 - s2)) / 1e9;
        } finally {
            monitor.end(type.label() + " done");
        }
        try {
            return measure(type, position, null, List.of(rec), List.of(rec), null, callNanos / 1e9, settleSeconds,
                    ioBefore);
        } finally {
            extraCounters.clear();
        }
    }

    /**
     * Times {@value #DELETED_GETS} gets spread over the deleted records {@code [from, to)} and a
     * scan of one record from {@code from}; throws if a deleted record is found or the scan
     * does not land on record {@code to}. Counters {@code <prefix>Get<suffix>Micros} (mean per
     * get) and {@code <prefix>Scan<suffix>Millis}.
     */
    private void readBackDeleted(String prefix, long from, long to, String suffix) {
        long n = Math.min(DELETED_GETS, to - from);
        long g0 = System.nanoTime();
        for (long i = 0; i < n; i++) {
            long record = from + (n == 1 ? 0 : i * (to - from - 1) / (n - 1));
            if (engine.get(format.key(record)) != null) {
                throw new IllegalStateException(engine.name() + " deleterange: record " + record
                        + " is present after it was deleted");
            }
        }
        long g1 = System.nanoTime();
        long c0 = System.nanoTime();
        int read = engine.scan(format.key(from), 1);
        long c1 = System.nanoTime();
        if (to < keyspace.records() && read != 1) {
            throw new IllegalStateException(engine.name() + " deleterange: a scan from deleted record " + from
                    + " found " + read + " records, expected record " + to);
        }
        extraCounters.put(prefix + "Get" + suffix + "Micros", (g1 - g0) / 1e3 / n);
        extraCounters.put(prefix + "Scan" + suffix + "Millis", (c1 - c0) / 1e6);
    }

    /** Reads back a sample of the ingested records; throws if one is missing or wrong. Returns keys checked. */
    private int verifyIngested(long records, long salt) {
        int checked = 0;
        long samples = Math.min(records, INGEST_VERIFY_SAMPLE);
        for (long i = 0; i < samples; i++) {
            long record = samples == 1 ? 0 : i * (records - 1) / (samples - 1);
            byte[] got = engine.get(format.key(record));
            if (!Arrays.equals(got, format.value(record, salt))) {
                throw new IllegalStateException(engine.name() + " ingest: record " + record + " of " + records
                        + (got == null ? " is missing" : " has a wrong value") + " after the ingest");
            }
            checked++;
        }
        if (engine.get(format.key(records)) != null) {
            throw new IllegalStateException(engine.name() + " ingest: record " + records
                    + ", never written, is present after the ingest");
        }
        return checked + 1;
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
            byte[] key = format.key(type == WorkloadType.FILLSPARSE ? RecordFormat.sparseRecord(record) : record);
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
            Operation op = type.request() != null ? type.request() : mix.pick(random.nextInt(100));
            long record = op == Operation.INSERT ? keyspace.allocate() : chooser.next(keyspace.readable());
            byte[] key = format.key(record);
            byte[] value = op.writes() ? format.value(record, salt) : null;
            int scanLength = op == Operation.REVERSE_SCAN ? settings.scanLength()
                    : op != Operation.SCAN ? 0 : fixedScan > 0 ? fixedScan : 1 + random.nextInt(maxScan);
            if (op == Operation.MERGE || op == Operation.COUNTER_RMW) {
                key[0] = 1; // the counters' own key space, after every record
            }
            byte[] absent = type == WorkloadType.PREFIXABSENT
                    ? format.absentPrefix(record, 1 + random.nextInt(RecordFormat.SPARSE_SPACING - 1)) : null;
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
                case REVERSE_SCAN -> engine.scanReverse(key, scanLength);
                case PREFIX_SCAN -> {
                    if (type == WorkloadType.PREFIXABSENT) {
                        int found = engine.scanPrefix(absent);
                        if (found != 0) {
                            throw new IllegalStateException("prefixabsent found " + found + " records under an "
                                    + "absent prefix: run it after fillsparse (not after another fill)");
                        }
                        rec.miss();
                    } else if (engine.scanPrefix(java.util.Arrays.copyOf(key, key.length - 1)) == 0) {
                        rec.miss();
                    }
                }
                case MERGE -> engine.mergeAdd(key, 1);
                case COUNTER_RMW -> {
                    byte[] old = engine.get(key);
                    if (old == null) {
                        rec.miss();
                    }
                    long sum = (old == null ? 0 : java.nio.ByteBuffer.wrap(old).getLong()) + 1;
                    engine.put(key, java.nio.ByteBuffer.allocate(8).putLong(sum).array());
                }
                default -> throw new IllegalStateException("no request " + op);
            }
            rec.record(op, System.nanoTime() - t0, op.writes() ? bytes
                    : op == Operation.MERGE || op == Operation.COUNTER_RMW ? key.length + 8 : 0);
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
