package dev.strata.lsm.bench.workload;

import java.util.List;

/**
 * Everything that shapes the operation stream of a run, validated: the same settings give
 * every engine the same keys, values and request sequence.
 *
 * @param workloads run in this order on one store
 * @param records records the fills write and the key space of the requests
 * @param ops requests per request workload
 * @param keySize bytes per key
 * @param valueSize bytes per value
 * @param threads worker threads (readers, for readwhilewriting)
 * @param seed seeds keys' order, values and request choices
 * @param distribution overrides each workload's default key distribution; null keeps them
 * @param zipfTheta skew of zipfian and latest
 * @param rate total requests per second for an open-loop run; null for closed loop
 * @param maxScanLength scans of the YCSB workloads read 1..maxScanLength records
 * @param scanLength records seekrandom reads after the key it seeks to
 * @param valueCompressibility values compress to about this fraction of their size (db_bench's
 *     {@code compression_ratio}; 1.0, the default, for random values)
 * @param ingestFileRecords records per external table file of the ingest workload
 * @param ingestVerification how Strata's ingest checks the files: {@code full} (every page, its
 *     default) or {@code index} ({@code IngestOptions.Verification.INDEX}); RocksDB's ingest
 *     always runs with its default ({@code verify_checksums_before_ingest=false})
 */
public record WorkloadSettings(List<WorkloadType> workloads, long records, long ops, int keySize, int valueSize,
                               int threads, long seed, KeyDistribution distribution, double zipfTheta, Double rate,
                               int maxScanLength, int scanLength, double valueCompressibility, long ingestFileRecords,
                               String ingestVerification) {

    /** Settings with Strata's default (full) ingest verification. */
    public WorkloadSettings(List<WorkloadType> workloads, long records, long ops, int keySize, int valueSize,
                            int threads, long seed, KeyDistribution distribution, double zipfTheta, Double rate,
                            int maxScanLength, int scanLength, double valueCompressibility, long ingestFileRecords) {
        this(workloads, records, ops, keySize, valueSize, threads, seed, distribution, zipfTheta, rate, maxScanLength,
                scanLength, valueCompressibility, ingestFileRecords, "full");
    }

    /** Settings with random (incompressible) values. */
    public WorkloadSettings(List<WorkloadType> workloads, long records, long ops, int keySize, int valueSize,
                            int threads, long seed, KeyDistribution distribution, double zipfTheta, Double rate,
                            int maxScanLength, int scanLength, long ingestFileRecords) {
        this(workloads, records, ops, keySize, valueSize, threads, seed, distribution, zipfTheta, rate, maxScanLength,
                scanLength, 1.0, ingestFileRecords);
    }

    /** YCSB's default maximum scan length. */
    public static final int DEFAULT_MAX_SCAN_LENGTH = 100;
    /** seekrandom's default: seek, then 50 nexts (the peer comparison of issue 11). */
    public static final int DEFAULT_SCAN_LENGTH = 50;
    /** The ingest workload's default file size in records. */
    public static final long DEFAULT_INGEST_FILE_RECORDS = 1_000_000;

    /** Settings with the ingest workload's default file size. */
    public WorkloadSettings(List<WorkloadType> workloads, long records, long ops, int keySize, int valueSize,
                            int threads, long seed, KeyDistribution distribution, double zipfTheta, Double rate,
                            int maxScanLength, int scanLength) {
        this(workloads, records, ops, keySize, valueSize, threads, seed, distribution, zipfTheta, rate, maxScanLength,
                scanLength, DEFAULT_INGEST_FILE_RECORDS);
    }

    /** Settings with seekrandom's default scan length. */
    public WorkloadSettings(List<WorkloadType> workloads, long records, long ops, int keySize, int valueSize,
                            int threads, long seed, KeyDistribution distribution, double zipfTheta, Double rate,
                            int maxScanLength) {
        this(workloads, records, ops, keySize, valueSize, threads, seed, distribution, zipfTheta, rate, maxScanLength,
                DEFAULT_SCAN_LENGTH);
    }

    /** @throws IllegalArgumentException naming the first bad value */
    public WorkloadSettings {
        workloads = List.copyOf(workloads);
        if (workloads.isEmpty()) {
            throw new IllegalArgumentException("give at least one workload");
        }
        if (records < 1) {
            throw new IllegalArgumentException("--records must be at least 1, got " + records);
        }
        if (ops < 1) {
            throw new IllegalArgumentException("--ops must be at least 1, got " + ops);
        }
        if (keySize < RecordFormat.MIN_KEY_SIZE || keySize > 1024) {
            throw new IllegalArgumentException("--key-size must be from " + RecordFormat.MIN_KEY_SIZE
                    + " to 1024, got " + keySize);
        }
        if (valueSize < 0 || valueSize > (16 << 20)) {
            throw new IllegalArgumentException("--value-size must be from 0 to 16 MiB, got " + valueSize);
        }
        if (threads < 1 || threads > 1024) {
            throw new IllegalArgumentException("--threads must be from 1 to 1024, got " + threads);
        }
        if (!(zipfTheta > 0 && zipfTheta < 1)) {
            throw new IllegalArgumentException("--zipf-theta must be in (0, 1), got " + zipfTheta);
        }
        if (rate != null && !(rate > 0 && rate <= 1e9)) {
            throw new IllegalArgumentException("--rate must be a positive number of operations per second, got "
                    + rate);
        }
        if (maxScanLength < 1) {
            throw new IllegalArgumentException("the maximum scan length must be at least 1, got " + maxScanLength);
        }
        if (!(valueCompressibility > 0 && valueCompressibility <= 1)) {
            throw new IllegalArgumentException("--value-compressibility must be in (0, 1], got " + valueCompressibility);
        }
        if (scanLength < 0 || scanLength > 1_000_000) {
            throw new IllegalArgumentException("--scan-length must be from 0 to 1000000, got " + scanLength);
        }
        if (ingestFileRecords < 1) {
            throw new IllegalArgumentException("--ingest-file-records must be at least 1, got " + ingestFileRecords);
        }
        if (!"full".equals(ingestVerification) && !"index".equals(ingestVerification)) {
            throw new IllegalArgumentException("--ingest-verification must be full or index, got " + ingestVerification);
        }
    }

    /** The distribution {@code workload} uses: the override, else its default (null for fills). */
    public KeyDistribution distributionOf(WorkloadType workload) {
        if (workload.loads()) {
            return null;
        }
        return distribution != null ? distribution : workload.defaultDistribution();
    }

    /** True for an open-loop run. */
    public boolean openLoop() {
        return rate != null;
    }
}
