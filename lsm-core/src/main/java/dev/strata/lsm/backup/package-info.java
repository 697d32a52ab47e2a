/**
 * Incremental backups of a store ({@link dev.strata.lsm.backup.Backups}): a backup directory
 * holding any number of backups whose unchanged table files are stored once.
 */
package dev.strata.lsm.backup;
