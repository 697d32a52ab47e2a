package dev.strata.lsm;

/**
 * Root of Strata's unchecked exception hierarchy. Every error the store reports to its
 * host is a {@code StoreException} or a subclass; messages name the file, offset, key or
 * configuration line involved.
 */
public class StoreException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public StoreException(String message) {
        super(message);
    }

    public StoreException(String message, Throwable cause) {
        super(message, cause);
    }
}
