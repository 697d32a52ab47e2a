package dev.strata.lsm.version;

import dev.strata.lsm.CorruptionException;
import dev.strata.lsm.StoreException;
import dev.strata.lsm.io.IoPurpose;
import dev.strata.lsm.io.OpenMode;
import dev.strata.lsm.io.PageFile;
import dev.strata.lsm.io.StorageIO;
import dev.strata.lsm.policy.ComponentId;
import dev.strata.lsm.sstable.SSTableReader;
import dev.strata.lsm.wal.WalSegments;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

/**
 * The current {@link Version}, the manifest that makes it durable, and the store's
 * counters (file numbers, run ids, creation order, last sequence, log number, flushes).
 *
 * <p>Locking: {@link #logAndApply} is synchronized, so edits are computed from the
 * current version, written and installed one at a time; {@link #current()} is a volatile
 * read. Live-version bookkeeping is guarded by {@code live}.
 */
public final class VersionSet {
    private static final System.Logger LOG = System.getLogger(VersionSet.class.getName());

    private final StorageIO io;
    private final Path dir;
    /** Where the WAL segments this tree replays from are: the store directory. */
    private final Path walDir;
    private final TableFiles tables;
    private final long manifestRewriteBytes;

    private final AtomicLong nextFileNumber = new AtomicLong(1);
    private final AtomicLong nextRunId = new AtomicLong(1);
    private final AtomicLong nextCreationOrder = new AtomicLong(1);
    private volatile long lastSequence;
    private volatile long logNumber;
    private volatile Version current;
    private Manifest manifest;
    private boolean manifestBroken;
    /**
     * The live manifest (the one CURRENT names) may end in a partial record: an append
     * failed half-written, and neither cutting it off nor a new manifest has succeeded
     * since. While this holds, a crash leaves a damaged tail that open cannot tell from an
     * acknowledged record damaged later, once tables the intact edits do not reference exist
     * (a job's outputs in progress); see {@link #ensureIntactTail()}.
     */
    private volatile boolean tornTail;
    private final Set<Version> live = Collections.newSetFromMap(new IdentityHashMap<>());
    /**
     * Table files added by an edit whose manifest write failed after its bytes reached the
     * file: a crash before a new manifest supersedes that one may replay the edit, so they
     * must not be deleted until then. Read without the set's lock (see {@link #liveTableFiles()}).
     */
    private final Set<Long> unsettled = java.util.concurrent.ConcurrentHashMap.newKeySet();
    private Runnable onVersionReleased = () -> { };
    /** The merge policy every snapshot this set writes records (null: none); chosen at open. */
    private volatile PolicyRecord policy;
    /** What the manifest recorded when the set opened (null: nothing, or no manifest). */
    private PolicyRecord recordedAtOpen;
    /** Whether the set opened with no manifest: the tree is new. */
    private boolean created;

    /**
     * Chooses, when a version set opens, the merge policy its manifest records from then on
     * (docs/policies.md, "The default policy and what a store records"). Called after the
     * manifest was read and before anything is written: an exception from it fails the open
     * with nothing changed.
     */
    @FunctionalInterface
    public interface PolicyChoice {
        /** Records what the manifest recorded, or nothing for a tree that had no record. */
        PolicyChoice KEEP = (recorded, newTree) -> recorded;

        /**
         * The policy to record.
         *
         * @param recorded what the manifest records, or null (nothing recorded, or a new tree)
         * @param newTree whether the tree has no manifest yet
         * @return the policy the new manifest records, or null for none
         */
        PolicyRecord choose(PolicyRecord recorded, boolean newTree);
    }

    /** What an edit changes; computed from the current version under the set's lock. */
    public record Change(List<List<Run>> levels, List<Component> added, List<ComponentId> removed,
                         long flushCounter, byte[] policyState, long logNumber, long lastSequence) {
    }

    private VersionSet(StorageIO io, Path dir, Path walDir, TableFiles tables, long manifestRewriteBytes) {
        this.io = io;
        this.dir = dir;
        this.walDir = walDir;
        this.tables = tables;
        this.manifestRewriteBytes = manifestRewriteBytes;
    }

