package dev.strata.lsm.server;

/**
 * Passed down the pipeline in place of a command when the input broke the protocol or a
 * limit: the command handler answers it in order after the commands before it, then closes
 * the connection (as Redis does for protocol errors).
 */
record ProtocolViolation(String message) {
}
