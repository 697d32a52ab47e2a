package dev.strata.lsm.kafka;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * How a record of a segmented (window or session) store is laid out in a segment's Strata
 * store (docs/kafka-streams.md). Every record key is {@code 0x01}, then the user key in an
 * order-preserving escaped form (each {@code 0x00} byte written as {@code 0x00 0x01}, the key
 * ended by {@code 0x00 0x00}), then a fixed-size time suffix: for windows the window start
 * (8 bytes) and a sequence number (4 bytes), for sessions the session end and start (8 bytes
 * each). Times are big-endian with the sign bit flipped, so that they sort as signed numbers.
 *
 * <p>Escaping keeps every record of one user key together and the user keys in
 * {@code Bytes} order (unsigned lexicographic, a prefix first) whatever their lengths: a key
 * range is one Strata scan per segment, a key's records are sorted by time inside it.
 * {@code 0x00} + a byte is the segment's metadata.
 */
final class SegmentLayout {
    static final byte META = 0x00;
    static final byte DATA = 0x01;

    /** Written with a WAL sync when the store flushes: makes every earlier write durable. */
    static final byte[] SYNC_KEY = {META, 'W'};

    static final byte[] DATA_START = {DATA};
    static final byte[] DATA_END = {DATA + 1};

    static final int WINDOW_SUFFIX_BYTES = Long.BYTES + Integer.BYTES;
    static final int SESSION_SUFFIX_BYTES = 2 * Long.BYTES;

    private SegmentLayout() {
    }

    /** The bytes of the data prefix and the escaped, terminated {@code key}. */
    private static ByteArrayOutputStream escaped(byte[] key, int extra) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(key.length + 3 + extra);
        out.write(DATA);
        for (byte b : key) {
            out.write(b);
            if (b == 0) {
                out.write(1);
            }
        }
        return out;
    }

    /** Length of the escaped form of {@code key} with its prefix and terminator. */
    static int encodedKeyLength(byte[] key) {
        int n = 1 + key.length + 2;
        for (byte b : key) {
            if (b == 0) {
                n++;
            }
        }
        return n;
    }

    /** The first Strata key of every record of {@code key}: prefix, escaped key, terminator. */
    static byte[] keyStart(byte[] key) {
        ByteArrayOutputStream out = escaped(key, 0);
        out.write(0);
        out.write(0);
        return out.toByteArray();
    }

    /** The first Strata key after every record of {@code key}. */
    static byte[] keyEnd(byte[] key) {
        ByteArrayOutputStream out = escaped(key, 0);
        out.write(0);
        out.write(1);
        return out.toByteArray();
    }

    /** {@code keyStart(key)} followed by {@code time} (8 bytes). */
    static byte[] keyTime(byte[] key, long time) {
        byte[] start = keyStart(key);
        byte[] k = Arrays.copyOf(start, start.length + Long.BYTES);
        ByteBuffer.wrap(k, start.length, Long.BYTES).putLong(time ^ Long.MIN_VALUE);
        return k;
    }

    /** The Strata key of the window of {@code key} starting at {@code start}, duplicate {@code seq}. */
    static byte[] windowKey(byte[] key, long start, int seq) {
        byte[] prefix = keyStart(key);
        byte[] k = Arrays.copyOf(prefix, prefix.length + WINDOW_SUFFIX_BYTES);
        ByteBuffer.wrap(k, prefix.length, WINDOW_SUFFIX_BYTES).putLong(start ^ Long.MIN_VALUE).putInt(seq);
        return k;
    }

    /** The Strata key of the session of {@code key} from {@code start} to {@code end}. */
    static byte[] sessionKey(byte[] key, long start, long end) {
        byte[] prefix = keyStart(key);
        byte[] k = Arrays.copyOf(prefix, prefix.length + SESSION_SUFFIX_BYTES);
        ByteBuffer.wrap(k, prefix.length, SESSION_SUFFIX_BYTES).putLong(end ^ Long.MIN_VALUE)
                .putLong(start ^ Long.MIN_VALUE);
        return k;
    }

    /** The user key of the record key {@code stored} whose suffix has {@code suffixBytes} bytes. */
    static byte[] userKey(byte[] stored, int suffixBytes) {
        int end = stored.length - suffixBytes - 2;
        byte[] key = new byte[end - 1];
        int n = 0;
        for (int i = 1; i < end; i++) {
            key[n++] = stored[i];
            if (stored[i] == 0) {
                i++;
            }
        }
        return n == key.length ? key : Arrays.copyOf(key, n);
    }

    /** The first long of the suffix of {@code stored} (window start, session end). */
    static long firstTime(byte[] stored, int suffixBytes) {
        return ByteBuffer.wrap(stored, stored.length - suffixBytes, Long.BYTES).getLong() ^ Long.MIN_VALUE;
    }

    /** The second long of a session suffix: the session start. */
    static long sessionStart(byte[] stored) {
        return ByteBuffer.wrap(stored, stored.length - Long.BYTES, Long.BYTES).getLong() ^ Long.MIN_VALUE;
    }
}
