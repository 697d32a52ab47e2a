package dev.strata.lsm.sstable;

import java.util.Arrays;

/**
 * Ordering and printing of keys. User keys compare unsigned-lexicographically; internal
 * keys (user key, sequence number) compare by user key ascending, then sequence number
 * descending, so that the newest version of a key comes first.
 */
public final class InternalKeys {
    /** Largest sequence number: sequence numbers are 56-bit. */
    public static final long MAX_SEQNO = (1L << 56) - 1;

    private InternalKeys() {
    }

    /** Unsigned lexicographic comparison of user keys. */
    public static int compareUserKeys(byte[] a, byte[] b) {
        return Arrays.compareUnsigned(a, b);
    }

    /** Order of internal keys: user key ascending, then seqno descending. */
    public static int compare(byte[] keyA, long seqA, byte[] keyB, long seqB) {
        int c = Arrays.compareUnsigned(keyA, keyB);
        return c != 0 ? c : Long.compare(seqB, seqA);
    }

    /** The 8-byte trailer stored after a key: seqno in the high 56 bits, type in the low 8. */
    static long trailer(long seqno, EntryType type) {
        return (seqno << 8) | type.code();
    }

    /**
     * A short human-readable rendering of a key for error messages: printable ASCII in
     * quotes, anything else as hex; long keys are abbreviated with their length.
     */
    public static String describe(byte[] key) {
        if (key == null) {
            return "null";
        }
        int shown = Math.min(key.length, 48);
        boolean printable = true;
        for (int i = 0; i < shown; i++) {
            if (key[i] < 0x20 || key[i] > 0x7e) {
                printable = false;
                break;
            }
        }
        StringBuilder sb = new StringBuilder();
        if (printable) {
            sb.append('"');
            for (int i = 0; i < shown; i++) {
                sb.append((char) key[i]);
            }
            sb.append('"');
        } else {
            sb.append("0x");
            for (int i = 0; i < shown; i++) {
                sb.append(Character.forDigit((key[i] >> 4) & 0xf, 16)).append(Character.forDigit(key[i] & 0xf, 16));
            }
        }
        if (shown < key.length) {
            sb.append("...(").append(key.length).append(" bytes)");
        }
        return sb.toString();
    }
}