    /**
     * Opens the version set of {@code dir}: replays the manifest CURRENT names, or starts
     * an empty one if there is none, then writes a fresh manifest holding a snapshot.
     */
    public static VersionSet open(StorageIO io, Path dir, TableFiles tables, long manifestRewriteBytes)
            throws IOException {
        return open(io, dir, dir, tables, manifestRewriteBytes);
    }

    /**
     * Opens the version set of the tree in {@code dir} whose WAL segments are in {@code walDir}
     * (a column family's: the store directory holds the one WAL of all families).
     */
    public static VersionSet open(StorageIO io, Path dir, Path walDir, TableFiles tables, long manifestRewriteBytes)
            throws IOException {
        return open(io, dir, walDir, tables, manifestRewriteBytes, PolicyChoice.KEEP);
    }

    /**
     * {@link #open(StorageIO, Path, Path, TableFiles, long)}, the manifest then recording the
     * merge policy {@code choice} picks from what it recorded (before the new manifest is
     * written: if {@code choice} throws, nothing was written).
     */
    public static VersionSet open(StorageIO io, Path dir, Path walDir, TableFiles tables, long manifestRewriteBytes,
                                  PolicyChoice choice) throws IOException {
        VersionSet vs = new VersionSet(io, dir, walDir, tables, manifestRewriteBytes);
        Path manifestPath = Manifest.readCurrent(io, dir);
        Version version;
        if (manifestPath == null) {
            version = new Version(List.of(), 0, new byte[0]);
            vs.created = true;
        } else {
            version = vs.replay(manifestPath);
        }
        vs.policy = choice.choose(vs.recordedAtOpen, vs.created);
        // Orphans of an earlier failed run may hold numbers the manifest never recorded.
        for (Path p : io.list(dir)) {
            String name = p.getFileName().toString();
            long n = Math.max(Math.max(TableFiles.parseNumber(name), Manifest.parseNumber(name)),
                    dev.strata.lsm.wal.WalSegments.parseNumber(p).orElse(-1));
            if (n >= vs.nextFileNumber.get()) {
                vs.nextFileNumber.set(n + 1);
            }
        }
        vs.install(version);
        vs.rotateManifest();
        return vs;
    }

    private Version replay(Path manifestPath) throws IOException {
        if (!io.exists(manifestPath)) {
            throw new CorruptionException(manifestPath, 0, "CURRENT names " + manifestPath + ", which does not exist");
        }
        Manifest.Log log = Manifest.readLog(io, manifestPath);
        ManifestState state = log.replay(manifestPath);
        recordedAtOpen = log.recordedPolicy();
        VersionEdit last = log.last();
        long lastOffset = log.offsets().get(log.offsets().size() - 1);
        List<List<VersionEdit.RunLayout>> placed = state.layout();
        // Resolve the layout to metadata and check every table is there before opening any.
        List<List<List<ComponentMeta>>> layout = new ArrayList<>();
        Set<Long> referenced = new HashSet<>();
        for (List<VersionEdit.RunLayout> level : placed) {
            List<List<ComponentMeta>> runs = new ArrayList<>();
            for (VersionEdit.RunLayout r : level) {
                List<ComponentMeta> comps = new ArrayList<>();
                for (ComponentId id : r.components()) {
                    ComponentMeta m = state.meta(id);
                    if (m == null) {
                        throw new CorruptionException(manifestPath, lastOffset, "manifest " + manifestPath
                                + " places component " + id + " without describing it (edit at offset " + lastOffset
                                + ")");
                    }
                    if (!io.exists(tables.path(m.fileNumber()))) {
                        throw new CorruptionException(manifestPath, state.describedAt(id), "manifest " + manifestPath
                                + " references table " + tables.path(m.fileNumber()) + " (added by the edit at offset "
                                + state.describedAt(id) + "), which is missing");
                    }
                    referenced.add(m.fileNumber());
                    comps.add(m);
                }
                runs.add(comps);
            }
            layout.add(runs);
        }
        if (log.tailDamaged()) {
            checkTornTail(manifestPath, log, referenced, last.logNumber(), last.lastSequence());
        }
        nextFileNumber.set(last.nextFileNumber());
        nextRunId.set(last.nextRunId());
        nextCreationOrder.set(last.nextCreationOrder());
        lastSequence = last.lastSequence();
        logNumber = last.logNumber();
        List<List<Run>> levels = new ArrayList<>();
        for (int l = 0; l < layout.size(); l++) {
            List<Run> runs = new ArrayList<>();
            for (int r = 0; r < layout.get(l).size(); r++) {
                List<Component> comps = new ArrayList<>();
                for (ComponentMeta m : layout.get(l).get(r)) {
                    comps.add(openReferenced(manifestPath, m, state.describedAt(m.id())));
                }
                runs.add(new Run(placed.get(l).get(r).runId(), comps));
            }
            levels.add(runs);
        }
        return new Version(levels, last.flushCounter(), last.policyState(), last.lastSequence());
    }

