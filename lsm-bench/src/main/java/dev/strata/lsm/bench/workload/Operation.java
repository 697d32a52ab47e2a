package dev.strata.lsm.bench.workload;

/** The kinds of request a workload issues; latency is reported per kind. */
public enum Operation {
    /** A point read. */
    GET("get"),
    /** A write of a record that exists (or is being loaded): fills, overwrites, YCSB updates. */
    PUT("put"),
    /** A write of a new record appended to the key space (YCSB load, d and e). */
    INSERT("insert"),
    /** A range read of 1..max-scan-length records (YCSB e). */
    SCAN("scan"),
    /** A read followed by a write of the same record, timed as one request (YCSB f). */
    READ_MODIFY_WRITE("rmw"),
    /** The ingest workload: writing one external table file, from creating it to its durable finish. */
    WRITE_FILE("write-file"),
    /** The ingest workload: the one call that ingests all the external table files. */
    INGEST("ingest"),
    /** The deleterange workload: one point delete. */
    DELETE("delete"),
    /** The deleterange workload: the one call that deletes a range of records. */
    DELETE_RANGE("delete-range"),
    /** A range read of --scan-length records backwards from a seekForPrev. */
    REVERSE_SCAN("reverse-scan"),
    /** A counter increment by one merge call (uint64add). */
    MERGE("merge"),
    /** A counter increment by a get, then a put of the sum, timed as one request. */
    COUNTER_RMW("counter-rmw"),
    /** A read of every record with a key prefix. */
    PREFIX_SCAN("prefix-scan");

    private final String label;

    Operation(String label) {
        this.label = label;
    }

    /** The name used in tables and JSON. */
    public String label() {
        return label;
    }

    /** True for operations that write user bytes. */
    public boolean writes() {
        return this == PUT || this == INSERT || this == READ_MODIFY_WRITE;
    }
}
