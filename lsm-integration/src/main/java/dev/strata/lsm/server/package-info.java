/**
 * A Strata storage node that Redis clients talk to: RESP2 over Netty
 * ({@link dev.strata.lsm.server.RespServer}), launched by {@code ./strata-server}
 * ({@link dev.strata.lsm.server.StrataServer}). Values carry a small header with their
 * expiry time (see {@code docs/server.md}); the store's merges drop expired values.
 */
package dev.strata.lsm.server;
