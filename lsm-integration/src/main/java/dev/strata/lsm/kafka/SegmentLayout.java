package dev.strata.lsm.kafka;

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
 *
 * <p>A time-ordered store (the stores of aggregations that emit on window close) also keeps
 * each record under a time index key, value and all: {@code 0x02}, then the time suffix's
 * first time (window start; session end, then start), then the escaped key with its
 * terminator, then (windows) the sequence number. The index sorts a segment's records by time,
 * then key, as Kafka's time-ordered stores ({@code TimeFirstWindowKeySchema},
 * {@code TimeFirstSessionKeySchema}) do, so that a time range over every key is one scan.
 */
final class SegmentLayout {
    static final byte META = 0x00;
    static final byte DATA = 0x01;
    /** The time index of a time-ordered store: the records again, time first (see {@link #windowIndexKey}). */
    static final byte INDEX = 0x02;

    /** Written with a WAL sync when the store flushes: makes every earlier write durable. */
    static final byte[] SYNC_KEY = {META, 'W'};

    static final byte[] DATA_START = {DATA};
    static final byte[] DATA_END = {DATA + 1};
    static final byte[] INDEX_END = {INDEX + 1};

    static final int WINDOW_SUFFIX_BYTES = Long.BYTES + Integer.BYTES;
    static final int SESSION_SUFFIX_BYTES = 2 * Long.BYTES;

    private SegmentLayout() {
    }

    /**
     * A new array of the data prefix, the escaped {@code key} and the terminator {@code 0x00
     * last}, with {@code suffix} bytes left (zero) after it: one allocation, no copy (restore
     * and every write encode a key this way).
     */
    private static byte[] encoded(byte[] key, byte last, int suffix) {
        int length = encodedKeyLength(key);
        byte[] out = new byte[length + suffix];
        out[0] = DATA;
        if (length == key.length + 3) {
            System.arraycopy(key, 0, out, 1, key.length);  // no 0x00 to escape
        } else {
            int n = 1;
            for (byte b : key) {
                out[n++] = b;
                if (b == 0) {
                    out[n++] = 1;
                }
            }
        }
        out[length - 2] = 0;
        out[length - 1] = last;
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
        return encoded(key, (byte) 0, 0);
    }

    /** The first Strata key after every record of {@code key}. */
    static byte[] keyEnd(byte[] key) {
        return encoded(key, (byte) 1, 0);
    }

    /** {@code keyStart(key)} followed by {@code time} (8 bytes). */
    static byte[] keyTime(byte[] key, long time) {
        byte[] k = encoded(key, (byte) 0, Long.BYTES);
        putLong(k, k.length - Long.BYTES, time ^ Long.MIN_VALUE);
        return k;
    }

    /** The Strata key of the window of {@code key} starting at {@code start}, duplicate {@code seq}. */
    static byte[] windowKey(byte[] key, long start, int seq) {
        byte[] k = encoded(key, (byte) 0, WINDOW_SUFFIX_BYTES);
        int at = k.length - WINDOW_SUFFIX_BYTES;
        putLong(k, at, start ^ Long.MIN_VALUE);
        k[at + 8] = (byte) (seq >>> 24);
        k[at + 9] = (byte) (seq >>> 16);
        k[at + 10] = (byte) (seq >>> 8);
        k[at + 11] = (byte) seq;
        return k;
    }

    /** The Strata key of the session of {@code key} from {@code start} to {@code end}. */
    static byte[] sessionKey(byte[] key, long start, long end) {
        byte[] k = encoded(key, (byte) 0, SESSION_SUFFIX_BYTES);
        putLong(k, k.length - SESSION_SUFFIX_BYTES, end ^ Long.MIN_VALUE);
        putLong(k, k.length - Long.BYTES, start ^ Long.MIN_VALUE);
        return k;
    }

    /**
     * The time index key of the window record {@code stored} (a {@link #windowKey}):
     * {@code 0x02}, window start, escaped key and terminator, sequence number. Same length.
     */
    static byte[] windowIndexKey(byte[] stored) {
        int n = stored.length;
        byte[] out = new byte[n];
        out[0] = INDEX;
        System.arraycopy(stored, n - WINDOW_SUFFIX_BYTES, out, 1, Long.BYTES);
        System.arraycopy(stored, 1, out, 1 + Long.BYTES, n - 1 - WINDOW_SUFFIX_BYTES);
        System.arraycopy(stored, n - Integer.BYTES, out, n - Integer.BYTES, Integer.BYTES);
        return out;
    }

    /**
     * The time index key of the session record {@code stored} (a {@link #sessionKey}):
     * {@code 0x02}, session end, session start, escaped key and terminator. Same length.
     */
    static byte[] sessionIndexKey(byte[] stored) {
        int n = stored.length;
        byte[] out = new byte[n];
        out[0] = INDEX;
        System.arraycopy(stored, n - SESSION_SUFFIX_BYTES, out, 1, SESSION_SUFFIX_BYTES);
        System.arraycopy(stored, 1, out, 1 + SESSION_SUFFIX_BYTES, n - 1 - SESSION_SUFFIX_BYTES);
        return out;
    }

    /** The first time index key of time {@code time} or later: {@code 0x02} and the time. */
    static byte[] indexTime(long time) {
        byte[] k = new byte[1 + Long.BYTES];
        k[0] = INDEX;
        putLong(k, 1, time ^ Long.MIN_VALUE);
        return k;
    }

    /** The first time (window start, session end) of the time index key {@code index}. */
    static long indexTime(byte[] index) {
        return ByteBuffer.wrap(index, 1, Long.BYTES).getLong() ^ Long.MIN_VALUE;
    }

    /** The session start of the session time index key {@code index}. */
    static long indexSessionStart(byte[] index) {
        return ByteBuffer.wrap(index, 1 + Long.BYTES, Long.BYTES).getLong() ^ Long.MIN_VALUE;
    }

    /**
     * The user key of the time index key {@code index}, whose escaped key starts at
     * {@code from} and is followed by {@code trailing} bytes after its terminator.
     */
    static byte[] indexUserKey(byte[] index, int from, int trailing) {
        int end = index.length - trailing - 2;
        byte[] key = new byte[end - from];
        int n = 0;
        for (int i = from; i < end; i++) {
            key[n++] = index[i];
            if (index[i] == 0) {
                i++;
            }
        }
        return n == key.length ? key : Arrays.copyOf(key, n);
    }

    /** Writes {@code v} big-endian at {@code at}. */
    private static void putLong(byte[] b, int at, long v) {
        for (int i = 7; i >= 0; i--) {
            b[at + i] = (byte) v;
            v >>>= 8;
        }
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
