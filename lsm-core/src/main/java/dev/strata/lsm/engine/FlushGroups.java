package dev.strata.lsm.engine;

import dev.strata.lsm.io.StorageIO;
import dev.strata.lsm.memtable.Memtable;
import dev.strata.lsm.metrics.StoreMetrics;
import dev.strata.lsm.version.FlushGroupRecord;
import dev.strata.lsm.WalSyncMode;

import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;

/**
 * Atomic flush (RocksDB's {@code atomic_flush}): the column families' memtables are switched
 * out together and their flushes committed all or nothing, so that a batch across families
 * survives a crash whole or not at all where no WAL record covers it (WAL mode none, or
 * writes with {@code disableWal}).
 *
 * <ul>
 *   <li><b>One cut.</b> {@link #switchAll} runs where a single family's switch would (at the
 *       head of the write queue, or in the group leader's admission, so no write group is
 *       between the WAL and the memtables): every family with unflushed writes switches its
 *       active memtable out at once, to one new WAL segment, and the memtables switched form a
 *       <em>flush group</em>. Every family holds exactly the writes at or below the cut's
 *       sequence number in the group's memtables and those before them; a batch is one write
 *       group, so it lies wholly on one side.</li>
 *   <li><b>One commit.</b> Groups flush oldest first, one at a time, on the flush thread
 *       (each family's flush lane hands its work here): each family's memtable is written as
 *       a table (forced); then, when more than one family wrote one, the
 *       {@link FlushGroupRecord} naming every table is written (temporary file, force, rename,
 *       directory sync) — the group's commit point; then each family's manifest edit installs
 *       its table as its policy plans the flush, and the record is deleted. A crash before the
 *       record leaves tables no manifest names, deleted at open: the group never happened. A
 *       crash after it is finished by {@link Recovery}, which installs each listed table whose
 *       family's manifest does not hold it yet. A group of one table needs no record: that
 *       family's own edit is atomic.</li>
 *   <li><b>Failures.</b> Before its record (or in a group that needs none), a failed group
 *       deletes the tables it wrote but did not install and is retried with new ones, with
 *       backoff, as a family's flush lane would; after the record, only the installs not done
 *       yet are retried, with the same tables (kept from sweeps as pending outputs).</li>
 * </ul>
 *
 * <p>Locking: its state is guarded by the engine's mutex.
 */
final class FlushGroups {
    private static final System.Logger LOG = System.getLogger(FlushGroups.class.getName());

    /** One family's part of a group: the memtable switched out and what became of it. */
    private static final class Part {
        final Tree tree;
        final Memtable memtable;
        long nextSegment = -1;
        dev.strata.lsm.version.Component table;
        boolean written;
        boolean installed;

        Part(Tree tree, Memtable memtable) {
            this.tree = tree;
            this.memtable = memtable;
        }
    }

    /** The memtables switched out at one cut. */
    private static final class Group {
        final List<Part> parts;
        boolean committed;
        /**
         * Whether a commit record naming this group's tables may be on disk: set before the
         * write, since a write that fails (a failed directory sync after the rename, say) may
         * still have left it there. From then on the tables are kept for the retry, which
         * writes the record again naming the same tables.
         */
        boolean recordWritten;
        /**
         * Set (mutex held) before the first family's install edit, cleared when the group is
         * done or, before its record, fails: while set, some families may hold their part and
         * others not yet, so no cut across families (a checkpoint) may be taken.
         */
        boolean installing;
        /** Whether this group's intent record ({@link FlushGroupRecord#intent}) may be on disk. */
        boolean intentWritten;

        Group(List<Part> parts) {
            this.parts = parts;
        }
    }

    private final Path dir;
    private final StorageIO io;
    private final WalSyncMode walMode;
    private final EngineMutex mutex;
    private final Families families;
    private final WalLog log;
    private final Snapshots snapshots;
    private final BackgroundThreads threads;
    private final StoreMetrics metrics;

    private final ArrayDeque<Group> pending = new ArrayDeque<>();
    private Group runningGroup;
    private Throwable error;
    private int failures;
    /** For tests: told each step of a group ("written", "committed", "installed NAME"), on the flush thread. */
    private volatile Consumer<String> hook = step -> { };

    FlushGroups(Path dir, StorageIO io, WalSyncMode walMode, EngineMutex mutex, Families families, WalLog log,
                Snapshots snapshots, BackgroundThreads threads, StoreMetrics metrics) {
        this.dir = dir;
        this.io = io;
        this.walMode = walMode;
        this.mutex = mutex;
        this.families = families;
        this.log = log;
        this.snapshots = snapshots;
        this.threads = threads;
        this.metrics = metrics;
    }

    /** For tests: {@code hook} is told each step of every group (null: nothing). */
    void hook(Consumer<String> hook) {
        this.hook = hook == null ? step -> { } : hook;
    }