    /**
     * The manifest ends in a damaged record. Dropping it loses nothing if everything the
     * tables the intact edits do not reference hold is also held elsewhere:
     * <ul>
     *   <li>no such table: nothing the damaged record (or one after it) installed exists;</li>
     *   <li>the WAL segment the intact edits start replay from ({@code logNumber}) still
     *       exists: a flush's table holds memtable data that replay from that segment
     *       restores, and a merge's outputs hold data of inputs the intact edits still
     *       reference (every one of them exists, checked before). Had the damaged edit
     *       been acknowledged, the engine would have deleted the segments before its new
     *       log number, in ascending order ({@code WalSegments.list} sorts), so the
     *       intact edits' first segment would be the first to go. This is the case of a
     *       manifest append that failed (a torn write, found by {@code strata-bench
     *       torture}) followed by a kill before a new manifest superseded the damaged one.</li>
     *   <li>the table is named by the store's atomic-flush commit record: recovery installs it;</li>
     *   <li>the table holds no entry newer than the intact edits' {@code lastSequence}: it is a
     *       merge's output (a flush's or an ingest's table holds sequence numbers above every
     *       earlier edit's), so every entry it holds is in inputs the intact edits reference,
     *       all of which exist. Whether or not the damaged record was acknowledged, dropping it
     *       loses nothing. This covers WAL mode none, where there is no segment to vouch for
     *       anything (found by {@code strata-bench torture --wal-mode none}: a merge's append
     *       tore and the process was killed before the manifest was cut back);</li>
     *   <li>the table has no valid footer at its end: a job's output still being written when
     *       the process died. An edit names a table only after the table is finished and
     *       forced, so no edit, acknowledged or not, can have named it.</li>
     * </ul>
     * Otherwise an unreferenced table is evidence that the damaged record counted (a flush
     * whose WAL segments are gone), and opening would lose what it recorded: fail, deleting
     * nothing, and point at repair.
     */
    private void checkTornTail(Path manifestPath, Manifest.Log log, Set<Long> referenced, long logNumber,
                               long lastSequence) throws IOException {
        List<String> unreferenced = new ArrayList<>();
        for (Path p : io.list(dir)) {
            long n = TableFiles.parseNumber(p.getFileName().toString());
            if (n >= 0 && !referenced.contains(n)) {
                unreferenced.add(p.getFileName().toString());
            }
        }
        // A table the store's atomic-flush commit record names for this tree is held by that
        // record: recovery installs it (Recovery#finishFlushGroup), whatever became of the
        // install edit; with WAL mode none there is no WAL segment to vouch for it.
        FlushGroupRecord record = FlushGroupRecord.read(io, walDir);
        Set<String> grouped = flushGroupTables(record);
        long intentAbove = intentAbove(record);
        List<String> unvouched = new ArrayList<>(unreferenced);
        unvouched.removeAll(grouped);
        boolean walHoldsThem = io.exists(WalSegments.path(walDir, logNumber));
        // Without that segment, tables holding nothing newer than the intact edits vouch for
        // themselves, and so do those of a flush or ingest whose intent is still on disk.
        Map<String, String> covered = new LinkedHashMap<>();
        if (!walHoldsThem) {
            for (String name : unvouched) {
                String why = holdsNothingNew(name, lastSequence, intentAbove);
                if (why != null) {
                    covered.put(name, why);
                }
            }
            unvouched.removeAll(covered.keySet());
        }
        if (!unvouched.isEmpty() && !walHoldsThem) {
            throw new CorruptionException(manifestPath, log.validEnd(), "manifest " + manifestPath
                    + " is damaged at offset " + log.validEnd() + " (" + log.damage() + "), and table files it does not"
                    + " reference exist (" + String.join(", ", unvouched.subList(0, Math.min(8, unvouched.size())))
                    + (unvouched.size() > 8 ? ", ... " + unvouched.size() + " in all" : "")
                    + ") holding entries newer than its intact edits' last sequence number " + lastSequence
                    + ", while the WAL segment its intact edits replay from (" + WalSegments.fileName(logNumber)
                    + ") is gone: the damaged record may have been acknowledged, so opening would lose data. Nothing"
                    + " was deleted; rebuild the manifest from the tables with `strata-bench repair " + dir + "`"
                    + " (LsmStore.repair)");
        }
        LOG.log(System.Logger.Level.WARNING, "manifest " + manifestPath + " ends in a torn record at offset "
                + log.validEnd() + " that nothing on disk depends on" + (unreferenced.isEmpty() ? ""
                : " (tables it does not reference, " + unreferenced + ", hold data "
                + (walHoldsThem ? "the WAL from segment " + WalSegments.fileName(logNumber) + " or referenced tables"
                : "the commit record of a flush group or referenced tables") + " still hold"
                + (covered.isEmpty() ? "" : "; " + covered) + ")")
                + "; it is dropped (" + log.damage() + ")");
    }

