package dev.strata.lsm.kafka;

import dev.strata.lsm.StoreConfig;
import org.apache.kafka.streams.DslStoreFormat;
import org.apache.kafka.streams.kstream.EmitStrategy;
import org.apache.kafka.streams.state.BuiltInDslStoreSuppliers;
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
 * Puts every DSL key-value store of a topology on Strata:
 * {@code props.put(StreamsConfig.DSL_STORE_SUPPLIERS_CLASS_CONFIG, StrataDslStoreSuppliers.class)}.
 *
 * <ul>
 *   <li>Key-value stores: {@link StrataStores#persistentKeyValueStore} for the plain format,
 *       {@link StrataStores#persistentTimestampedKeyValueStore} for the timestamped format
 *       (what {@code KTable}s and aggregations use).</li>
 *   <li>Window stores: {@link StrataStores#persistentWindowStore} and
 *       {@link StrataStores#persistentTimestampedWindowStore} (plain and timestamped formats),
 *       session stores: {@link StrataStores#persistentSessionStore}.</li>
 *   <li>Delegated to Kafka's built-in RocksDB suppliers
 *       ({@link BuiltInDslStoreSuppliers.RocksDBDslStoreSuppliers}): stores in the headers
 *       format (KIP-1271) and the window and session stores of aggregations that emit on
 *       window close ({@code EmitStrategy.onWindowClose()}), which need Kafka's time-ordered
 *       stores.</li>
 * </ul>
 *
 * The Strata configuration is {@link StrataStores#DEFAULT_CONFIG} for key-value stores and
 * {@link StrataStores#SEGMENT_CONFIG} for each segment of window and session stores, or, for
 * all of them, read from the XML file named by the application config
 * {@value #CONFIG_FILE_CONFIG} (docs/config.md).
 */
public class StrataDslStoreSuppliers implements DslStoreSuppliers {
    /** Application config naming a Strata XML configuration file for every store. */
    public static final String CONFIG_FILE_CONFIG = "strata.store.config.file";

    private final DslStoreSuppliers builtIn = new BuiltInDslStoreSuppliers.RocksDBDslStoreSuppliers();
    private StoreConfig config = StrataStores.DEFAULT_CONFIG;
    private StoreConfig segmentConfig = StrataStores.SEGMENT_CONFIG;

    /**
     * Reads {@value #CONFIG_FILE_CONFIG} when set.
     *
     * @throws dev.strata.lsm.ConfigException naming the file and the problem when it is invalid
     */
    @Override
    public void configure(Map<String, ?> configs) {
        builtIn.configure(configs);
        Object file = configs.get(CONFIG_FILE_CONFIG);
        if (file != null) {
            config = StoreConfig.fromXml(Path.of(file.toString()));
            segmentConfig = config;
        }
    }

    @Override
    public KeyValueBytesStoreSupplier keyValueStore(DslKeyValueParams params) {
        DslStoreFormat format = params.dslStoreFormat();
        if (format == DslStoreFormat.PLAIN) {
            return StrataStores.persistentKeyValueStore(params.name(), config);
        }
        if (format == DslStoreFormat.TIMESTAMPED) {
            return StrataStores.persistentTimestampedKeyValueStore(params.name(), config);
        }
        return builtIn.keyValueStore(params);
    }

    @Override
    public WindowBytesStoreSupplier windowStore(DslWindowParams params) {
        if (params.emitStrategy().type() == EmitStrategy.StrategyType.ON_WINDOW_CLOSE
                || params.dslStoreFormat() == DslStoreFormat.HEADERS) {
            return builtIn.windowStore(params);
        }
        return params.dslStoreFormat() == DslStoreFormat.TIMESTAMPED
                ? StrataStores.persistentTimestampedWindowStore(params.name(), params.retentionPeriod(),
                        params.windowSize(), params.retainDuplicates(), segmentConfig)
                : StrataStores.persistentWindowStore(params.name(), params.retentionPeriod(), params.windowSize(),
                        params.retainDuplicates(), segmentConfig);
    }

    @Override
    public SessionBytesStoreSupplier sessionStore(DslSessionParams params) {
        if (params.emitStrategy().type() == EmitStrategy.StrategyType.ON_WINDOW_CLOSE
                || params.storeFormat() == DslStoreFormat.HEADERS) {
            return builtIn.sessionStore(params);
        }
        return StrataStores.persistentSessionStore(params.name(), params.retentionPeriod(), segmentConfig);
    }
}
