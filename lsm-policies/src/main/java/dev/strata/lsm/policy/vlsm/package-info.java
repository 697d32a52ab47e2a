/**
 * vLSM (seed 002, FAMILIES.md §3): {@link dev.strata.lsm.policy.vlsm.VlsmPolicy}, registered as {@code vlsm}.
 */
package dev.strata.lsm.policy.vlsm;