    /**
     * Why unreferenced table {@code name} holds nothing the intact edits (whose last sequence
     * number is {@code lastSequence}) do not: it has no entry above that sequence number (a
     * merge's output), or it has no valid footer at its end (an output still being written);
     * null if it may hold newer data.
     */
    private String holdsNothingNew(String name, long lastSequence, long intentAbove) throws IOException {
        Path path = dir.resolve(name);
        try (PageFile f = io.open(path, OpenMode.READ, IoPurpose.READ)) {
            SSTableReader r;
            try {
                r = SSTableReader.openAtLastFooter(f, TableFiles.parseNumber(name));
            } catch (IOException | RuntimeException e) {
                return "no valid footer at its end: unfinished";
            }
            long max = r.footer().maxSeqno();
            if (max <= lastSequence) {
                return "entries up to sequence number " + max;
            }
            long min = r.footer().minSeqno();
            if (min > intentAbove) {
                // Written after the intent on disk was: by the flush (or ingest) it announces, which
                // deletes it, durably, only after its edit is in and before it returns. An
                // acknowledged table's edit set the tree's lastSequence to at least its largest
                // sequence number before any later intent was written, so it is never above one.
                return "entries from sequence number " + min + ", above the " + FlushGroupRecord.FILE
                        + " intent's " + intentAbove + ": written by a flush or ingest that never completed";
            }
            return null;
        }
    }

    /**
     * The sequence number above which this tree's tables were written by a flush, ingest or flush
     * group that has not completed: the store's {@code FLUSHGROUP} intent's entry for this tree;
     * {@link Long#MAX_VALUE} without one.
     */
    private long intentAbove(FlushGroupRecord record) {
        if (record == null || record.committed()) {
            return Long.MAX_VALUE;
        }
        for (FlushGroupRecord.Intent i : record.intents()) {
            Path treeDir = i.familyId() == 0 ? walDir : FamilyCatalog.familyDirectory(walDir, i.familyId());
            if (treeDir.toAbsolutePath().normalize().equals(dir.toAbsolutePath().normalize())) {
                return i.above();
            }
        }
        return Long.MAX_VALUE;
    }

    /** The file names of this tree's tables in the store's atomic-flush commit record (none: no record). */
    private Set<String> flushGroupTables(FlushGroupRecord record) {
        Set<String> out = new HashSet<>();
        if (record == null) {
            return out;
        }
        for (FlushGroupRecord.Entry e : record.entries()) {
            Path treeDir = e.familyId() == 0 ? walDir : FamilyCatalog.familyDirectory(walDir, e.familyId());
            if (treeDir.toAbsolutePath().normalize().equals(dir.toAbsolutePath().normalize())) {
                out.add(TableFiles.fileName(e.table().fileNumber()));
            }
        }
        return out;
    }

