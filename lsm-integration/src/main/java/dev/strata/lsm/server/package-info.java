/**
 * A Strata storage node that Redis clients talk to: RESP2 over Netty
 * ({@link dev.strata.lsm.server.RespServer}), launched by {@code ./strata-server}
 * ({@link dev.strata.lsm.server.StrataServer}), optionally over TLS
 * ({@link dev.strata.lsm.server.NodeTls}) and with a Prometheus endpoint
 * ({@link dev.strata.lsm.server.MetricsEndpoint}). Strings and hashes: values carry a small
 * header with their type and expiry time, a hash is a metadata record under its key and one
 * record per field in the node's own key range, client keys starting with 0xFF are escaped
 * out of that range (see {@code docs/server.md} and {@code docs/format.md}); the store's
 * merges write expired values out as tombstones, and a sweeper deletes the fields of hashes
 * that are gone.
 */
package dev.strata.lsm.server;
