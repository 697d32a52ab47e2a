package dev.strata.lsm;

/**
 * A configuration is invalid: an unknown merge policy or parameter, a bad value, or
 * malformed XML. The message names the problem, what is allowed and, for XML, the line and
 * column. Nothing is changed when it is thrown.
 */
public class ConfigException extends StoreException {
    private static final long serialVersionUID = 1L;

    public ConfigException(String message) {
        super(message);
    }

    public ConfigException(String message, Throwable cause) {
        super(message, cause);
    }
}
