package dev.strata.lsm.kafka;

import dev.strata.lsm.StoreConfig;
import org.apache.kafka.streams.DslStoreFormat;
import org.apache.kafka.streams.kstream.EmitStrategy;
import org.apache.kafka.streams.state.DslKeyValueParams;
import org.apache.kafka.streams.state.DslSessionParams;
import org.apache.kafka.streams.state.DslStoreSuppliers;
import org.apache.kafka.streams.state.DslWindowParams;
import org.apache.kafka.streams.state.KeyValueBytesStoreSupplier;
import org.apache.kafka.streams.state.SessionBytesStoreSupplier;
import org.apache.kafka.streams.state.WindowBytesStoreSupplier;

import java.nio.file.Path;
import java.util.Map;

/**
 * Puts every DSL store of a topology on Strata:
 * {@code props.put(StreamsConfig.DSL_STORE_SUPPLIERS_CLASS_CONFIG, StrataDslStoreSuppliers.class)}.
 * It answers every store Kafka's built-in RocksDB suppliers answer, with the Strata store of
 * the same kind, and delegates nothing to RocksDB: a topology configured with it never loads
 * rocksdbjni.
 *
 * <table>
 *   <caption>What each call returns</caption>
 *   <tr><th>store</th><th>format</th><th>supplier</th></tr>
 *   <tr><td>key-value</td><td>plain</td><td>{@link StrataStores#persistentKeyValueStore}</td></tr>
 *   <tr><td>key-value</td><td>timestamped (tables, aggregations)</td>
 *       <td>{@link StrataStores#persistentTimestampedKeyValueStore}</td></tr>
 *   <tr><td>key-value</td><td>headers (KIP-1271, {@code dsl.store.format=headers})</td>
 *       <td>{@link StrataStores#persistentTimestampedKeyValueStoreWithHeaders}</td></tr>
 *   <tr><td>window</td><td>plain / timestamped / headers</td>
 *       <td>{@link StrataStores#persistentWindowStore}, {@link StrataStores#persistentTimestampedWindowStore},
 *       {@link StrataStores#persistentTimestampedWindowStoreWithHeaders}</td></tr>
 *   <tr><td>window, emit on window close</td><td>any (headers: with headers)</td>
 *       <td>{@link StrataStores#persistentTimeOrderedWindowStore} (as Kafka's time-ordered window store)</td></tr>
 *   <tr><td>session</td><td>plain / headers</td>
 *       <td>{@link StrataStores#persistentSessionStore}, {@link StrataStores#persistentSessionStoreWithHeaders}</td></tr>
 *   <tr><td>session, emit on window close</td><td>any (headers: with headers)</td>
 *       <td>{@link StrataStores#persistentTimeOrderedSessionStore} (as Kafka's time-ordered session store)</td></tr>
 * </table>
 *
 * The Strata configuration is {@link StrataStores#DEFAULT_CONFIG} for key-value stores and
 * {@link StrataStores#SEGMENT_CONFIG} for each segment of window and session stores, or, for
 * all of them, read from the XML file named by the application config
 * {@value #CONFIG_FILE_CONFIG} (docs/config.md).
 *
 * <p>Kafka Streams makes one instance per topology and calls {@link #configure} once before
 * any other method; the instance is then only read (thread safe after configuration).
 */
public class StrataDslStoreSuppliers implements DslStoreSuppliers {
    /** Application config naming a Strata XML configuration file for every store. */
    public static final String CONFIG_FILE_CONFIG = "strata.store.config.file";

    private StoreConfig config = StrataStores.DEFAULT_CONFIG;
    private StoreConfig segmentConfig = StrataStores.SEGMENT_CONFIG;

    /**
     * Reads {@value #CONFIG_FILE_CONFIG} when set.
     *
     * @throws dev.strata.lsm.ConfigException naming the file and the problem when it is invalid
     */
    @Override
    public void configure(Map<String, ?> configs) {
        Object file = configs.get(CONFIG_FILE_CONFIG);
        if (file != null) {
            config = StoreConfig.fromXml(Path.of(file.toString()));
            segmentConfig = config;
        }
    }

    /** @throws IllegalArgumentException for a store format it does not know (as Kafka's built-in suppliers) */
    @Override
    public KeyValueBytesStoreSupplier keyValueStore(DslKeyValueParams params) {
        DslStoreFormat format = params.dslStoreFormat();
        if (format == DslStoreFormat.PLAIN) {
            return StrataStores.persistentKeyValueStore(params.name(), config);
        }
        if (format == DslStoreFormat.TIMESTAMPED) {
            return StrataStores.persistentTimestampedKeyValueStore(params.name(), config);
        }
        if (format == DslStoreFormat.HEADERS) {
            return StrataStores.persistentTimestampedKeyValueStoreWithHeaders(params.name(), config);
        }
        throw new IllegalArgumentException("Unknown DSL store format " + format + " for key-value store "
                + params.name());
    }

    /** @throws IllegalArgumentException for a store format it does not know (as Kafka's built-in suppliers) */
    @Override
    public WindowBytesStoreSupplier windowStore(DslWindowParams params) {
        DslStoreFormat format = params.dslStoreFormat();
        if (params.emitStrategy().type() == EmitStrategy.StrategyType.ON_WINDOW_CLOSE) {
            return StrataStores.persistentTimeOrderedWindowStore(params.name(), params.retentionPeriod(),
                    params.windowSize(), params.retainDuplicates(), format == DslStoreFormat.HEADERS, segmentConfig);
        }
        if (format == DslStoreFormat.TIMESTAMPED) {
            return StrataStores.persistentTimestampedWindowStore(params.name(), params.retentionPeriod(),
                    params.windowSize(), params.retainDuplicates(), segmentConfig);
        }
        if (format == DslStoreFormat.HEADERS) {
            return StrataStores.persistentTimestampedWindowStoreWithHeaders(params.name(), params.retentionPeriod(),
                    params.windowSize(), params.retainDuplicates(), segmentConfig);
        }
        if (format == DslStoreFormat.PLAIN) {
            return StrataStores.persistentWindowStore(params.name(), params.retentionPeriod(), params.windowSize(),
                    params.retainDuplicates(), segmentConfig);
        }
        throw new IllegalArgumentException("Unknown DSL store format " + format + " for window store "
                + params.name());
    }

    @Override
    public SessionBytesStoreSupplier sessionStore(DslSessionParams params) {
        boolean headers = params.storeFormat() == DslStoreFormat.HEADERS;
        if (params.emitStrategy().type() == EmitStrategy.StrategyType.ON_WINDOW_CLOSE) {
            return StrataStores.persistentTimeOrderedSessionStore(params.name(), params.retentionPeriod(), headers,
                    segmentConfig);
        }
        return headers
                ? StrataStores.persistentSessionStoreWithHeaders(params.name(), params.retentionPeriod(), segmentConfig)
                : StrataStores.persistentSessionStore(params.name(), params.retentionPeriod(), segmentConfig);
    }
}
