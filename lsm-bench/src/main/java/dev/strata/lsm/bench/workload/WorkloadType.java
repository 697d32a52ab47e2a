package dev.strata.lsm.bench.workload;

import java.util.Arrays;
import java.util.List;

/**
 * The workloads, by their pinned names: db_bench's {@code fillrandom}, {@code fillseq},
 * {@code readrandom}, {@code overwrite}, {@code readwhilewriting} and {@code seekrandom}, RocksDB's bulk
 * load ({@code ingest}), and YCSB's
 * {@code load} and core workloads {@code a}–{@code f} (Cooper et al., SoCC 2010).
 */
public enum WorkloadType {
    /** Every record once, in random key order. */
    FILLRANDOM("fillrandom", Shape.FILL, Operation.PUT, true, null, Mix.NONE),
    /** Every record once, in key order. */
    FILLSEQ("fillseq", Shape.FILL, Operation.PUT, false, null, Mix.NONE),
    /**
     * Every record once, in key order, written into external table files of
     * {@code --ingest-file-records} records by the engine's own table writer and bulk-loaded
     * with one ingest call (engines without one report it as not supported). Always on an
     * empty store.
     */
    INGEST("ingest", Shape.INGEST, null, false, null, Mix.NONE),
    /** Point reads of existing records. */
    READRANDOM("readrandom", Shape.REQUESTS, null, false, KeyDistribution.UNIFORM, new Mix(100, 0, 0, 0, 0)),
    /** New values for existing records. */
    OVERWRITE("overwrite", Shape.REQUESTS, null, false, KeyDistribution.UNIFORM, new Mix(0, 100, 0, 0, 0)),
    /** Reader threads doing point reads while one more thread overwrites; throughput counts the reads. */
    READWHILEWRITING("readwhilewriting", Shape.READ_WHILE_WRITING, null, false, KeyDistribution.UNIFORM,
            new Mix(100, 0, 0, 0, 0)),
    /**
     * db_bench's {@code seekrandom}: seek to a uniformly chosen existing key and read the
     * next {@code --scan-length} records after it (db_bench's seek_nexts).
     */
    SEEKRANDOM("seekrandom", Shape.REQUESTS, null, false, KeyDistribution.UNIFORM, new Mix(0, 0, 0, 100, 0)),
    /**
     * Range deletes against point deletes, on loaded records (run it after a fill): the first
     * {@code min(1,000,000, records / 2)} records deleted by one range delete, the next as many
     * one by one; each half timed, its bytes written counted through its settling, and read
     * back (gets and a scan over the deleted keys) before and after settling. Engines without a
     * range delete report it as not supported.
     */
    DELETERANGE("deleterange", Shape.DELETE_RANGE, null, false, null, Mix.NONE),
    /**
     * Forward scans: seek to a uniformly chosen existing key and read {@code --scan-length}
     * records forwards; the baseline of {@code scanreverse} over the same data.
     */
    SCANFORWARD("scanforward", Shape.REQUESTS, null, false, KeyDistribution.UNIFORM, new Mix(0, 0, 0, 100, 0)),
    /**
     * Reverse scans: seekForPrev to a uniformly chosen existing key and read
     * {@code --scan-length} records backwards (RocksDB's {@code seekForPrev}/{@code prev},
     * Strata's cursor {@code seekForPrev}/{@code prev}).
     */
    SCANREVERSE("scanreverse", Shape.REQUESTS, null, false, KeyDistribution.UNIFORM, new Mix(0, 0, 0, 100, 0)),
    /**
     * Counter increments by one merge call each (uint64add) on {@code records} counters of
     * their own key space (the record keys with their first byte 0x01, after every record).
     */
    COUNTERMERGE("countermerge", Shape.REQUESTS, null, false, KeyDistribution.UNIFORM, new Mix(0, 100, 0, 0, 0)),
    /** The same counter increments as {@code countermerge}, each a get then a put of the sum. */
    COUNTERRMW("counterrmw", Shape.REQUESTS, null, false, KeyDistribution.UNIFORM, new Mix(0, 100, 0, 0, 0)),
    /**
     * Prefix scans: every record whose key shares the first {@code keySize - 1} bytes of a
     * uniformly chosen existing key (up to 256 records), with the engine's prefix extractor
     * when the config sets one ({@code <sstable prefixBloom="fixed:N"/>}).
     */
    PREFIXSCAN("prefixscan", Shape.REQUESTS, null, false, KeyDistribution.UNIFORM, new Mix(0, 0, 0, 100, 0)),
    /**
     * A sparse fill for {@code prefixabsent}: every record once, in random order, but record r
     * under the prefix group ({@code keySize - 1} leading key bytes) {@code (r >>> 8) * 16}
     * ({@link RecordFormat#sparseRecord}), so one prefix in {@value RecordFormat#SPARSE_SPACING}
     * holds keys (256 each) and the fifteen after it hold none. Other read workloads address the
     * dense record numbers and miss after it; run {@code prefixabsent} (or only fills) after it.
     */
    FILLSPARSE("fillsparse", Shape.FILL, Operation.PUT, true, null, Mix.NONE),
    /**
     * Prefix scans of absent prefixes, after {@code fillsparse}: the prefix of a uniformly
     * chosen empty group between two filled ones, so within every table's key bounds; with a
     * prefix bloom ({@code <sstable prefixBloom="fixed:N"/>}, {@code N = keySize - 1}) a table
     * can be skipped without reading a page. A scan that finds a record fails the run (the
     * store was not filled by {@code fillsparse}).
     */
    PREFIXABSENT("prefixabsent", Shape.REQUESTS, null, false, KeyDistribution.UNIFORM, new Mix(0, 0, 0, 100, 0)),
    /** YCSB load: every record once, in hashed (random) key order as YCSB's default insertorder=hashed. */
    LOAD("load", Shape.FILL, Operation.INSERT, true, null, Mix.NONE),
    /** YCSB A, update heavy: 50% reads, 50% updates. */
    A("a", Shape.REQUESTS, null, false, KeyDistribution.ZIPFIAN, new Mix(50, 50, 0, 0, 0)),
    /** YCSB B, read mostly: 95% reads, 5% updates. */
    B("b", Shape.REQUESTS, null, false, KeyDistribution.ZIPFIAN, new Mix(95, 5, 0, 0, 0)),
    /** YCSB C, read only. */
    C("c", Shape.REQUESTS, null, false, KeyDistribution.ZIPFIAN, new Mix(100, 0, 0, 0, 0)),
    /** YCSB D, read latest: 95% reads favouring recent inserts, 5% inserts. */
    D("d", Shape.REQUESTS, null, false, KeyDistribution.LATEST, new Mix(95, 0, 5, 0, 0)),
    /** YCSB E, short ranges: 95% scans of 1..100 records, 5% inserts. */
    E("e", Shape.REQUESTS, null, false, KeyDistribution.ZIPFIAN, new Mix(0, 0, 5, 95, 0)),
    /** YCSB F, read-modify-write: 50% reads, 50% read-modify-writes. */
    F("f", Shape.REQUESTS, null, false, KeyDistribution.ZIPFIAN, new Mix(50, 0, 0, 0, 50));

