package dev.strata.lsm.bench.workload;

import org.junit.jupiter.api.Test;

import java.util.Arrays;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class RecordFormatTest {

    @Test
    void keysAreFixedSizeAndSortInRecordOrder() {
        RecordFormat f = new RecordFormat(16, 100, 1);
        byte[] previous = f.key(0);
        for (long r = 1; r < 70_000; r += 7) {
            byte[] k = f.key(r);
            assertEquals(16, k.length);
            assertEquals(r, f.record(k));
            assertTrue(Arrays.compareUnsigned(previous, k) < 0, "key of " + r + " sorts after its predecessor");
            previous = k;
        }
    }

    @Test
    void valuesAreReproducibleAndDifferPerSalt() {
        RecordFormat a = new RecordFormat(16, 100, 1);
        RecordFormat b = new RecordFormat(16, 100, 1);
        assertArrayEquals(a.value(5, 1), b.value(5, 1), "same seed, record and salt: same bytes on every engine");
        assertEquals(100, a.value(5, 1).length);
        assertFalse(Arrays.equals(a.value(5, 1), a.value(5, 2)), "an overwrite changes the value");
        assertThrows(IllegalArgumentException.class, () -> new RecordFormat(4, 100, 1));
    }
}
