package dev.strata.lsm;

/**
 * A configuration is invalid: an unknown merge policy or parameter, a bad value, or
 * malformed XML. The message names the problem, what is allowed and, for XML, the line and
 * column. Nothing is changed when it is thrown.
 *
 * <p>An error found by {@link StoreConfig.Builder#build()} also names the setting it is about
 * ({@link #setting()}), so a reader of a configuration document can point at the element
 * that gave it.
 */
public class ConfigException extends StoreException {
    private static final long serialVersionUID = 1L;

    /** The setting the error is about, or null. */
    private final String setting;

    /**
     * A configuration error about no setting in particular.
     *
     * @param message what is wrong and what is allowed
     */
    public ConfigException(String message) {
        this(message, null, null);
    }

    /**
     * A configuration error about no setting in particular, caused by {@code cause}.
     *
     * @param message what is wrong and what is allowed
     * @param cause the underlying error
     */
    public ConfigException(String message, Throwable cause) {
        this(message, null, cause);
    }

    /**
     * An error about {@code setting} (see {@link #setting()}).
     *
     * @param setting the setting's path, or null when the error is about none in particular
     * @param message what is wrong and what is allowed
     * @param cause the underlying error, or null
     */
    public ConfigException(String message, String setting, Throwable cause) {
        super(message, cause);
        this.setting = setting;
    }

    /**
     * The setting the error is about, as a dotted path of {@link StoreConfig.Builder} names, or
     * null when it is about none in particular: {@code memtableBytes}, {@code pageSize}, ...;
     * {@code levelCompression.2} for level 2's codec; {@code mergePolicy} for the policy's name
     * and {@code mergePolicy.fanout} for one of its parameters ({@code
     * mergePolicy.level0-stop-runs,level1-run-trigger}, the names separated by commas, for a rule
     * across several, see {@link dev.strata.lsm.policy.MergePolicyFactory#validate}); likewise {@code storageIO} and
     * {@code storageIO.NAME}; {@code family.NAME} followed by the family's own setting, such as
     * {@code family.users.mergePolicy.size-ratio}.
     *
     * @return the setting's dotted path, or null
     */
    public String setting() {
        return setting;
    }
}