    private Component openReferenced(Path manifestPath, ComponentMeta m, long describedAt) throws IOException {
        try {
            return tables.open(m);
        } catch (CorruptionException e) {
            throw e;
        } catch (IOException e) {
            throw new CorruptionException(manifestPath, describedAt, "manifest " + manifestPath + " references table "
                    + tables.path(m.fileNumber()) + " (added by the edit at offset " + describedAt
                    + "), which cannot be opened: " + e, e);
        }
    }

    public Version current() {
        return current;
    }

    /** The current version, pinned; release it when done. */
    public Version acquire() {
        for (;;) {
            Version v = current;
            if (v.tryRetain()) {
                return v;
            }
        }
    }

    public long newFileNumber() {
        return nextFileNumber.getAndIncrement();
    }

    public long newRunId() {
        return nextRunId.getAndIncrement();
    }

    public long newCreationOrder() {
        return nextCreationOrder.getAndIncrement();
    }

    /**
     * Before installing {@code table}, written by an earlier run but named by no edit of this
     * set (an atomic flush's table, {@link FlushGroupRecord}): keeps the counters above it, so
     * no later table takes its creation order. (Its file number is above {@code nextFileNumber}
     * already: {@link #open} counts on from every file in the directory.)
     */
    public void noteRecovered(ComponentMeta table) {
        nextCreationOrder.accumulateAndGet(table.creationOrder() + 1, Math::max);
        nextFileNumber.accumulateAndGet(table.fileNumber() + 1, Math::max);
    }

    /** Largest sequence number made durable in a component, as of the last edit. */
    public long lastSequence() {
        return lastSequence;
    }

    /** WAL segments below this number are covered by components. */
    public long logNumber() {
        return logNumber;
    }

    /** Puts a table file of a checkpoint into the checkpoint's directory (a hard link or a copy). */
    @FunctionalInterface
    public interface TableTransfer {
        void place(Path table, Path target) throws IOException;
    }

    /**
     * Writes into the empty directory {@code target} a store holding exactly the current
     * version: each of its table files handed to {@code transfer}, then a manifest of one
     * snapshot (the version, its last sequence number and log number, and this set's
     * counters), forced, and CURRENT. The version stays pinned meanwhile, so none of its
     * pages is punched and none of its files deleted. The directory holds no WAL segment.
     *
     * @return the largest sequence number the checkpoint holds
     */
    public long writeCheckpoint(Path target, TableTransfer transfer) throws IOException {
        return writeCheckpoint(pinForCheckpoint(), target, transfer);
    }

    /**
     * The current version, pinned, with this set's log number, last sequence number and
     * counters as they are now (one consistent state): what {@link #writeCheckpoint(CheckpointPin,
     * Path, TableTransfer)} writes later. The caller hands it to that method, which releases it.
     */
    public CheckpointPin pinForCheckpoint() {
        synchronized (this) {
            return new CheckpointPin(acquire(), logNumber, lastSequence, nextFileNumber.get(), nextRunId.get(),
                    nextCreationOrder.get());
        }
    }

    /** A version pinned for a checkpoint with the set's numbers when it was pinned ({@link #pinForCheckpoint}). */
    public record CheckpointPin(Version version, long logNumber, long lastSequence, long nextFileNumber, long nextRunId,
            long nextCreationOrder) {
    }

    /**
     * {@link #writeCheckpoint(Path, TableTransfer)} of the state {@code pin} holds (pinned
     * earlier); releases the pin whatever happens.
     */
    public long writeCheckpoint(CheckpointPin pin, Path target, TableTransfer transfer) throws IOException {
        Version v = pin.version();
        long log = pin.logNumber();
        long last = pin.lastSequence();
        long nextFile = pin.nextFileNumber();
        long runId = pin.nextRunId();
        long order = pin.nextCreationOrder();
        try {
            java.util.Set<Long> files = new java.util.TreeSet<>();
            for (Component c : v.components()) {
                files.add(c.meta().fileNumber());
            }
            for (long n : files) {
                Path table = tables.path(n);
                transfer.place(table, target.resolve(table.getFileName()));
            }
            // The manifest takes the first number this store has not handed out; the checkpoint
            // counts on from the one after it (a number of the source is never reused there).
            VersionEdit snapshot = VersionEdit.snapshot(nextFile + 1, last, log, v.flushCounter(), runId, order,
                    v.policyState(), v.components().stream().map(Component::meta).toList(), VersionEdit.layoutOf(v),
                    policy);
            Manifest.create(io, target, nextFile, snapshot).close();
            return last;
        } finally {
            v.release();
        }
    }

