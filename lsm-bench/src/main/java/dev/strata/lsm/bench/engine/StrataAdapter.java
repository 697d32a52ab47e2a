package dev.strata.lsm.bench.engine;

import dev.strata.lsm.Cursor;
import dev.strata.lsm.IngestOptions;
import dev.strata.lsm.LsmStore;
import dev.strata.lsm.StoreConfig;
import dev.strata.lsm.StoreStats;
import dev.strata.lsm.TableWriter;
import dev.strata.lsm.io.IoPurpose;
import dev.strata.lsm.policy.MergePolicies;
import dev.strata.lsm.policy.vlsm.VlsmCensus;
import dev.strata.lsm.policy.vlsm.VlsmPolicy;
import dev.strata.lsm.WalSyncMode;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Strata's {@link LsmStore} as a {@link BenchEngine}, opened with the given configuration. */
final class StrataAdapter implements BenchEngine {
    static final String NAME = "strata";

    private final LsmStore store;
    /** The store's vlsm instance, whose census the counters report; null for other policies. */
    private final VlsmPolicy vlsm;

    StrataAdapter(Path dir, StoreConfig config) {
        // The counter workloads merge with uint64add: open with it unless the config names an operator.
        StoreConfig.Builder b = config.toBuilder();
        if (config.mergeOperator() == null) {
            b.mergeOperator("uint64add");
        }
        // vlsm by name: open it as an instance made from the same name and parameters, so that
        // its census (good vSSTs, level-1 -> level-2 merges) can be reported.
        if (config.mergePolicyInstance() == null && "vlsm".equals(config.mergePolicy())) {
            this.vlsm = (VlsmPolicy) MergePolicies.create("vlsm", config.mergePolicyParams());
            b.mergePolicy(vlsm);
        } else {
            this.vlsm = null;
        }
        this.store = LsmStore.open(dir, b.build());
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String describe() {
        return store.config().toString();
    }

    @Override
    public String durability() {
        WalSyncMode mode = store.config().walMode();
        return switch (mode) {
            case ASYNC -> "WAL mode async: each group commit is written to the OS, no fsync";
            case SYNC -> "WAL mode sync: fsync per group commit";
            case NONE -> "WAL mode none: log buffered in the process, lost on a kill";
        };
    }

    @Override
    public void put(byte[] key, byte[] value) {
        store.put(key, value);
    }

    @Override
    public byte[] get(byte[] key) {
        return store.get(key);
    }

    @Override
    public void delete(byte[] key) {
        store.delete(key);
    }

    @Override
    public boolean hasDeleteRange() {
        return true;
    }

    @Override
    public void deleteRange(byte[] fromInclusive, byte[] toExclusive) {
        store.deleteRange(fromInclusive, toExclusive);
    }

    @Override
    public int scan(byte[] from, int count) {
        int n = 0;
        // No upper bound: YCSB scans ask for a count, not a range.
        try (Cursor c = store.scan(from, null)) {
            while (n < count && c.next()) {
                if (c.key() == null || c.value() == null) {
                    throw new IllegalStateException("strata cursor returned a null entry");
                }
                n++;
            }
        }
        return n;
    }

    @Override
    public boolean hasReadExtensions() {
        return true;
    }

    @Override
    public int scanReverse(byte[] from, int count) {
        int n = 0;
        try (Cursor c = store.scan(null, null)) {
            for (boolean on = c.seekForPrev(from); on && n < count; on = c.prev()) {
                if (c.key() == null || c.value() == null) {
                    throw new IllegalStateException("strata cursor returned a null entry");
                }
                n++;
            }
        }
        return n;
    }

    @Override
    public void mergeAdd(byte[] key, long delta) {
        store.merge(key, java.nio.ByteBuffer.allocate(8).putLong(delta).array());
    }

    @Override
    public int scanPrefix(byte[] prefix) {
        int n = 0;
        try (Cursor c = store.scanPrefix(prefix)) {
            while (c.next()) {
                if (c.key() == null || c.value() == null) {
                    throw new IllegalStateException("strata cursor returned a null entry");
                }
                n++;
            }
        }
        return n;
    }

    @Override
    public void settle() {
        store.flush();
        store.awaitMerges();
    }

    /**
     * {@link TableWriter} with the store's configuration (page size, bloom density, limits),
     * then {@link LsmStore#ingest} with {@code deleteFiles}: each file is validated, hard-linked
     * into the store with a footer giving its entries the ingest's sequence number appended,
     * and its external name removed, as RocksDB's {@code move_files} leaves none behind.
     */
    @Override
    public BulkIngest bulkIngest() {
        return new BulkIngest() {
            @Override
            public TableFile create(Path file) {
                TableWriter w = TableWriter.create(file, store.config());
                return new TableFile() {
                    @Override
                    public void put(byte[] key, byte[] value) {
                        w.put(key, value);
                    }

                    @Override
                    public long finish() {
                        return w.finish();
                    }

                    @Override
                    public void close() {
                        w.close();
                    }
                };
            }

            @Override
            public void ingest(List<Path> files, boolean fullVerification) {
                store.ingest(files, IngestOptions.defaults().deleteFiles(true).verification(fullVerification
                        ? IngestOptions.Verification.FULL : IngestOptions.Verification.INDEX));
            }

            @Override
            public String describe() {
                return "TableWriter, then LsmStore.ingest(deleteFiles=true): each file validated (every page, or footer "
                        + "and index with --ingest-verification index), hard-linked "
                        + "into the store and given the ingest's sequence number by a footer appended to it";
            }
        };
    }

    @Override
    public Map<String, Object> ownCounters() {
        StoreStats s = store.stats();
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("writeAmplification", s.writeAmplification());
        // NaN (a store too small for the ratio to mean anything) is reported as "n/a": JSON has no NaN.
        double sa = s.spaceAmplification();
        m.put("spaceAmplification", Double.isNaN(sa) ? "n/a" : (Object) sa);
        m.put("stallMillis", s.stallNanos() / 1e6);
        var delays = s.writeDelays();
        if (delays.delayedGroups() > 0) {
            // The write slowdown's computed delays (part of stallMillis once slept).
            m.put("delayedWriteGroups", delays.delayedGroups());
            m.put("writeDelayMillis", delays.delayNanos() / 1e6);
            m.put("maxWriteDelayMillis", delays.maxDelayNanos() / 1e6);
        }
        m.put("flushes", s.flushCount());
        m.put("merges", s.mergeCount());
        m.put("walBytesWritten", s.walBytesWritten());
        m.put("flushBytesWritten", s.flushBytesWritten());
        m.put("mergeBytesWritten", s.mergeBytesWritten());
        m.put("mergeBytesRead", s.io().bytesRead(IoPurpose.MERGE));
        m.put("prefixBloomSkips", s.prefixBloomSkips());
        m.put("bytesWrittenByLevel", s.bytesWrittenByLevel());
        m.put("tableFileBytes", s.tableFileBytes());
        m.put("liveComponentBytes", s.liveComponentBytes());
        m.put("liveDataBytesEstimate", Math.round(s.liveLogicalBytes()));
        m.put("componentsPerLevel", s.componentsPerLevel());
        m.put("liveBytesByLevel", s.liveBytesByLevel());
        m.put("physicalBytesByLevel", s.physicalBytesByLevel());
        var chains = s.stallChains();
        if (chains.episodes() > 0) {
            m.put("stallEpisodes", chains.episodes());
            m.put("maxStallMillis", chains.maxStallNanos() / 1e6);
            m.put("maxChainBytes", chains.maxChainBytes());
            m.put("meanChainBytes", Math.round(chains.meanChainBytes()));
            m.put("maxChainLength", chains.maxChainLength());
            m.put("widestChainBytesPerLevel", chains.widestChainBytesPerLevel());
        }
        m.put("bytesWrittenByKind", s.bytesWrittenByKind());
        if (vlsm != null) {
            VlsmCensus c = vlsm.census();
            m.put("vlsmVssts", c.vssts());
            m.put("vlsmGoodShareByCount", c.vssts() == 0 ? "n/a" : (Object) c.goodShareByCount());
            m.put("vlsmGoodBytesShareByCount", c.vssts() == 0 ? "n/a" : (Object) ((double) c.goodBytesByCount()
                    / c.vsstBytes()));
            m.put("vlsmGoodShareByBytes", c.vssts() == 0 ? "n/a" : (Object) c.goodShareByBytes());
            m.put("vlsmMeanLevel2FilesPerVsst", c.vssts() == 0 ? "n/a" : (Object) ((double) c.level2FilesIntersected()
                    / c.vssts()));
            m.put("vlsmMeanVsstBytes", c.vssts() == 0 ? "n/a" : (Object) (c.vsstBytes() / c.vssts()));
            m.put("vlsmL1ToL2Merges", c.level1Merges());
            m.put("vlsmL1ToL2PoorWindows", c.poorWindows());
            m.put("vlsmL1BytesMoved", c.level1BytesMoved());
            m.put("vlsmL2BytesMerged", c.level2BytesMerged());
            m.put("vlsmL1ToL2Amplification", c.level1Merges() == 0 ? "n/a" : (Object) c.level1ToLevel2Amplification());
        }
        if (s.tableAllocatedBytes() >= 0) {
            m.put("tableAllocatedBytes", s.tableAllocatedBytes());
        }
        if (!s.blockCompaction().equals(dev.strata.lsm.BlockCompactionStats.NONE)) {
            var b = s.blockCompaction();
            m.put("blockMergedInPlace", b.mergedInPlace());
            m.put("blockRewrittenTooLarge", b.rewrittenTooLarge());
            m.put("blockRewrittenMostlyDead", b.rewrittenMostlyDead());
            m.put("blockRewrittenMostlyDirty", b.rewrittenMostlyDirty());
            m.put("blockInPlaceBytesWritten", b.inPlaceBytesWritten());
            m.put("blockBytesPunched", b.bytesPunched());
        }
        return m;
    }

    @Override
    public void close() {
        store.close();
    }
}
