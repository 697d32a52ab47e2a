package dev.strata.lsm.server;

/**
 * What the node knows about one connection. Written by its command thread only; the event loop
 * reads {@link #authenticated} (to answer a GET from memory), where a stale false only sends the
 * GET to the command thread (it never goes from true to false).
 */
final class Session {
    final long id;
    final String remoteAddress;
    final long connectedAtMillis = System.currentTimeMillis();
    boolean authenticated;
    String name;
    boolean closeAfterReply;
    /** Commands read from the network and not yet answered (event loop and command thread). */
    final java.util.concurrent.atomic.AtomicInteger pending = new java.util.concurrent.atomic.AtomicInteger();

    Session(long id, String remoteAddress, boolean authenticated) {
        this.id = id;
        this.remoteAddress = remoteAddress;
        this.authenticated = authenticated;
    }
}