    /** Whether a group is being flushed. Mutex held. */
    boolean running() {
        return runningGroup != null;
    }

    /** Whether the group being flushed holds a memtable of the family whose memtables are {@code m}. Mutex held. */
    boolean runningFor(Memtables m) {
        Group g = runningGroup;
        if (g == null) {
            return false;
        }
        for (Part p : g.parts) {
            if (p.tree.memtables == m) {
                return true;
            }
        }
        return false;
    }

    /**
     * Whether a group is between its first family's install edit and its last (or stopped there
     * by a failure, to be retried): the families' versions then show the group in some
     * families and not in others. Mutex held; a group sets it under the mutex before its first
     * edit, so a caller that keeps the mutex from a false answer on sees no install start.
     */
    boolean installing() {
        Group g = pending.peekFirst();
        return g != null && g.installing;
    }

    /** For tests: tells the hook {@code step} on the caller's thread. */
    void tellHook(String step) {
        hook.accept(step);
    }

    /** The last group's error, null once a group succeeds. Mutex held. */
    Throwable error() {
        return error;
    }

    /**
     * Switches out the active memtable of every live family that holds unflushed writes, to
     * one new WAL segment, as one flush group, and schedules it. Mutex held, with no write
     * group between the WAL and the memtables.
     */
    void switchAll() {
        List<Tree> switching = new ArrayList<>();
        for (Tree t : families.all()) {
            if (!t.dropped && !t.memtables.set().active().isEmpty()) {
                switching.add(t);
            }
        }
        if (switching.isEmpty()) {
            return;
        }
        long segment = log.switchSegment();
        List<Part> parts = new ArrayList<>(switching.size());
        for (Tree t : switching) {
            parts.add(new Part(t, t.memtables.set().active()));
            t.memtables.switchActive(segment);
        }
        pending.addLast(new Group(parts));
        schedule();
    }

    /** Starts flushing the oldest group unless one runs or there is none. Mutex held. */
    void schedule() {
        if (runningGroup != null || mutex.closed() && walMode != WalSyncMode.NONE || pending.isEmpty()) {
            return;
        }
        runningGroup = pending.peekFirst();
        threads.flush(this::flushOldest);
    }

