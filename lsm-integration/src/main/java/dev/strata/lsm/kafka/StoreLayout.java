package dev.strata.lsm.kafka;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.streams.errors.ProcessorStateException;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * How a Kafka Streams key-value store is laid out in one Strata store (docs/kafka-streams.md).
 * The first byte of every Strata key says what the key is:
 *
 * <ul>
 *   <li>{@code 0x01} + user key: a record of the Kafka Streams store, its value the user value.
 *       Strata orders keys unsigned-lexicographically, as {@code Bytes} does, so the prefix
 *       keeps the user order and every range is one Strata scan.</li>
 *   <li>{@code 0x00 'S'}: the open/closed marker, one byte ({@link #OPEN} or {@link #CLOSED}).</li>
 *   <li>{@code 0x00 'O'} + UTF-8 of {@code topic-partition}: the committed changelog offset of
 *       that partition, 8 bytes big-endian.</li>
 *   <li>{@code 0x00 'P'}: the store's IQv2 position, in Kafka's {@code PositionSerde} encoding.</li>
 * </ul>
 *
 * Metadata keys sort before every record key, so they never show in a user range.
 */
final class StoreLayout {
    static final byte META = 0x00;
    static final byte DATA = 0x01;

    static final byte OPEN = 1;
    static final byte CLOSED = 0;

    static final byte[] STATUS_KEY = {META, 'S'};
    static final byte[] POSITION_KEY = {META, 'P'};
    static final byte[] OFFSET_PREFIX = {META, 'O'};
    /** First key after every offset key. */
    static final byte[] OFFSET_END = {META, 'O' + 1};

    /** Bytes a record key adds in front of the user key. */
    static final int DATA_KEY_PREFIX_BYTES = 1;

    /** The first record key. */
    static final byte[] DATA_START = {DATA};
    /** The first key after every record key. */
    static final byte[] DATA_END = {DATA + 1};

    private StoreLayout() {
    }

    /** The Strata key of the user key {@code key}. */
    static byte[] dataKey(byte[] key) {
        byte[] k = new byte[key.length + 1];
        k[0] = DATA;
        System.arraycopy(key, 0, k, 1, key.length);
        return k;
    }

    /** The user key of the Strata record key {@code stored}. */
    static byte[] userKey(byte[] stored) {
        return Arrays.copyOfRange(stored, 1, stored.length);
    }

    /**
     * The first Strata key after every record whose user key is at most {@code key}: the
     * record key of {@code key} followed by a zero byte, the smallest key greater than it.
     */
    static byte[] dataKeyAfter(byte[] key) {
        byte[] k = new byte[key.length + 2];
        k[0] = DATA;
        System.arraycopy(key, 0, k, 1, key.length);
        return k;
    }

    /**
     * The first Strata key after every record whose user key starts with {@code prefix}:
     * the prefix incremented as a big-endian number, or {@link #DATA_END} when it is all 0xFF.
     */
    static byte[] dataKeyAfterPrefix(byte[] prefix) {
        byte[] k = dataKey(prefix);
        for (int i = k.length - 1; i >= 1; i--) {
            if (k[i] != (byte) 0xFF) {
                k[i]++;
                return Arrays.copyOf(k, i + 1);
            }
        }
        return DATA_END.clone();
    }

    /**
     * Adds {@code changelogOffsets} to {@code batch}: each partition's offset under its key
     * ({@code keyOf}, which may cache), or a delete of the key where the offset is null.
     */
    static void addOffsets(dev.strata.lsm.WriteBatch batch, java.util.Map<TopicPartition, Long> changelogOffsets,
                           java.util.function.Function<TopicPartition, byte[]> keyOf) {
        for (java.util.Map.Entry<TopicPartition, Long> e : changelogOffsets.entrySet()) {
            byte[] key = keyOf.apply(e.getKey());
            if (e.getValue() == null) {
                batch.delete(key);
            } else {
                batch.put(key, encodeOffset(e.getValue()));
            }
        }
    }

    /** The key holding the committed offset of {@code partition}. */
    static byte[] offsetKey(TopicPartition partition) {
        byte[] name = partition.toString().getBytes(StandardCharsets.UTF_8);
        byte[] k = new byte[OFFSET_PREFIX.length + name.length];
        System.arraycopy(OFFSET_PREFIX, 0, k, 0, OFFSET_PREFIX.length);
        System.arraycopy(name, 0, k, OFFSET_PREFIX.length, name.length);
        return k;
    }

    static byte[] encodeOffset(long offset) {
        return ByteBuffer.allocate(Long.BYTES).putLong(offset).array();
    }

    static long decodeOffset(byte[] value, String storeName, TopicPartition partition) {
        if (value.length != Long.BYTES) {
            throw new ProcessorStateException("store " + storeName + ": committed offset of " + partition + " has "
                    + value.length + " bytes, expected " + Long.BYTES);
        }
        return ByteBuffer.wrap(value).getLong();
    }
}
