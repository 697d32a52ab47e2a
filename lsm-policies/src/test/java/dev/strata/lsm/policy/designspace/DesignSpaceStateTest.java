package dev.strata.lsm.policy.designspace;

import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * The design-space policy's durable state holds the round-robin cursors only (version 2); a
 * version-1 state, which also held a learned memtable size, still gives its cursors back.
 */
class DesignSpaceStateTest {
    @Test
    void cursorsSurviveAnEncodeAndLoad() {
        DesignSpaceState s = new DesignSpaceState();
        s.advanceCursor(1, "k1".getBytes(UTF_8));
        s.advanceCursor(3, "k3".getBytes(UTF_8));
        byte[] encoded = s.encode();
        assertEquals(2, encoded[0], "version 2");
        assertEquals(1 + 4 + 2 * (4 + 4 + 2), encoded.length, "no memtable size in it");
        DesignSpaceState loaded = new DesignSpaceState();
        loaded.load(encoded);
        assertArrayEquals("k1".getBytes(UTF_8), loaded.cursor(1));
        assertArrayEquals("k3".getBytes(UTF_8), loaded.cursor(3));
        assertNull(loaded.cursor(2));
    }

    @Test
    void aVersionOneStateGivesItsCursorsAndItsMemtableSizeIsSkipped() {
        byte[] key = "m".getBytes(UTF_8);
        byte[] v1 = ByteBuffer.allocate(1 + 8 + 4 + 4 + 4 + key.length).put((byte) 1).putLong(8L << 20).putInt(1)
                .putInt(2).putInt(key.length).put(key).array();
        DesignSpaceState loaded = new DesignSpaceState();
        loaded.load(v1);
        assertArrayEquals(key, loaded.cursor(2));
        assertEquals(2, loaded.encode()[0], "written back as version 2");
    }

    @Test
    void anotherPolicysStateIsIgnored() {
        DesignSpaceState loaded = new DesignSpaceState();
        loaded.load(new byte[] {7, 0, 0, 0, 1});
        assertNull(loaded.cursor(0));
    }
}
