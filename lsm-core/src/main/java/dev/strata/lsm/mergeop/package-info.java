/**
 * Merge operators ({@link dev.strata.lsm.mergeop.MergeOperator}): the SPI, the registry and the
 * built-in {@code uint64add} and {@code stringappend}.
 */
package dev.strata.lsm.mergeop;
