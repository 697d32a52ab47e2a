package dev.strata.lsm.server;

import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.List;

/**
 * The arguments of an inline command line, split as redis-server's {@code sdssplitargs}
 * does: blanks separate arguments; {@code "..."} quotes with the escapes {@code \n \r \t \b
 * \a}, {@code \xHH} and a backslash before any other byte standing for that byte;
 * {@code '...'} quotes with {@code \'} as its only escape. A closing quote must be followed
 * by a blank or the end of the line.
 */
final class InlineArguments {
    private InlineArguments() {
    }

    /** The arguments of {@code line} (without its line end), or null when its quotes are unbalanced. */
    static List<byte[]> split(byte[] line) {
        List<byte[]> args = new ArrayList<>();
        int p = 0;
        int n = line.length;
        while (true) {
            while (p < n && isSpace(line[p])) {
                p++;
            }
            if (p >= n) {
                return args;
            }
            ByteArrayOutputStream current = new ByteArrayOutputStream();
            boolean inDouble = false;
            boolean inSingle = false;
            boolean done = false;
            while (!done) {
                if (inDouble) {
                    if (p >= n) {
                        return null;
                    }
                    byte c = line[p];
                    if (c == '\\' && p + 3 < n && line[p + 1] == 'x' && hex(line[p + 2]) >= 0 && hex(line[p + 3]) >= 0) {
                        current.write(hex(line[p + 2]) * 16 + hex(line[p + 3]));
                        p += 3;
                    } else if (c == '\\' && p + 1 < n) {
                        p++;
                        current.write(switch (line[p]) {
                            case 'n' -> '\n';
                            case 'r' -> '\r';
                            case 't' -> '\t';
                            case 'b' -> '\b';
                            case 'a' -> 7;
                            default -> line[p];
                        });
                    } else if (c == '"') {
                        if (p + 1 < n && !isSpace(line[p + 1])) {
                            return null;
                        }
                        done = true;
                    } else {
                        current.write(c);
                    }
                } else if (inSingle) {
                    if (p >= n) {
                        return null;
                    }
                    byte c = line[p];
                    if (c == '\\' && p + 1 < n && line[p + 1] == '\'') {
                        p++;
                        current.write('\'');
                    } else if (c == '\'') {
                        if (p + 1 < n && !isSpace(line[p + 1])) {
                            return null;
                        }
                        done = true;
                    } else {
                        current.write(c);
                    }
                } else {
                    if (p >= n) {
                        break;
                    }
                    byte c = line[p];
                    switch (c) {
                        case ' ', '\n', '\r', '\t', 0 -> done = true;
                        case '"' -> inDouble = true;
                        case '\'' -> inSingle = true;
                        default -> current.write(c);
                    }
                }
                if (p < n) {
                    p++;
                }
            }
            args.add(current.toByteArray());
        }
    }

    private static boolean isSpace(byte c) {
        return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == 0x0b || c == '\f';
    }

    private static int hex(byte c) {
        if (c >= '0' && c <= '9') {
            return c - '0';
        }
        if (c >= 'a' && c <= 'f') {
            return c - 'a' + 10;
        }
        if (c >= 'A' && c <= 'F') {
            return c - 'A' + 10;
        }
        return -1;
    }
}