    /**
     * The merge policy this set's manifest records (every snapshot it writes), or null for none.
     *
     * @return the recorded policy, or null
     */
    public PolicyRecord recordedPolicy() {
        return policy;
    }

    /**
     * What the manifest recorded when this set opened, before {@link PolicyChoice} chose: null
     * when it recorded nothing or the tree is new ({@link #createdAtOpen()}).
     *
     * @return the policy recorded before this open, or null
     */
    public PolicyRecord recordedAtOpen() {
        return recordedAtOpen;
    }

    /**
     * Whether the tree had no manifest when this set opened (it was created by this open).
     *
     * @return true for a new tree
     */
    public boolean createdAtOpen() {
        return created;
    }

    /** Number of the live manifest. */
    public synchronized long manifestNumber() {
        return manifest.number();
    }

    /** Called (without locks held by this set) whenever a version stops being live. */
    public void onVersionReleased(Runnable r) {
        this.onVersionReleased = r;
    }

    /**
     * Computes a change from the current version, makes it durable in the manifest, and
     * installs the resulting version. If {@code change} throws, nothing is written.
     */
    public synchronized Version logAndApply(Function<Version, Change> change) {
        Version base = current;
        Change c = change.apply(base);
        long newLog = Math.max(logNumber, c.logNumber());
        long newLast = Math.max(lastSequence, c.lastSequence());
        Version next = new Version(c.levels(), c.flushCounter(), c.policyState(), newLast);
        boolean snapshot = manifestBroken || manifest.size() > manifestRewriteBytes;
        long writtenBefore = manifest.writtenEnd();
        try {
            if (snapshot) {
                writeSnapshot(next, newLog, newLast);
            } else {
                // Only what changed: the record's size does not grow with the tree.
                VersionEdit counters = VersionEdit.snapshot(nextFileNumber.get(), newLast, newLog, c.flushCounter(),
                        nextRunId.get(), nextCreationOrder.get(), c.policyState(), List.of(), List.of());
                manifest.append(ManifestState.delta(base, next, counters));
            }
        } catch (RuntimeException e) {
            // The log may now end in a partial record: the next edit starts a new manifest.
            manifestBroken = true;
            // A record whose bytes reached the file (only its force failed), or a snapshot whose
            // CURRENT switch happened, can be replayed after a crash: keep its files.
            boolean replayable = snapshot ? currentMovedOn() : manifest.writtenEnd() > writtenBefore;
            if (replayable) {
                for (Component added : c.added()) {
                    unsettled.add(added.meta().fileNumber());
                }
                if (snapshot) {
                    tornTail = false; // CURRENT names the new manifest, which ends in its snapshot
                }
            } else if (!snapshot) {
                // The append failed before the whole record reached the file; part of it may
                // have. Cut the live manifest back to its last whole record, or supersede it.
                tornTail = true;
                settleTornTail(writtenBefore, e);
            }
            throw e;
        }
        logNumber = newLog;
        lastSequence = newLast;
        install(next);
        return next;
    }

    /**
     * After an append that failed part-written: cuts the live manifest back to {@code end}
     * (the end of its last whole record) or, failing that, starts a new manifest holding a
     * snapshot of the current version. Either way a crash then finds an intact manifest, so
     * the outputs of jobs still running are plain orphans rather than evidence against a
     * damaged tail. Failures are attached to {@code failure}; {@link #ensureIntactTail()}
     * retries before the next job writes tables. Found by {@code strata-bench torture}: a
     * torn append, a failed new manifest, and a kill while a merge wrote its outputs left a
     * store that open refused.
     */
    private void settleTornTail(long end, RuntimeException failure) {
        try {
            manifest.truncate(io, dir, end);
            tornTail = false;
            return;
        } catch (IOException | RuntimeException e) {
            failure.addSuppressed(e);
        }
        try {
            writeSnapshot(current, logNumber, lastSequence);
        } catch (RuntimeException e) {
            failure.addSuppressed(e);
        }
    }

