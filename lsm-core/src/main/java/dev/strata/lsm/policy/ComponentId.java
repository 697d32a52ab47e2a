package dev.strata.lsm.policy;

/**
 * Identifies one component: one version of an SSTable, named by its file and the offset
 * of its footer (a later version of the same file, written by block reuse, is a different
 * component).
 *
 * @param fileNumber the table file's number
 * @param footerOffset byte offset of the version's footer in that file
 */
public record ComponentId(long fileNumber, long footerOffset) {
    @Override
    public String toString() {
        return footerOffset == 0 ? "#" + fileNumber : "#" + fileNumber + "@" + footerOffset;
    }
}
