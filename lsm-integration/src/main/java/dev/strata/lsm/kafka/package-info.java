/**
 * A Kafka Streams state store on Strata: {@link dev.strata.lsm.kafka.StrataStores} makes
 * key-value store suppliers, {@link dev.strata.lsm.kafka.StrataDslStoreSuppliers} puts a
 * whole topology's key-value stores on Strata. See docs/kafka-streams.md.
 */
package dev.strata.lsm.kafka;
