/**
 * The {@code torture} command's machinery, after RocksDB's {@code db_crashtest}: a child JVM
 * ({@link dev.strata.lsm.bench.torture.TortureChild}) runs a random mix of writes, checked
 * reads, snapshots, scans and flushes against a store whose storage IO injects faults
 * ({@link dev.strata.lsm.bench.torture.FaultInjectingStorageIO}); it records every write in a
 * memory-mapped {@link dev.strata.lsm.bench.torture.ExpectedState} before issuing it and
 * after its acknowledgement. The parent ({@link dev.strata.lsm.bench.torture.TortureRun})
 * kills the child at random moments, reopens the store and checks every key with the
 * {@link dev.strata.lsm.bench.torture.Verifier}.
 */
package dev.strata.lsm.bench.torture;
