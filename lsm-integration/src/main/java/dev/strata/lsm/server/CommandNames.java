package dev.strata.lsm.server;

import java.util.Set;

/** The commands the node implements (upper case). */
final class CommandNames {
    static final Set<String> KNOWN = Set.of("PING", "ECHO", "GET", "SET", "DEL", "EXISTS", "MGET", "MSET",
            "INCR", "INCRBY", "DECR", "DECRBY", "INCRBYFLOAT", "SCAN", "DBSIZE", "INFO", "CONFIG", "COMMAND", "CLIENT",
            "SELECT", "QUIT", "AUTH", "TTL", "PTTL", "UNLINK", "GETDEL", "APPEND", "STRLEN", "SETEX", "EXPIRE",
            "PEXPIRE", "PERSIST", "TYPE", "RENAME", "KEYS", "FLUSHALL", "BGSAVE", "LASTSAVE",
            "HSET", "HSETNX", "HMSET", "HGET", "HMGET", "HDEL", "HGETALL", "HKEYS", "HVALS", "HLEN", "HEXISTS",
            "HSTRLEN", "HINCRBY", "HINCRBYFLOAT", "HSCAN");

    private CommandNames() {
    }
}
