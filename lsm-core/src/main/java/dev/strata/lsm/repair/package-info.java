/**
 * Rebuilding a store's manifest from its table files after the manifest was damaged:
 * {@link dev.strata.lsm.repair.StoreRepair}, reached through {@code LsmStore.repair} and
 * {@code strata-bench repair DIR}.
 */
package dev.strata.lsm.repair;
