package dev.strata.lsm;

import dev.strata.lsm.repair.StoreRepair;

import java.nio.file.Path;
import java.util.List;

/**
 * What a repair ({@link LsmStore#repair(java.nio.file.Path, StoreConfig)}) did.
 *
 * @param dir            the store directory
 * @param manifest       the manifest the repair wrote (CURRENT now names it)
 * @param intactEdits    edits the old manifest still held intact (0 if it was unreadable or absent)
 * @param tables         tables in the rebuilt layout
 * @param entries        entries in those tables, as read back
 * @param lastSequence   the largest sequence number in those tables
 * @param merged         whether the tables had to be merged into new ones to be ordered
 * @param walSegments    WAL segments left for the next open to replay
 * @param setAside       files moved into {@code lost/}, with the reason for each
 * @param families       the reports of the column family directories (empty for a store without them)
 */
public record RepairReport(Path dir, Path manifest, int intactEdits, int tables, long entries, long lastSequence,
                           boolean merged, int walSegments, List<SetAside> setAside, List<RepairReport> families) {

    /** A file moved into {@code lost/}. */
    public record SetAside(String file, String reason) {
    }

    /**
     * Creates a {@code RepairReport} from its components.
     *
     * @param dir            the store directory
     * @param manifest       the manifest the repair wrote (CURRENT now names it)
     * @param intactEdits    edits the old manifest still held intact (0 if it was unreadable or absent)
     * @param tables         tables in the rebuilt layout
     * @param entries        entries in those tables, as read back
     * @param lastSequence   the largest sequence number in those tables
     * @param merged         whether the tables had to be merged into new ones to be ordered
     * @param walSegments    WAL segments left for the next open to replay
     * @param setAside       files moved into {@code lost/}, with the reason for each
     * @param families the reports of the column family directories (empty for a store without them)
     */
    public RepairReport {
        setAside = List.copyOf(setAside);
        families = List.copyOf(families);
    }

    /**
     * A report of one tree (a store without column families, or one family's directory).
     *
     * @param dir the store directory
     * @param manifest the manifest the repair wrote (CURRENT now names it)
     * @param intactEdits edits the old manifest still held intact (0 if it was unreadable or
     *     absent)
     *
     * @param tables tables in the rebuilt layout
     * @param entries entries in those tables, as read back
     * @param lastSequence the largest sequence number in those tables
     * @param merged whether the tables had to be merged into new ones to be ordered
     * @param walSegments WAL segments left for the next open to replay
     * @param setAside files moved into {@code lost/}, with the reason for each
     */
    public RepairReport(Path dir, Path manifest, int intactEdits, int tables, long entries, long lastSequence,
                        boolean merged, int walSegments, List<SetAside> setAside) {
        this(dir, manifest, intactEdits, tables, entries, lastSequence, merged, walSegments, setAside, List.of());
    }

    /**
     * This report with the reports of the store's column family directories.
     *
     * @param familyReports one report per column family directory
     * @return a new report, otherwise equal to this one
     */
    public RepairReport withFamilies(List<RepairReport> familyReports) {
        return new RepairReport(dir, manifest, intactEdits, tables, entries, lastSequence, merged, walSegments,
                setAside, familyReports);
    }

    /** A few lines for people. */
    @Override
    public String toString() {
        StringBuilder b = new StringBuilder();
        b.append("repaired ").append(dir).append(": ").append(tables).append(" tables, ").append(entries)
                .append(" entries, last sequence ").append(lastSequence).append(merged ? " (merged into new tables)" : "")
                .append("; ").append(walSegments).append(" WAL segments to replay at the next open")
                .append("; old manifest held ").append(intactEdits).append(" intact edits")
                .append("; new manifest ").append(manifest.getFileName());
        for (SetAside s : setAside) {
            b.append(System.lineSeparator()).append("  moved to ").append(StoreRepair.LOST).append('/')
                    .append(s.file()).append(": ").append(s.reason());
        }
        for (RepairReport f : families) {
            b.append(System.lineSeparator()).append("column family: ").append(f);
        }
        return b.toString();
    }
}
