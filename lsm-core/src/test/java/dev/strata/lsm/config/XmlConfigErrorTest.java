package dev.strata.lsm.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.strata.lsm.ConfigException;
import org.junit.jupiter.api.Test;

/**
 * Every kind of bad document is a {@link ConfigException} that starts with
 * {@code source:line:column: } and names the problem.
 *
 * <p>Positions are the parser's: for an element, the column just after the {@code >} that
 * ends its start tag. In these documents each start tag is alone on its line, so the
 * expected column is the line's length plus one.
 */
class XmlConfigErrorTest {

    /** Asserts the exact position prefix and that the message contains every fragment. */
    private static ConfigException assertError(String xml, String position, String... fragments) {
        ConfigException e = assertThrows(ConfigException.class, () -> XmlConfigTest.read(xml));
        String m = e.getMessage();
        assertTrue(m.startsWith("test.xml:" + position + ": "), "expected position " + position + " in: " + m);
        for (String f : fragments) {
            assertTrue(m.contains(f), "expected '" + f + "' in: " + m);
        }
        return e;
    }

    // ---- malformed XML

    @Test
    void unclosedElementIsReportedWhereTheParserNoticesIt() {
        assertError("""
                <store>
                  <memtable bytes="1MiB">
                </store>
                """, "3:3", "memtable", "end-tag");
    }

    @Test
    void textBeforeTheRootIsMalformed() {
        assertError("memtable=64MiB\n", "1:1", "Content is not allowed in prolog");
    }

    @Test
    void emptyDocumentIsMalformed() {
        assertError("", "1:1", "Premature end of file");
    }

    // ---- schema violations

    @Test
    void unknownRootElement() {
        assertError("<config/>", "1:10", "'config'");
    }

    @Test
    void unknownElement() {
        assertError("""
                <store>
                  <compaction/>
                </store>
                """, "2:16", "'compaction'", "memtable, wal, sstable");
    }

    @Test
    void unknownAttribute() {
        assertError("""
                <store>
                  <memtable color="red"/>
                </store>
                """, "2:26", "'color'", "'memtable'");
    }

    @Test
    void elementGivenTwice() {
        assertError("""
                <store>
                  <memtable bytes="1MiB"/>
                  <memtable bytes="2MiB"/>
                </store>
                """, "3:27", "'memtable'");
    }

    @Test
    void mergePolicyWithoutName() {
        assertError("""
                <store>
                  <mergePolicy/>
                </store>
                """, "2:17", "'name'", "'mergePolicy'");
    }

    @Test
    void paramWithoutValue() {
        assertError("""
                <store>
                  <mergePolicy name="size-tiered">
                    <param name="fanout"/>
                  </mergePolicy>
                </store>
                """, "3:27", "'value'", "'param'");
    }

    @Test
    void badWalModeListsTheModes() {
        assertError("""
                <store>
                  <wal mode="fast"/>
                </store>
                """, "2:21", "'fast'", "none, async, sync", "'mode'", "'wal'");
    }

    @Test
    void nonNumericByteSizeExplainsTheFormat() {
        assertError("""
                <store>
                  <memtable bytes="64 lots"/>
                </store>
                """, "2:30", "'64 lots'", "'bytes'", "'memtable'", "64MiB");
    }

    @Test
    void negativeByteSizeIsNotASize() {
        assertError("""
                <store>
                  <blockCache bytes="-1"/>
                </store>
                """, "2:27", "'-1'", "'bytes'", "'blockCache'");
    }

    @Test
    void nonNumericCount() {
        assertError("""
                <store>
                  <background threads="two"/>
                </store>
                """, "2:30", "'two'", "'threads'", "'background'");
    }

    @Test
    void countBeyondAnInt() {
        assertError("""
                <store>
                  <background threads="99999999999"/>
                </store>
                """, "2:38", "'99999999999'", "2147483647");
    }

    @Test
    void schemaErrorsComeBeforeValueErrors() {
        // The unknown policy is on an earlier line, but the document is validated first.
        assertError("""
                <store>
                  <mergePolicy name="binomial"/>
                  <wal mode="fast"/>
                </store>
                """, "3:21", "'fast'");
    }

    // ---- merge policy and parameters

    @Test
    void unknownMergePolicyIsReportedAtItsElementAndListsTheAvailableOnes() {
        assertError("""
                <store>
                  <mergePolicy name="binomial">
                    <param name="k" value="6"/>
                  </mergePolicy>
                </store>
                """, "2:32", "unknown merge policy 'binomial'", "no-merge", "size-tiered");
    }

    @Test
    void unknownParameterIsReportedAtItsParamAndListsTheAllowedOnes() {
        assertError("""
                <store>
                  <mergePolicy name="size-tiered">
                    <param name="fanout" value="4"/>
                    <param name="k" value="6"/>
                  </mergePolicy>
                </store>
                """, "4:32", "unknown parameter 'k'", "'size-tiered'", "allowed: fanout, size-ratio, max-runs");
    }

