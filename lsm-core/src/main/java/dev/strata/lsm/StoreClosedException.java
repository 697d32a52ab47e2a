package dev.strata.lsm;

/** An operation was attempted on a store, snapshot or cursor that has been closed. */
public class StoreClosedException extends StoreException {
    private static final long serialVersionUID = 1L;

    /**
     * An operation on a closed store, cursor or snapshot; {@code message} says which.
     *
     * @param message which closed object the operation was called on
     */
    public StoreClosedException(String message) {
        super(message);
    }
}
