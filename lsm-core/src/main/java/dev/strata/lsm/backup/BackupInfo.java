package dev.strata.lsm.backup;

/**
 * One backup in a backup directory ({@link Backups}). Immutable.
 *
 * @param id the backup's number, increasing with each backup of the directory
 * @param createdMillis when it was taken (milliseconds since the epoch)
 * @param fileCount the files a restore writes (tables, manifest, CURRENT)
 * @param bytes the bytes a restore writes
 * @param bytesCopied the bytes copied into the backup directory when it was taken: the files
 *     no earlier backup held (the rest are shared)
 */
public record BackupInfo(long id, long createdMillis, int fileCount, long bytes, long bytesCopied) {
}