    /** How the driver runs a workload. */
    public enum Shape {
        /** Writes each of the records once, split among the threads. */
        FILL,
        /** Issues --ops requests drawn from the mix, split among the threads. */
        REQUESTS,
        /** REQUESTS on the reader threads, plus one unpaced writer thread. */
        READ_WHILE_WRITING,
        /** Writes each of the records once into external table files on one thread, then ingests them. */
        INGEST,
        /** Deletes half the records (at most 1M each way) by one range delete and one by one, on one thread. */
        DELETE_RANGE
    }

    /** Percentages of reads, updates, inserts, scans and read-modify-writes; they sum to 100. */
    public record Mix(int read, int update, int insert, int scan, int readModifyWrite) {
        static final Mix NONE = new Mix(0, 0, 0, 0, 0);

        /** The operation for a uniform draw {@code percent} in [0, 100). */
        public Operation pick(int percent) {
            int p = percent;
            if ((p -= read) < 0) {
                return Operation.GET;
            }
            if ((p -= update) < 0) {
                return Operation.PUT;
            }
            if ((p -= insert) < 0) {
                return Operation.INSERT;
            }
            if ((p -= scan) < 0) {
                return Operation.SCAN;
            }
            return Operation.READ_MODIFY_WRITE;
        }
    }

    private final String label;
    private final Shape shape;
    private final Operation fillOperation;
    private final boolean randomOrder;
    private final KeyDistribution defaultDistribution;
    private final Mix mix;

    WorkloadType(String label, Shape shape, Operation fillOperation, boolean randomOrder,
                 KeyDistribution defaultDistribution, Mix mix) {
        this.label = label;
        this.shape = shape;
        this.fillOperation = fillOperation;
        this.randomOrder = randomOrder;
        this.defaultDistribution = defaultDistribution;
        this.mix = mix;
    }

    /** The pinned name. */
    public String label() {
        return label;
    }

    public Shape shape() {
        return shape;
    }

    /** The operation a fill records (PUT or INSERT); null for the others. */
    public Operation fillOperation() {
        return fillOperation;
    }

    /** True when a fill writes in random key order. */
    public boolean randomOrder() {
        return randomOrder;
    }

    /** The key distribution YCSB or db_bench use for this workload; null for fills. */
    public KeyDistribution defaultDistribution() {
        return defaultDistribution;
    }

    public Mix mix() {
        return mix;
    }

    /** True when the workload writes: fills, and mixes with updates, inserts or read-modify-writes. */
    public boolean writes() {
        return shape != Shape.REQUESTS || mix.update() + mix.insert() + mix.readModifyWrite() > 0;
    }

    /** True when every scan reads the fixed {@code --scan-length} records (seekrandom), not 1..max. */
    public boolean fixedScanLength() {
        return this == SEEKRANDOM || this == SCANFORWARD || this == SCANREVERSE;
    }

    /**
     * The one operation every request of the workload is, for the workloads that measure one
     * engine call (reverse scans, counters, prefix scans); null when the mix decides.
     */
    public Operation request() {
        return switch (this) {
            case SCANREVERSE -> Operation.REVERSE_SCAN;
            case COUNTERMERGE -> Operation.MERGE;
            case COUNTERRMW -> Operation.COUNTER_RMW;
            case PREFIXSCAN, PREFIXABSENT -> Operation.PREFIX_SCAN;
            default -> null;
        };
    }

    /** True when the workload writes the {@code records} records of the key space: fills and ingest. */
    public boolean loads() {
        return shape == Shape.FILL || shape == Shape.INGEST;
    }

    /** The pinned names of all workloads. */
    public static List<String> labels() {
        return Arrays.stream(values()).map(WorkloadType::label).toList();
    }

    /**
     * The workload called {@code name}.
     *
     * @throws IllegalArgumentException naming the allowed names
     */
    public static WorkloadType parse(String name) {
        for (WorkloadType w : values()) {
            if (w.label.equals(name)) {
                return w;
            }
        }
        throw new IllegalArgumentException("unknown workload '" + name + "': choose from " + labels());
    }
}
