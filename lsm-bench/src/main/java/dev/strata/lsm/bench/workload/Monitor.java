package dev.strata.lsm.bench.workload;

import java.io.PrintStream;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The once-a-second sampler of an engine run: appends a {@link Timeline.Sample} every
 * second and reports progress every two — a line to stderr when no terminal is attached
 * ({@code System.console() == null}: logs and pipes want whole lines), a redrawn bar
 * otherwise. It only reads the workers' counters, so the workers never wait for it.
 */
final class Monitor implements AutoCloseable {
    private static final long TICK_MILLIS = 1000;
    private static final int BAR_WIDTH = 30;

    private final String engine;
    private final long openNanos = System.nanoTime();
    private final ProcessIo ioAtOpen;
    private final String ioSource;
    private final PrintStream progress;
    private final boolean bar;
    private final Timeline timeline = new Timeline();
    private final Thread thread;

    // Guarded by this: the phase being run and the totals of the phases before it.
    private String phase = "opening";
    private long target;
    private List<Recorder> recorders = List.of();
    private long phaseStartNanos = openNanos;
    private long completedOps;
    private long completedUserBytes;
    private long lastReportOps;
    private long lastReportNanos = openNanos;
    private boolean barDrawn;
    private volatile boolean stop;
    private final java.nio.file.Path dir;
    // Guarded by this: the largest disk usage sampled since the phase began (-1: none yet).
    private long peakAllocated = -1;
    private long peakApparent = -1;

    /**
     * @param ioAtOpen process counters when the engine was opened, or null if unavailable
     * @param progress where progress goes, or null for none
     */
    Monitor(String engine, ProcessIo ioAtOpen, String ioSource, PrintStream progress) {
        this(engine, null, ioAtOpen, ioSource, progress);
    }

    /**
     * @param dir the engine's data directory, whose disk usage is sampled once a second for the
     *     phase's peak ({@link #phasePeakDisk}); null for none
     */
    Monitor(String engine, java.nio.file.Path dir, ProcessIo ioAtOpen, String ioSource, PrintStream progress) {
        this.dir = dir;
        this.engine = engine;
        this.ioAtOpen = ioAtOpen;
        this.ioSource = ioSource;
        this.progress = progress;
        this.bar = progress != null && System.console() != null;
        this.thread = new Thread(this::loop, "bench-monitor-" + engine);
        thread.setDaemon(true);
        thread.start();
    }

    Timeline timeline() {
        return timeline;
    }

    /** A workload starts: {@code target} requests on these recorders. */
    synchronized void begin(String workload, long target, List<Recorder> recorders) {
        this.phase = workload;
        this.target = target;
        this.peakAllocated = -1;
        this.peakApparent = -1;
        this.recorders = List.copyOf(recorders);
        this.phaseStartNanos = System.nanoTime();
        this.lastReportNanos = phaseStartNanos;
        this.lastReportOps = 0;
    }

    /** The workload's requests are done; {@code label} names what follows (e.g. settling). */
    synchronized void end(String label) {
        for (Recorder r : recorders) {
            completedOps += r.ops();
            completedUserBytes += r.userBytesWritten();
        }
        recorders = List.of();
        phase = label;
        target = 0;
        phaseStartNanos = System.nanoTime();
        if (barDrawn) {
            progress.println();
            barDrawn = false;
        }
    }

    /** Measures the directory (du for allocated blocks, a walk for file lengths) outside the lock. */
    private void sampleDisk() {
        DiskUsage d;
        try {
            d = DiskUsage.of(dir);
        } catch (java.io.UncheckedIOException e) {
            return; // the engine deleted files while we walked three times over: skip this second
        }
        synchronized (this) {
            peakAllocated = Math.max(peakAllocated, d.allocatedBytes());
            peakApparent = Math.max(peakApparent, d.apparentBytes());
        }
    }

    /**
     * The largest disk usage sampled (once a second, allocated blocks and file lengths each at
     * its own peak) since the current phase began, including {@code last} (a measurement at
     * the phase's end); allocated is -1 where du is unavailable.
     */
    synchronized DiskUsage phasePeakDisk(DiskUsage last) {
        long allocated = last.allocatedBytes() < 0 ? -1 : Math.max(peakAllocated, last.allocatedBytes());
        return new DiskUsage(allocated, Math.max(peakApparent, last.apparentBytes()));
    }

    /** Cumulative user bytes written since the engine was opened. */
    synchronized long userBytesSinceOpen() {
        long b = completedUserBytes;
        for (Recorder r : recorders) {
            b += r.userBytesWritten();
        }
        return b;
    }

    private void loop() {
        long tick = 0;
        while (!stop) {
            try {
                Thread.sleep(TICK_MILLIS);
            } catch (InterruptedException e) {
                return;
            }
            tick++;
            if (dir != null) {
                sampleDisk();
            }
            sample(tick % 2 == 0);
        }
    }

    private synchronized void sample(boolean report) {
        long now = System.nanoTime();
        long phaseOps = 0;
        long phaseBytes = 0;
        for (Recorder r : recorders) {
            phaseOps += r.ops();
            phaseBytes += r.userBytesWritten();
        }
        ProcessIo io = ioAtOpen == null ? null : ProcessIo.read();
        long processBytes = io == null ? -1 : io.writtenSince(ioAtOpen, ioSource);
        long userBytes = completedUserBytes + phaseBytes;
        timeline.add(new Timeline.Sample((now - openNanos) / 1e9, completedOps + phaseOps, userBytes, processBytes,
                phase));
        if (report && progress != null) {
            report(now, phaseOps, userBytes, processBytes);
        }
    }

    private void report(long now, long phaseOps, long userBytes, long processBytes) {
        double seconds = (now - phaseStartNanos) / 1e9;
        double rate = (phaseOps - lastReportOps) / Math.max(1e-9, (now - lastReportNanos) / 1e9);
        lastReportOps = phaseOps;
        lastReportNanos = now;
        String wa = processBytes >= 0 && userBytes > 0 ? String.format(", WA so far %.2f", (double) processBytes / userBytes)
                : "";
        if (target == 0) {
            progress.printf("[%s %s] %.0f s%s%n", engine, phase, seconds, wa);
            return;
        }
        double done = Math.min(1.0, (double) phaseOps / target);
        if (bar) {
            int filled = (int) Math.round(done * BAR_WIDTH);
            progress.printf("\r[%s %s] [%s%s] %3.0f%% %,.0f ops/s %.0f s%s   ", engine, phase, "#".repeat(filled),
                    " ".repeat(BAR_WIDTH - filled), done * 100, rate, seconds, wa);
            progress.flush();
            barDrawn = true;
        } else {
            progress.printf("[%s %s] %,d/%,d ops (%.0f%%), %,.0f ops/s, %.0f s%s%n", engine, phase, phaseOps, target,
                    done * 100, rate, seconds, wa);
        }
    }

    @Override
    public void close() {
        stop = true;
        thread.interrupt();
        try {
            thread.join(TimeUnit.SECONDS.toMillis(5));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        synchronized (this) {
            if (barDrawn) {
                progress.println();
                barDrawn = false;
            }
        }
    }
}