    private void flushOldest() {
        Group g;
        mutex.lock();
        try {
            g = runningGroup;
        } finally {
            mutex.unlock();
        }
        long start = System.nanoTime();
        try {
            FlushCut cut;
            mutex.lock();
            try {
                cut = FlushCut.take(snapshots, log);
                for (Part p : g.parts) {
                    if (!p.tree.dropped && p.nextSegment < 0) {
                        // Groups go oldest first and every switch is a group's: its memtable is the oldest.
                        if (p.tree.memtables.oldestImmutable() != p.memtable) {
                            throw new IllegalStateException("flush group out of order in family " + p.tree.name);
                        }
                        p.nextSegment = p.tree.memtables.segmentAfterOldest();
                    }
                }
            } finally {
                mutex.unlock();
            }
            if (!g.committed) {
                if (!g.recordWritten) {
                    writeIntent(g);
                }
                List<FlushGroupRecord.Entry> entries = new ArrayList<>();
                for (Part p : g.parts) {
                    if (p.tree.dropped || p.installed) {
                        continue;
                    }
                    p.tree.versions.ensureIntactTail(); // no new tables while a crash would leave a torn manifest
                    if (!p.written) {
                        p.table = p.memtable.isEmpty() ? null : p.tree.flushJob.writeOne(p.memtable, cut);
                        p.written = true;
                    }
                    if (p.table != null) {
                        entries.add(new FlushGroupRecord.Entry(p.tree.id, p.nextSegment, cut.lastSequence(p.memtable),
                                p.table.meta()));
                    }
                }
                hook.accept("written");
                if (entries.size() > 1) {
                    g.recordWritten = true;
                    new FlushGroupRecord(entries).write(io, dir); // replaces the intent
                    g.intentWritten = false;
                } else if (g.intentWritten && walMode != WalSyncMode.NONE) {
                    // One table (the others' memtables held nothing to write): a family's own edit
                    // is atomic. The intent goes first, durably, or a repair after the install
                    // would set the installed table aside although the WAL segments that held its
                    // writes may be gone. (In mode none the intent stays until the edit is in: see
                    // deleteIntent.)
                    FlushGroupRecord.delete(io, dir);
                    io.syncDirectory(dir);
                    g.intentWritten = false;
                }
                g.committed = true;
                hook.accept("committed");
            }
            mutex.lock();
            try {
                // From here until the group is done, a checkpoint waits (Engine.checkpointFamilies).
                g.installing = true;
            } finally {
                mutex.unlock();
            }
            for (Part p : g.parts) {
                if (p.installed || p.tree.dropped) {
                    continue;
                }
                p.tree.versions.ensureIntactTail(); // a retry after a torn append: the edit goes to an intact manifest
                long last = cut.lastSequence(p.memtable); // not above the visible sequence number
                if (p.table == null) {
                    p.tree.flushJob.installNothing(p.nextSegment, last);
                } else {
                    p.tree.flushJob.install(p.table, p.nextSegment, last, false);
                    p.tree.obsolete.settled(p.table.meta().fileNumber());
                    p.tree.counters.flushes.incrementAndGet();
                }
                p.installed = true;
                hook.accept("installed " + p.tree.name);
            }
            if (g.intentWritten) {
                deleteIntent(g);
            }
            if (g.recordWritten) {
                try {
                    FlushGroupRecord.delete(io, dir);
                } catch (java.io.IOException e) {
                    // Harmless: every entry is installed, which the next open sees.
                    LOG.log(System.Logger.Level.WARNING, "could not delete the flush group record of " + dir, e);
                }
            }
            metrics.recordFlush(System.nanoTime() - start);
        } catch (Throwable e) {
            // Any Throwable: a group that ends without this bookkeeping would leave it running for good.
            LOG.log(System.Logger.Level.WARNING, "flush group of " + dir + " failed; will retry", e);
            if (!g.recordWritten) {
                // No record names the tables: the group (at most one table; a family's own edit is
                // atomic) starts again for the parts not installed, with new tables, as a family's
                // flush lane would.
                g.committed = false;
                for (Part p : g.parts) {
                    if (p.installed) {
                        continue;
                    }
                    if (p.table != null) {
                        p.tree.obsolete.deleteUninstalled(p.table.meta().fileNumber());
                    }
                    p.table = null;
                    p.written = false;
                }
            }
            mutex.lock();
            try {
                if (!g.recordWritten) {
                    g.installing = false; // at most one table, not installed: no family holds a part
                }
                error = e;
                failures++;
                runningGroup = null;
                mutex.signalBackground();
                FlushLane.scheduleRetry(threads, mutex, this::retry, failures);
            } finally {
                mutex.unlock();
            }
            return;
        }
        // Before the memtables leave their lists (what flush() waits for), as FlushLane does:
        // the segments the installed edits made obsolete are gone when the flush returns.
        for (Part p : g.parts) {
            if (!p.tree.dropped) {
                p.tree.obsolete.deleteObsoleteWal();
                break;
            }
        }
        Set<Tree> trees = new LinkedHashSet<>();
        mutex.lock();
        try {
            for (Part p : g.parts) {
                if (!p.tree.dropped) {
                    p.tree.memtables.dropOldest();
                    trees.add(p.tree);
                }
            }
            pending.removeFirst();
            error = null;
            failures = 0;
            runningGroup = null;
            schedule();
            for (Tree t : trees) {
                t.scheduler.scheduleMerges();
            }
            mutex.signalBackground();
        } finally {
            mutex.unlock();
        }
        for (Tree t : trees) {
            t.obsolete.deleteObsoleteWal();
        }
    }

    /**
     * Before a group's first table, when two or more families will write one: the intent record
     * naming each such family with its last sequence number, written durably. A crash before
     * the commit record leaves it beside the tables already written, so that a repair, which
     * does not trust the manifests, can tell them from committed tables and set them aside (an
     * open deletes them: no manifest names them); the commit record replaces it.
     */
    private void writeIntent(Group g) throws java.io.IOException {
        List<FlushGroupRecord.Intent> intents = new ArrayList<>();
        for (Part p : g.parts) {
            if (!p.tree.dropped && !p.installed && !p.written && !p.memtable.isEmpty()) {
                intents.add(new FlushGroupRecord.Intent(p.tree.id, p.tree.versions.lastSequence()));
            }
        }
        // In WAL mode none a flush of one table writes it too: nothing else on disk tells its
        // table, beside a manifest whose install edit tore, from an acknowledged flush whose
        // record was damaged later (docs/format.md, "Recovery of a damaged manifest", rule 5).
        if (intents.size() > 1 || !intents.isEmpty() && walMode == WalSyncMode.NONE) {
            g.intentWritten = true;
            FlushGroupRecord.intent(intents).write(io, dir);
        }
    }

    /**
     * WAL mode none, a group of one table: its intent, kept through the install edit, is deleted
     * and the deletion made durable before the group is done (and so before any flush or
     * {@code sync} write waiting for it returns). An intent on disk therefore means that no
     * table above its sequence number was acknowledged: the open drops such a table beside a
     * torn manifest tail instead of refusing ({@code VersionSet.checkTornTail}). A failure here
     * fails the group, whose retry (every part installed) tries the deletion again.
     */
    private void deleteIntent(Group g) throws java.io.IOException {
        FlushGroupRecord.deleteIntent(io, dir);
        g.intentWritten = false;
    }

    private void retry() {
        mutex.lock();
        try {
            schedule();
        } finally {
            mutex.unlock();
        }
    }
}
