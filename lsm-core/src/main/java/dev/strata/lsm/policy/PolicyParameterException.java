package dev.strata.lsm.policy;

import java.util.List;

/**
 * A merge policy's parameter values break a rule across parameters (one must be at most
 * another, a trigger needs a value that lets it fire, ...): thrown by
 * {@link MergePolicyFactory#validate(PolicyParameters)}, which {@code StoreConfig.Builder.build()}
 * calls once, before any store or policy exists. The message names the parameters and their
 * values; {@link #parameters()} lists the parameters' names, so a configuration error can point
 * at them. Immutable; safe to share between threads.
 */
public class PolicyParameterException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    /** The names of the parameters the broken rule is about, in the order the message gives them. */
    private final List<String> parameters;

    /**
     * An error about {@code parameters}.
     *
     * @param message    what is wrong, naming the parameters and their values
     * @param parameters the names of the parameters the rule is about (at least one)
     */
    public PolicyParameterException(String message, String... parameters) {
        super(message);
        if (parameters.length == 0) {
            throw new IllegalArgumentException("a parameter rule names at least one parameter");
        }
        this.parameters = List.of(parameters);
    }

    /**
     * The same error with {@code prefix} before its message (e.g. the policy's name), naming
     * the same parameters.
     *
     * @param prefix what to put before the message
     * @return the new exception, with this one as its cause
     */
    public PolicyParameterException withPrefix(String prefix) {
        PolicyParameterException e = new PolicyParameterException(prefix + getMessage(),
                parameters.toArray(String[]::new));
        e.initCause(this);
        return e;
    }

    /**
     * The names of the parameters the broken rule is about, in the order the message gives them.
     *
     * @return an unmodifiable list of at least one name
     */
    public List<String> parameters() {
        return parameters;
    }
}
