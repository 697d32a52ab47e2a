/**
 * Kafka Streams state stores on Strata: {@link dev.strata.lsm.kafka.StrataStores} makes
 * key-value, window, session and versioned key-value store suppliers (the window, session and
 * versioned stores keep one Strata store per time segment and drop expired segments whole),
 * {@link dev.strata.lsm.kafka.StrataDslStoreSuppliers} puts a whole topology's stores on
 * Strata. See docs/kafka-streams.md.
 */
package dev.strata.lsm.kafka;
