package dev.strata.lsm.engine;

import dev.strata.lsm.CorruptionException;
import dev.strata.lsm.IngestOptions;
import dev.strata.lsm.StoreConfig;
import dev.strata.lsm.io.IoPurpose;
import dev.strata.lsm.io.OpenMode;
import dev.strata.lsm.io.PageFile;
import dev.strata.lsm.io.StorageIO;
import dev.strata.lsm.merge.OutputCutter;
import dev.strata.lsm.policy.OutputSpec;
import dev.strata.lsm.repair.StoreRepair;
import dev.strata.lsm.sstable.EntryType;
import dev.strata.lsm.sstable.Footer;
import dev.strata.lsm.sstable.ForwardingInternalIterator;
import dev.strata.lsm.sstable.IndexCheck;
import dev.strata.lsm.sstable.InternalIterator;
import dev.strata.lsm.sstable.InternalKeys;
import dev.strata.lsm.sstable.SSTableReader;
import dev.strata.lsm.sstable.TableIterator;
import dev.strata.lsm.version.Component;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Bulk ingest's file work: validating external tables (written by {@code TableWriter}) and,
 * for a table the format cannot give one sequence number as it is (a packed one, or one
 * holding an earlier version's pages), rewriting it entry by entry into a store table whose
 * every entry carries the ingest's sequence number. Every other table is adopted as it is
 * ({@link TableOutput#adopt}: linked or copied, with a format-4 footer appended).
 */
final class IngestJob {
    /** An external table that passed validation: its reader and key range. */
    record External(Path path, PageFile file, SSTableReader reader, byte[] minKey, byte[] maxKey, long entries) {
    }

    private IngestJob() {
    }

    /**
     * Opens {@code path} at its last footer and checks it as {@code verification} says
     * ({@link IngestOptions.Verification}). {@code FULL} reads every entry: the format, the
     * checksums (each page is checked as it is read, the file read in large sequential chunks),
     * strictly increasing user keys (one entry per key), puts and deletes only, and the store's
     * key and value limits; it allocates nothing per entry. {@code INDEX} reads the footer,
     * bloom filter and every interior page ({@link IndexCheck}), not the leaves.
     *
     * @throws IllegalArgumentException naming the file and what is wrong with it
     */
    static External validate(StorageIO io, Path path, StoreConfig config, IngestOptions.Verification verification) {
        if (!Files.isRegularFile(path)) {
            throw new IllegalArgumentException("ingest: " + path + " is not a file");
        }
        boolean full = verification == IngestOptions.Verification.FULL;
        PageFile f = null;
        try {
            PageFile raw = io.open(path, OpenMode.READ, IoPurpose.READ);
            // FULL: one pass in file order, read in large chunks rather than page by page.
            // INDEX: a few pages spread over the file (interior pages sit between the leaves).
            f = full ? new ReadAheadFile(raw) : raw;
            SSTableReader reader = StoreRepair.openAtLastFooter(f, 0);
            Footer footer = reader.footer();
            if (footer.pageSize() != config.pageSize()) {
                throw new IllegalArgumentException("ingest: " + path + " has " + footer.pageSize()
                        + "-byte pages; the store writes " + config.pageSize() + "-byte pages (pageSize)");
            }
            if (!reader.rangeTombstones().isEmpty()) {
                throw new IllegalArgumentException("ingest: " + path + " holds " + reader.rangeTombstones()
                        .fragmentCount() + " range-tombstone fragments; ingest takes tables of puts and deletes only "
                        + "(TableWriter): apply range deletes with LsmStore.deleteRange");
            }
            if (!full) {
                return checkIndex(path, f, reader, config);
            }
            byte[] first = null;
            byte[] last = new byte[64];
            int lastLength = -1;
            long entries = 0;
            try (TableIterator it = reader.iterator()) {
                for (it.seekToFirst(); it.valid(); it.next()) {
                    int length = it.keyLength();
                    if (lastLength >= 0) {
                        int cmp = it.compareKey(last, lastLength);
                        if (cmp <= 0) {
                            byte[] key = it.key();
                            byte[] before = Arrays.copyOf(last, lastLength);
                            throw new IllegalArgumentException("ingest: " + path + " holds key " + InternalKeys.describe(key)
                                    + " after " + InternalKeys.describe(before)
                                    + (cmp == 0 ? " (a duplicate key)" : " (keys out of order)"));
                        }
                    }
                    if (length > config.maxKeyBytes()) {
                        throw new IllegalArgumentException("ingest: " + path + " holds a key of " + length
                                + " bytes, over the store's maximum key size of " + config.maxKeyBytes());
                    }
                    EntryType type = it.type();
                    if (type != EntryType.PUT && type != EntryType.DELETE) {
                        throw new IllegalArgumentException("ingest: " + path + " holds an entry of type " + type);
                    }
                    if (type == EntryType.PUT && it.valueLength() > config.maxValueBytes()) {
                        throw new IllegalArgumentException("ingest: " + path + " holds a value of " + it.valueLength()
                                + " bytes, over the store's maxValueBytes of " + config.maxValueBytes());
                    }
                    it.valueArray(); // reads (and checks) overflow pages too
                    if (first == null) {
                        first = it.key();
                    }
                    if (length > last.length) {
                        last = new byte[Math.max(length, last.length * 2)];
                    }
                    it.copyKey(last);
                    lastLength = length;
                    entries++;
                }
            }
            if (entries == 0) {
                throw new IllegalArgumentException("ingest: " + path + " holds no entry");
            }
            if (entries != footer.entryCount()) {
                throw new IllegalArgumentException("ingest: " + path + " holds " + entries + " entries; its footer says "
                        + footer.entryCount());
            }
            return new External(path, f, reader, first, Arrays.copyOf(last, lastLength), entries);
        } catch (IOException | RuntimeException e) {
            closeQuietly(f);
            if (e instanceof IllegalArgumentException iae) {
                throw iae;
            }
            String what = e instanceof CorruptionException ? "is corrupt" : "is not a readable Strata table";
            throw new IllegalArgumentException("ingest: " + path + " " + what + ": " + e.getMessage(), e);
        }
    }

    /** {@link IngestOptions.Verification#INDEX}: the format, then {@link IndexCheck}. */
    private static External checkIndex(Path path, PageFile f, SSTableReader reader, StoreConfig config)
            throws IOException {
        Footer footer = reader.footer();
        if (footer.formatVersion() != Footer.FORMAT_VERSION) {
            throw new IllegalArgumentException("ingest: " + path + " is a table of format version " + footer.formatVersion()
                    + "; TableWriter writes version " + Footer.FORMAT_VERSION
                    + " (ingest other tables with IngestOptions.Verification.FULL)");
        }
        if (footer.previousFooterOffset() >= 0) {
            throw new IllegalArgumentException("ingest: " + path + " holds more than one version of a table; "
                    + "TableWriter writes one (ingest it with IngestOptions.Verification.FULL)");
        }
        for (byte[] bound : new byte[][] {footer.minKey(), footer.maxKey()}) {
            if (bound.length > config.maxKeyBytes()) {
                throw new IllegalArgumentException("ingest: " + path + " holds a key of " + bound.length
                        + " bytes, over the store's maximum key size of " + config.maxKeyBytes());
            }
        }
        IndexCheck check = IndexCheck.of(reader);
        return new External(path, f, reader, footer.minKey().clone(), footer.maxKey().clone(), check.entries());
    }

    /**
     * {@link #validate}s every file, several at once (a thread per core, at most one per
     * file: full validation reads and decodes every entry, and the files are independent); the
     * tables in the order of {@code files}. If any fails, the others are closed and the
     * failure of the first failing file in list order is thrown.
     */
    static List<External> validateAll(StorageIO io, List<Path> files, StoreConfig config,
                                      IngestOptions.Verification verification) {
        int threads = Math.min(files.size(), Runtime.getRuntime().availableProcessors());
        if (threads <= 1) {
            List<External> out = new ArrayList<>();
            try {
                for (Path p : files) {
                    out.add(validate(io, p, config, verification));
                }
            } catch (RuntimeException e) {
                closeAll(out);
                throw e;
            }
            return out;
        }
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(threads, r -> {
            Thread t = new Thread(r, "strata-ingest-validate");
            t.setDaemon(true);
            return t;
        });
        try {
            List<java.util.concurrent.Future<External>> futures = new ArrayList<>();
            for (Path p : files) {
                futures.add(pool.submit(() -> validate(io, p, config, verification)));
            }
            List<External> out = new ArrayList<>();
            RuntimeException first = null;
            boolean interrupted = false;
            for (java.util.concurrent.Future<External> f : futures) {
                // Every validation is waited for (each opens a file that must be closed).
                while (true) {
                    try {
                        out.add(f.get());
                        break;
                    } catch (InterruptedException e) {
                        interrupted = true;
                    } catch (java.util.concurrent.ExecutionException e) {
                        if (first == null) {
                            first = e.getCause() instanceof RuntimeException re ? re
                                    : new dev.strata.lsm.StoreException("ingest: validation failed: " + e.getCause(), e.getCause());
                        }
                        break;
                    }
                }
            }
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
            if (first != null) {
                closeAll(out);
                throw first;
            }
            return out;
        } finally {
            pool.shutdown();
        }
    }

    /** Writes {@code table}'s entries with sequence number {@code seq} into new store tables (pending outputs). */
    static List<Component> write(TableOutput output, External table, long seq) throws IOException {
        TableIterator source = table.reader().iterator();
        InternalIterator withSeq = new ForwardingInternalIterator() {
            @Override
            protected InternalIterator positioned() {
                return source;
            }

            @Override
            public long seqno() {
                return seq;
            }

            @Override
            public boolean valid() {
                return source.valid();
            }

            @Override
            public void seekToFirst() throws IOException {
                source.seekToFirst();
            }

            @Override
            public void seekToLast() throws IOException {
                source.seekToLast();
            }

            @Override
            public void seek(byte[] userKey, long seqno) throws IOException {
                source.seek(userKey, seqno);
            }

            @Override
            public void next() throws IOException {
                source.next();
            }

            @Override
            public void prev() throws IOException {
                source.prev();
            }

            @Override
            public void close() throws IOException {
                source.close();
            }
        };
        try (withSeq) {
            withSeq.seekToFirst();
            // Written with level 0's codec: where the tables go is decided once they exist.
            return output.write(withSeq, IoPurpose.FLUSH, new OutputCutter(OutputSpec.singleFile(), List.of(), List.of()),
                    null, 0, false);
        }
    }

    static void closeAll(List<External> tables) {
        for (External t : tables) {
            closeQuietly(t.file());
        }
    }

    private static void closeQuietly(PageFile f) {
        if (f != null) {
            try {
                f.close();
            } catch (IOException ignored) {
                // nothing was written
            }
        }
    }

    /** Whether two of the (validated) tables overlap in key range; names them, or null. */
    static String overlap(List<External> tables) {
        List<External> sorted = new ArrayList<>(tables);
        sorted.sort((a, b) -> Arrays.compareUnsigned(a.minKey(), b.minKey()));
        for (int i = 1; i < sorted.size(); i++) {
            if (Arrays.compareUnsigned(sorted.get(i).minKey(), sorted.get(i - 1).maxKey()) <= 0) {
                return sorted.get(i - 1).path() + " and " + sorted.get(i).path();
            }
        }
        return null;
    }
}
