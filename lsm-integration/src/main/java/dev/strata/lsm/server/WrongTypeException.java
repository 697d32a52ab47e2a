package dev.strata.lsm.server;

/**
 * A command met a key holding another type (a string command on a hash, or the reverse);
 * answered with Redis's {@code WRONGTYPE} error, nothing changed.
 */
final class WrongTypeException extends RuntimeException {
    static final String MESSAGE = "WRONGTYPE Operation against a key holding the wrong kind of value";

    WrongTypeException() {
        super(MESSAGE, null, false, false);
    }
}
