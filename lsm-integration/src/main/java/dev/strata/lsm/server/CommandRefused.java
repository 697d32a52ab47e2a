package dev.strata.lsm.server;

import io.netty.handler.codec.redis.ErrorRedisMessage;

/**
 * A command refused with a Redis error before it changed anything, thrown from deep in a
 * command (where returning the reply is awkward) and answered by {@link RespCommands#execute}.
 */
final class CommandRefused extends RuntimeException {
    final ErrorRedisMessage reply;

    CommandRefused(ErrorRedisMessage reply) {
        super(reply.content(), null, false, false);
        this.reply = reply;
    }
}