    @Test
    void policyWithoutParametersRejectsAnyParam() {
        assertError("""
                <store>
                  <mergePolicy name="no-merge">
                    <param name="fanout" value="4"/>
                  </mergePolicy>
                </store>
                """, "3:37", "unknown parameter 'fanout'", "'no-merge'", "takes no parameters");
    }

    @Test
    void parameterOutOfRangeSaysWhatIsAllowed() {
        assertError("""
                <store>
                  <mergePolicy name="size-tiered">
                    <param name="fanout" value="100"/>
                  </mergePolicy>
                </store>
                """, "3:39", "\"100\"", "'fanout'", "an integer from 2 to 64");
    }

    @Test
    void parameterThatIsNotANumberSaysWhatIsAllowed() {
        assertError("""
                <store>
                  <mergePolicy name="size-tiered">
                    <param name="size-ratio" value="big"/>
                  </mergePolicy>
                </store>
                """, "3:43", "\"big\"", "'size-ratio'", "a number from 1.0 to 1000.0");
    }

    @Test
    void duplicatedParameterIsReportedAtTheSecondOne() {
        assertError("""
                <store>
                  <mergePolicy name="size-tiered">
                    <param name="fanout" value="4"/>
                    <param name="max-runs" value="30"/>
                    <param name="fanout" value="5"/>
                  </mergePolicy>
                </store>
                """, "5:37", "'fanout'", "twice", "line 3, column 37");
    }

    // ---- values StoreConfig.Builder rejects

    @Test
    void pageSizeThatIsNotAPowerOfTwo() {
        assertError("""
                <store>
                  <sstable pageSize="5000"/>
                </store>
                """, "2:29", "<sstable>", "5000", "pageSize", "power of two");
    }

    @Test
    void zeroBackgroundThreads() {
        assertError("""
                <store>
                  <background threads="0"/>
                </store>
                """, "2:28", "<background>", "backgroundThreads", "from 1 to 64");
    }

    @Test
    void memtableLargerThanAllowed() {
        assertError("""
                <store>
                  <memtable bytes="2TiB"/>
                </store>
                """, "2:27", "<memtable>", "memtableBytes", "2^40");
    }

    @Test
    void byteSizeThatOverflowsALong() {
        assertError("""
                <store>
                  <memtable bytes="99999999999TiB"/>
                </store>
                """, "2:37", "<memtable>", "\"99999999999TiB\"", "too large");
        assertError("""
                <store>
                  <blockCache bytes="99999999999999999999"/>
                </store>
                """, "2:45", "<blockCache>", "\"99999999999999999999\"", "too large");
    }

    @Test
    void byteSizeThatOverflowsAnInt() {
        assertError("""
                <store>
                  <limits maxValueBytes="4GiB"/>
                </store>
                """, "2:33", "<limits>", "\"4GiB\"", "maxValueBytes", "too large");
    }

    @Test
    void maxValueBytesBeyondTheBuildersLimit() {
        assertError("""
                <store>
                  <limits maxValueBytes="1536MiB"/>
                </store>
                """, "2:36", "<limits>", "maxValueBytes", "1073741824");
    }

    @Test
    void badValueIsReportedAtItsOwnElementAmongGoodOnes() {
        assertError("""
                <store>
                  <memtable bytes="64MiB" maxImmutable="2"/>
                  <sstable pageSize="4096" bloomBitsPerKey="65"/>
                  <background threads="2"/>
                </store>
                """, "3:50", "<sstable>", "bloomBitsPerKey", "from 0 to 64");
    }

    @Test
    void valueRejectionKeepsTheBuildersExceptionAsCause() {
        ConfigException e = assertError("""
                <store>
                  <manifest rewriteBytes="1KiB"/>
                </store>
                """, "2:34", "<manifest>", "manifestRewriteBytes", ">= 4096");
        assertEquals(ConfigException.class, e.getCause().getClass());
    }

    @Test
    void aNegativeDeleteBatchIsRejectedByTheSchemaWithTheElementNamed() {
        ConfigException e = assertThrows(ConfigException.class, () -> XmlConfigTest.read("""
                <store>
                  <obsoleteFiles deleteBatchBytes="-1"/>
                </store>
                """));
        assertTrue(e.getMessage().contains("deleteBatchBytes") || e.getMessage().contains("obsoleteFiles"),
                e.getMessage());
    }

    @Test
    void policyTickOutOfRangeNamesTheElementAndTheAllowedValues() {
        assertError("""
                <store>
                  <background policyTickMillis="5"/>
                </store>
                """, "2:37", "<background>", "policyTickMillis", "0 (off) or from 10");
    }

    @Test
    void policyTickIsReadFromTheBackgroundElement() {
        assertEquals(250, XmlConfigTest.read("""
                <store>
                  <background threads="1" policyTickMillis="250"/>
                </store>
                """).policyTickMillis());
    }
}
