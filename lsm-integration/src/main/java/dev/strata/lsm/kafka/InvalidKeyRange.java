package dev.strata.lsm.kafka;

import org.apache.kafka.common.utils.Bytes;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The warning Kafka's stores log, word for word, when a range's lower key is after its upper
 * key (the range is then empty): Kafka's store contract tests look for it.
 */
final class InvalidKeyRange {
    private static final Logger LOG = LoggerFactory.getLogger(InvalidKeyRange.class);

    static final String WARNING = "Returning empty iterator for fetch with invalid key range: from > to. "
            + "This may be due to range arguments set in the wrong order, "
            + "or serdes that don't preserve ordering when lexicographically comparing the serialized bytes. "
            + "Note that the built-in numerical serdes do not follow this for negative numbers";

    private InvalidKeyRange() {
    }

    /** Logs the warning. */
    static void warn() {
        LOG.warn(WARNING);
    }

    /** True, after logging the warning, when both bounds are given and {@code from} is after {@code to}. */
    static boolean check(Bytes from, Bytes to) {
        if (from != null && to != null && from.compareTo(to) > 0) {
            warn();
            return true;
        }
        return false;
    }
}
