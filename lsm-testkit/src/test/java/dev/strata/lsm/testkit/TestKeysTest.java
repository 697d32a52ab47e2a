package dev.strata.lsm.testkit;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** {@link TestKeys#padded} writes what {@code String.format} writes, which the tests replaced. */
class TestKeysTest {
    @Test
    void paddedKeysAreWhatStringFormatWrites() {
        long[] numbers = {0, 7, 42, 99_999, 100_000, 123_456_789, Long.MAX_VALUE, -1, -42, Long.MIN_VALUE};
        for (int width = 1; width <= 12; width++) {
            for (long n : numbers) {
                assertEquals(String.format("key-%0" + width + "d", n), TestKeys.padded("key-", n, width),
                        "n " + n + ", width " + width);
                assertEquals(String.format("%0" + width + "d", n), TestKeys.padded("", n, width));
            }
        }
        assertEquals("100%x-00012", TestKeys.padded("100%x-", 12, 5), "the prefix is taken as it is");
    }

    @Test
    void aWidthBelowOneIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> TestKeys.padded("k", 1, 0));
    }
}
