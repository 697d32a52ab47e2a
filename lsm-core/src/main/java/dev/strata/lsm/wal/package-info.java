/**
 * The write-ahead log: segment files of CRC32C-framed records in 32 KiB blocks, modelled
 * on LevelDB's log format and described byte by byte in {@code docs/format.md}
 * ("WAL segment").
 *
 * <p>{@link dev.strata.lsm.wal.WalWriter} appends to a new segment with group commit in
 * one of the {@link dev.strata.lsm.WalSyncMode}s; {@link dev.strata.lsm.wal.WalReader}
 * reads a segment back and tells a torn tail from corruption before the tail;
 * {@link dev.strata.lsm.wal.WalRecovery} replays a segment and truncates its torn tail;
 * {@link dev.strata.lsm.wal.WalSegments} names and lists segment files. All file access
 * goes through {@link dev.strata.lsm.io.StorageIO} with
 * {@link dev.strata.lsm.io.IoPurpose#WAL}; IO failures surface as
 * {@link dev.strata.lsm.StoreException}s naming the file.
 */
package dev.strata.lsm.wal;
