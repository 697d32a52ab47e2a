package dev.strata.lsm.engine;

import dev.strata.lsm.ColumnFamily;
import dev.strata.lsm.FamilyOptions;
import dev.strata.lsm.LsmStore;
import dev.strata.lsm.StoreConfig;
import dev.strata.lsm.WalSyncMode;
import dev.strata.lsm.WriteBatch;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A read-only open of a store with column families beside a writer that flushes a family
 * during every staging attempt (the shape of {@code FamilyReadOnlyTest}'s busy writer, made
 * deterministic with {@link ReaderStaging#afterManifestsHook}): staging used to start again
 * whenever any manifest changed while the WAL was copied and gave up after 100 attempts; a
 * manifest edit that leaves the WAL segment the staged manifests replay from in place is
 * harmless, and the reader opens seeing every family at one batch.
 */
class ReaderStagingBusyWriterTest {
    @TempDir
    Path tmp;

    @AfterEach
    void clearHook() {
        ReaderStaging.afterManifestsHook = null;
    }

    private static StoreConfig config() {
        return StoreConfig.builder().walMode(WalSyncMode.ASYNC).atomicFlush(false)
                .mergePolicy("size-tiered", Map.of()).build();
    }

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static void writeBatch(LsmStore store, ColumnFamily a, ColumnFamily bFam, long i) {
        byte[] v = b(Long.toString(i));
        store.write(new WriteBatch().put(a, b("n"), v).put(bFam, b("n"), v).put(b("n"), v));
    }

    /**
     * Batches 1 to 50, a flush of every family (each family's log number then at one segment,
     * which family a's own flushes keep), batches 51 to 100; returns the next batch number.
     */
    private static long writeHundredBatches(LsmStore writer, ColumnFamily a, ColumnFamily bFam) {
        for (long i = 1; i <= 100; i++) {
            writeBatch(writer, a, bFam, i);
            if (i == 50) {
                writer.flush();
            }
        }
        return 101;
    }

    private static long read(LsmStore store, ColumnFamily family) {
        byte[] v = store.get(family, b("n"));
        return v == null ? 0 : Long.parseLong(new String(v, StandardCharsets.UTF_8));
    }

    @Test
    void aFamilyFlushedDuringEveryStagingDoesNotKeepTheReaderOut() {
        Path dir = tmp.resolve("s");
        try (LsmStore writer = LsmStore.open(dir, config())) {
            ColumnFamily a = writer.createColumnFamily("a", FamilyOptions.defaults());
            ColumnFamily bFam = writer.createColumnFamily("b", FamilyOptions.defaults());
            long[] next = {writeHundredBatches(writer, a, bFam)};
            int[] attempts = {0};
            ReaderStaging.afterManifestsHook = () -> {
                attempts[0]++;
                if (attempts[0] <= 2 * ReaderStaging.ATTEMPTS) { // bounded, so the old rule fails instead of hanging
                    writeBatch(writer, a, bFam, next[0]++);
                    writer.flushColumnFamily(a); // a's manifest changes after it was staged
                }
            };
            try (LsmStore reader = LsmStore.openReadOnly(dir, config())) {
                ReaderStaging.afterManifestsHook = null;
                long inDefault = read(reader, reader.defaultColumnFamily());
                assertTrue(inDefault >= 100, "every batch acknowledged before the open: " + inDefault);
                assertEquals(inDefault, read(reader, reader.columnFamily("a")), "family a at the same batch");
                assertEquals(inDefault, read(reader, reader.columnFamily("b")), "family b at the same batch");
                assertEquals(1, attempts[0], "staged once, the family flush notwithstanding");
            }
        }
    }

    @Test
    void everyFamilyFlushedDuringStagingsStillGivesOneBatchForAll() {
        Path dir = tmp.resolve("s");
        try (LsmStore writer = LsmStore.open(dir, config())) {
            ColumnFamily a = writer.createColumnFamily("a", FamilyOptions.defaults());
            ColumnFamily bFam = writer.createColumnFamily("b", FamilyOptions.defaults());
            long[] next = {writeHundredBatches(writer, a, bFam)};
            int[] attempts = {0};
            ReaderStaging.afterManifestsHook = () -> {
                attempts[0]++;
                if (attempts[0] <= 3) {
                    writeBatch(writer, a, bFam, next[0]++);
                    writer.flush(); // every family's manifest moves on; older WAL segments may go
                    writeBatch(writer, a, bFam, next[0]++);
                }
            };
            try (LsmStore reader = LsmStore.openReadOnly(dir, config())) {
                ReaderStaging.afterManifestsHook = null;
                long inDefault = read(reader, reader.defaultColumnFamily());
                assertEquals(next[0] - 1, inDefault, "the staging saw every batch written before its WAL copy");
                assertEquals(inDefault, read(reader, reader.columnFamily("a")), "family a at the same batch");
                assertEquals(inDefault, read(reader, reader.columnFamily("b")), "family b at the same batch");
            }
        }
    }
}
