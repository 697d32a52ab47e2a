package dev.strata.lsm.config;

import dev.strata.lsm.ConfigException;
import dev.strata.lsm.StoreConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Size limits of configuration input: a document larger than {@link XmlConfig#MAX_DOCUMENT_BYTES}
 * is refused after reading at most one byte past the limit (also from endless sources such
 * as {@code /dev/zero}), and an error message quotes a long value only in part.
 */
class XmlConfigLimitsTest {
    @TempDir
    Path dir;

    private static String limit() {
        return XmlConfig.MAX_DOCUMENT_BYTES + " bytes";
    }

    @Test
    @EnabledOnOs(OS.LINUX)
    void anEndlessFileIsRefusedWithoutReadingItAll() {
        Path zero = Path.of("/dev/zero");
        ConfigException e = assertThrows(ConfigException.class, () -> StoreConfig.fromXml(zero));
        assertTrue(e.getMessage().startsWith("/dev/zero: ") && e.getMessage().contains(limit()), e.getMessage());
    }

    @Test
    void aFileOverTheLimitIsRefusedNamingFileAndLimit() throws Exception {
        Path big = dir.resolve("big.xml");
        String padding = "<!--" + "x".repeat(XmlConfig.MAX_DOCUMENT_BYTES) + "-->";
        Files.writeString(big, "<store>" + padding + "<wal mode=\"sync\"/></store>");
        ConfigException e = assertThrows(ConfigException.class, () -> StoreConfig.fromXml(big));
        assertTrue(e.getMessage().startsWith(big + ": ") && e.getMessage().contains(limit()), e.getMessage());
    }

    @Test
    void aFileJustUnderTheLimitIsRead() throws Exception {
        Path file = dir.resolve("padded.xml");
        String head = "<store><wal mode=\"sync\"/><!--";
        String tail = "--></store>";
        Files.writeString(file, head + "x".repeat(XmlConfig.MAX_DOCUMENT_BYTES - head.length() - tail.length()) + tail);
        assertEquals(XmlConfig.MAX_DOCUMENT_BYTES, Files.size(file));
        assertEquals(dev.strata.lsm.WalSyncMode.SYNC, StoreConfig.fromXml(file).walMode());
    }

    @Test
    void anEndlessStreamIsRefused() {
        InputStream endless = new InputStream() {
            @Override
            public int read() {
                return ' ';
            }
        };
        ConfigException e = assertThrows(ConfigException.class, () -> XmlConfig.read(endless, "stdin"));
        assertTrue(e.getMessage().startsWith("stdin: ") && e.getMessage().contains(limit()), e.getMessage());
    }

    @Test
    void longValuesAreQuotedInPart() {
        String huge = "9".repeat(20_000);
        for (String xml : new String[] {
                "<store><memtable bytes=\"" + huge + "x\"/></store>",
                "<store><memtable bytes=\"" + huge + "\"/></store>",
                "<store><mergePolicy name=\"size-tiered\"><param name=\"fanout\" value=\"" + huge
                        + "\"/></mergePolicy></store>",
                "<store><mergePolicy name=\"" + huge + "\"/></store>",
                "<store><" + "e".repeat(20_000) + "/></store>"}) {
            ConfigException e = assertThrows(ConfigException.class, () -> XmlConfig.read(
                    new ByteArrayInputStream(xml.getBytes(StandardCharsets.UTF_8)), "big.xml"));
            String m = e.getMessage();
            assertTrue(m.length() < 1000, () -> "message of " + m.length() + " chars: " + m.substring(0, 1000));
            assertTrue(m.startsWith("big.xml:1:"), m);
            assertTrue(xml.contains("<eeee") || m.contains("… (20000 chars)") || m.contains("… (20001 chars)"), m);
            assertFalse(m.contains("9".repeat(100)) || m.contains("e".repeat(100)), m);
        }
    }
}
