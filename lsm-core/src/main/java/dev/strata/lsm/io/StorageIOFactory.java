package dev.strata.lsm.io;

import dev.strata.lsm.policy.PolicyParameter;
import dev.strata.lsm.policy.PolicyParameters;

import java.util.List;

/**
 * Creates a named {@link StorageIO} from typed parameters. Implementations are found with
 * {@link java.util.ServiceLoader} (list them in
 * {@code META-INF/services/dev.strata.lsm.io.StorageIOFactory}) and chosen by {@link #name()}
 * in XML, {@code <storageIO name="..."><param name="..." value="..."/></storageIO>}, or with
 * {@code StoreConfig.Builder#storageIO(String, java.util.Map)}. lsm-core registers
 * {@code nio} ({@link FileChannelStorageIO}, the default); {@code lsm-io-native} adds
 * {@code native}. Parameters are declared and validated exactly like a merge policy's.
 */
public interface StorageIOFactory {

    /**
     * The name users write in configuration, e.g. {@code native}. Unique among factories.
     *
     * @return the implementation's unique configuration name
     */
    String name();

    /**
     * One line saying what the implementation does.
     *
     * @return a one-line description, for listings
     */
    String description();

    /**
     * The parameters the implementation takes, with defaults and allowed ranges.
     *
     * @return the parameter specifications, in the order listings show them (empty for none)
     */
    List<PolicyParameter> parameters();

    /**
     * A new instance; {@code params} have been validated against {@link #parameters()}.
     *
     * @param params the validated parameters, defaults filled in
     * @return a new implementation configured by {@code params}
     */
    StorageIO create(PolicyParameters params);
}
