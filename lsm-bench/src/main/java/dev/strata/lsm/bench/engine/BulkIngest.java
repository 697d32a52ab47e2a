package dev.strata.lsm.bench.engine;

import java.nio.file.Path;
import java.util.List;

/**
 * An engine's bulk load of external table files: write sorted records into files outside
 * the store with the engine's own table writer, then hand the files to the store in one
 * call (Strata's {@code TableWriter} and {@code LsmStore.ingest}, RocksDB's
 * {@code SstFileWriter} and {@code ingestExternalFile}). The driver's {@code ingest}
 * workload uses it; {@link BenchEngine#bulkIngest()} is null for engines without such a call.
 */
public interface BulkIngest {

    /** One external table file being written; close it (a file not finished is deleted or unusable). */
    interface TableFile extends AutoCloseable {
        /** Adds {@code key} = {@code value}; keys come in strictly increasing unsigned order. */
        void put(byte[] key, byte[] value);

        /** Completes the file (durably, as both engines' writers do) and returns its size in bytes. */
        long finish();

        @Override
        void close();
    }

    /** Creates the external table file {@code file}, which must not exist, for this engine's store. */
    TableFile create(Path file);

    /**
     * Ingests {@code files} (disjoint key ranges) in one call; the store takes them over and the
     * paths no longer exist afterwards (RocksDB moves them, Strata copies and deletes them).
     */
    default void ingest(List<Path> files) {
        ingest(files, true);
    }

    /**
     * {@link #ingest(List)}; {@code fullVerification} false lets an engine that has a lighter
     * check of its own writer's files use it (Strata: {@code IngestOptions.Verification.INDEX});
     * an engine without the choice ignores it.
     */
    void ingest(List<Path> files, boolean fullVerification);

    /** How the files get into the store, in one line. */
    String describe();
}