    /**
     * Makes sure the live manifest ends in a whole record before a job writes tables: if an
     * earlier append left it torn and neither cutting it back nor a new manifest worked then,
     * tries a new manifest now.
     *
     * @throws StoreException if the manifest is still torn (the job should fail and retry)
     */
    public synchronized void ensureIntactTail() {
        if (tornTail) {
            writeSnapshot(current, logNumber, lastSequence);
        }
    }

    /**
     * After a failed snapshot: whether CURRENT no longer names the live manifest (the new one
     * was switched to, and only a later step failed). True when CURRENT cannot be read.
     */
    private boolean currentMovedOn() {
        try {
            Path named = Manifest.readCurrent(io, dir);
            return named == null || !named.getFileName().toString().equals(Manifest.fileName(manifest.number()));
        } catch (IOException | RuntimeException e) {
            return true;
        }
    }

    private void install(Version next) {
        Version old = current;
        synchronized (live) {
            live.add(next);
        }
        next.onUnreferenced(() -> {
            synchronized (live) {
                live.remove(next);
            }
            onVersionReleased.run();
        });
        current = next;
        if (old != null) {
            old.release();
        }
    }

    /** Starts a new manifest holding a snapshot of the current version. */
    private synchronized void rotateManifest() {
        writeSnapshot(current, logNumber, lastSequence);
    }

    private void writeSnapshot(Version v, long log, long last) {
        long number = newFileNumber();
        VersionEdit snapshot = VersionEdit.snapshot(nextFileNumber.get(), last, log, v.flushCounter(),
                nextRunId.get(), nextCreationOrder.get(), v.policyState(),
                v.components().stream().map(Component::meta).toList(), VersionEdit.layoutOf(v), policy);
        Manifest next = Manifest.create(io, dir, number, snapshot);
        Manifest old = manifest;
        manifest = next;
        manifestBroken = false;
        tornTail = false;
        // CURRENT names the new manifest now: no earlier edit can be replayed any more.
        unsettled.clear();
        if (old != null) {
            try {
                old.close();
            } catch (StoreException e) {
                LOG.log(System.Logger.Level.WARNING, "closing old manifest failed", e);
            }
            // CURRENT names the new one durably (Manifest.create synced the directory): the old
            // one is garbage. Left behind, a long-running store kept every manifest it rotated.
            Path oldPath = dir.resolve(Manifest.fileName(old.number()));
            try {
                io.delete(oldPath);
            } catch (IOException e) {
                LOG.log(System.Logger.Level.WARNING, "could not delete old manifest " + oldPath
                        + " (the next open deletes it)", e);
            }
        }
    }

    /**
     * Whether table file {@code fileNumber} was added by an edit whose manifest write failed
     * but may be replayed after a crash: it must not be deleted yet.
     */
    public boolean unsettled(long fileNumber) {
        return unsettled.contains(fileNumber);
    }

    /**
     * File numbers of tables referenced by any live version, or by an edit that failed but
     * may be replayed after a crash (see {@link #unsettled(long)}).
     */
    public Set<Long> liveTableFiles() {
        Set<Long> files = new HashSet<>(unsettled);
        synchronized (live) {
            for (Version v : live) {
                for (Component c : v.components()) {
                    files.add(c.meta().fileNumber());
                }
            }
        }
        for (Component c : current.components()) {
            files.add(c.meta().fileNumber());
        }
        return files;
    }

    /**
     * The components of table file {@code fileNumber} that any live version (the current one,
     * or one a reader pins) holds, one per footer offset: the versions of the file whose
     * pages must stay readable.
     */
    public List<Component> liveVersionsOf(long fileNumber) {
        Map<ComponentId, Component> out = new LinkedHashMap<>();
        synchronized (live) {
            for (Version v : live) {
                for (Component c : v.components()) {
                    if (c.meta().fileNumber() == fileNumber) {
                        out.putIfAbsent(c.id(), c);
                    }
                }
            }
        }
        for (Component c : current.components()) {
            if (c.meta().fileNumber() == fileNumber) {
                out.putIfAbsent(c.id(), c);
            }
        }
        return List.copyOf(out.values());
    }

    /** Closes the manifest. */
    public synchronized void close() {
        if (manifest != null) {
            manifest.close();
        }
    }
}
