/**
 * Spooky's partitioned merge (seed 000, FAMILIES.md §1): {@link dev.strata.lsm.policy.spooky.SpookyPolicy},
 * registered as {@code spooky}.
 */
package dev.strata.lsm.policy.spooky;
