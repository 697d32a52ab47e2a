package dev.strata.lsm;

/**
 * Root of Strata's unchecked exception hierarchy. Every failure of the store itself — IO
 * errors, corruption ({@link CorruptionException}), configuration errors
 * ({@link ConfigException}), use after close ({@link StoreClosedException}), a store open
 * elsewhere, a write that failed — is reported as a {@code StoreException} or a subclass;
 * messages name the file, offset, key or configuration line involved.
 *
 * <p>Bad arguments are the caller's error, not the store's, and are reported as in the rest
 * of the JDK: a null key, value or batch, or a key or value larger than the configured
 * limits, throws {@link IllegalArgumentException} before anything changes (a null
 * directory or configuration given to {@link LsmStore#open} throws
 * {@link NullPointerException}).
 */
public class StoreException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /**
     * A store error described by {@code message}.
     *
     * @param message what went wrong
     */
    public StoreException(String message) {
        super(message);
    }

    /**
     * A store error described by {@code message}, caused by {@code cause}.
     *
     * @param message what went wrong
     * @param cause the underlying error
     */
    public StoreException(String message, Throwable cause) {
        super(message, cause);
    }
}
