/**
 * The XML form of {@link dev.strata.lsm.StoreConfig}, described in {@code docs/config.md}.
 *
 * <p>{@link dev.strata.lsm.config.XmlConfig} is the entry point (the public API reaches it
 * as {@code StoreConfig.fromXml(Path)}). A document is parsed by a hardened SAX reader
 * (no DOCTYPE, nothing external; {@code SecureXml}), validated as a whole against the
 * shipped schema {@code strata-config-1.xsd} ({@code ConfigSchema}), then read element by
 * element into a builder ({@code ConfigDocumentHandler}). Every error is a
 * {@link dev.strata.lsm.ConfigException} prefixed with {@code source:line:column}
 * ({@code XmlPosition}).
 */
package dev.strata.lsm.config;
