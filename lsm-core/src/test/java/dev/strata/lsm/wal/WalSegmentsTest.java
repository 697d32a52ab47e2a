package dev.strata.lsm.wal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.strata.lsm.StoreException;
import dev.strata.lsm.io.FileChannelStorageIO;
import dev.strata.lsm.io.StorageIO;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class WalSegmentsTest {
    @TempDir
    Path dir;

    private final StorageIO io = new FileChannelStorageIO();

    @Test
    void fileNamesArePaddedToSixDigitsAndGrowBeyond() {
        assertEquals("000000.wal", WalSegments.fileName(0));
        assertEquals("000042.wal", WalSegments.fileName(42));
        assertEquals("999999.wal", WalSegments.fileName(999_999));
        assertEquals("1000000.wal", WalSegments.fileName(1_000_000));
        assertEquals(dir.resolve("000007.wal"), WalSegments.path(dir, 7));
        assertThrows(IllegalArgumentException.class, () -> WalSegments.fileName(-1));
    }

    @Test
    void parsesTheNumbersItFormats() {
        for (long n : new long[] {0, 1, 42, 999_999, 1_000_000, Long.MAX_VALUE}) {
            assertEquals(OptionalLong.of(n), WalSegments.parseNumber(WalSegments.fileName(n)));
        }
        assertEquals(OptionalLong.of(12), WalSegments.parseNumber(dir.resolve("000012.wal")));
    }

    @Test
    void rejectsNamesThatAreNotSegments() {
        for (String name : new String[] {".wal", "abc.wal", "-1.wal", "+1.wal", "12.wal.tmp", "000012.log",
                "000012", "1 2.wal", "99999999999999999999.wal", "9223372036854775808.wal"}) {
            assertTrue(WalSegments.parseNumber(name).isEmpty(), name);
        }
    }

    @Test
    void listsSegmentsByNumberAndIgnoresOtherFiles() throws IOException {
        for (String name : new String[] {"1000000.wal", "000002.wal", "000010.wal", "CURRENT", "000003.sst",
                "x.wal", "000001.wal"}) {
            Files.createFile(dir.resolve(name));
        }
        Files.createDirectory(dir.resolve("000005.wal"));
        List<Path> segments = WalSegments.list(io, dir);
        assertEquals(List.of(dir.resolve("000001.wal"), dir.resolve("000002.wal"), dir.resolve("000010.wal"),
                dir.resolve("1000000.wal")), segments);
    }

    @Test
    void listingAMissingDirectoryNamesIt() {
        Path missing = dir.resolve("nope");
        StoreException e = assertThrows(StoreException.class, () -> WalSegments.list(io, missing));
        assertTrue(e.getMessage().contains(missing.toString()), e.getMessage());
    }
}
