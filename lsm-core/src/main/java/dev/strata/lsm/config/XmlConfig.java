package dev.strata.lsm.config;

import dev.strata.lsm.ConfigException;
import dev.strata.lsm.StoreConfig;
import org.xml.sax.InputSource;
import org.xml.sax.SAXException;
import org.xml.sax.SAXParseException;
import org.xml.sax.XMLReader;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Objects;

/**
 * Reads a {@link StoreConfig} from an XML document in the format of
 * {@code strata-config-1.xsd} (described in {@code docs/config.md}):
 *
 * <pre>{@code
 * <store>
 *   <memtable bytes="64MiB" maxImmutable="2"/>
 *   <wal mode="async"/>
 *   <mergePolicy name="size-tiered">
 *     <param name="fanout" value="4"/>
 *   </mergePolicy>
 * </store>
 * }</pre>
 *
 * <p>The document is first validated against the schema, then read; values that are
 * absent keep the {@link StoreConfig#builder() builder}'s defaults; a document without
 * {@code <mergePolicy>} names no policy ({@link StoreConfig#mergePolicyNamed()} false), so the
 * store runs the one its manifest records or, when new, its default. Every problem is a
 * {@link ConfigException} whose message starts with {@code source:line:column: } and names
 * it: malformed XML, anything the schema does not allow, an unknown merge policy or
 * parameter, a parameter given twice or out of range, or a value the builder rejects.
 * DOCTYPEs are rejected and nothing outside the document is ever opened. A document may be
 * at most {@value #MAX_DOCUMENT_BYTES} bytes long, and messages quote a long value only in
 * part (its first {@value ConfigMessages#QUOTED_CHARS} characters and its length).
 *
 * <p>Stateless and thread-safe.
 */
public final class XmlConfig {
    /** The largest configuration document read, in bytes (1 MiB). */
    public static final int MAX_DOCUMENT_BYTES = 1 << 20;

    private XmlConfig() {
    }

    /**
     * Reads the configuration in {@code file}; error messages name the file as given.
     *
     * @param file the XML document
     * @return the validated configuration
     * @throws ConfigException if the file cannot be read, is larger than {@link #MAX_DOCUMENT_BYTES}
     *     or its configuration is invalid
     */
    public static StoreConfig read(Path file) {
        Objects.requireNonNull(file, "file");
        byte[] document;
        // A stream, not Files.readAllBytes: the size a file reports says nothing for
        // /dev/zero, a FIFO or a file still growing, and the limit must hold for them too.
        try (InputStream in = Files.newInputStream(file)) {
            document = readLimited(in, file.toString(), "configuration file");
        } catch (NoSuchFileException e) {
            throw new ConfigException(file + ": configuration file does not exist", e);
        } catch (IOException e) {
            throw new ConfigException(file + ": cannot read configuration file: " + e, e);
        }
        return parse(document, file.toString());
    }

    /**
     * Reads the configuration from {@code in} to its end. The stream is not closed.
     *
     * @param in the document's bytes; the encoding is taken from the XML declaration (UTF-8 by default)
     * @param sourceName what error messages call the document, e.g. a file name or URL
     * @return the validated configuration
     * @throws ConfigException if the stream cannot be read, holds more than {@link #MAX_DOCUMENT_BYTES}
     *     or its configuration is invalid
     */
    public static StoreConfig read(InputStream in, String sourceName) {
        Objects.requireNonNull(in, "in");
        Objects.requireNonNull(sourceName, "sourceName");
        byte[] document;
        try {
            document = readLimited(in, sourceName, "configuration");
        } catch (IOException e) {
            throw new ConfigException(sourceName + ": cannot read configuration: " + e, e);
        }
        return parse(document, sourceName);
    }

    /**
     * Reads {@code in} to its end, but never more than one byte past
     * {@link #MAX_DOCUMENT_BYTES}.
     *
     * @throws ConfigException if the document is larger than the limit
     */
    private static byte[] readLimited(InputStream in, String sourceName, String what) throws IOException {
        byte[] document = in.readNBytes(MAX_DOCUMENT_BYTES + 1);
        if (document.length > MAX_DOCUMENT_BYTES) {
            throw new ConfigException(sourceName + ": " + what + " is larger than the limit of " + MAX_DOCUMENT_BYTES
                    + " bytes; a store configuration is a few hundred bytes");
        }
        return document;
    }

    /**
     * Validates, then reads. Two passes over the same bytes: the schema must pass before
     * any value is interpreted, and a streaming pipeline would report a bad policy name on
     * line 3 ahead of a schema error on line 2.
     */
    private static StoreConfig parse(byte[] document, String sourceName) {
        ConfigSchema.validate(document, sourceName);
        ConfigDocumentHandler handler = new ConfigDocumentHandler(sourceName);
        XMLReader reader = SecureXml.newReader();
        reader.setContentHandler(handler);
        try {
            reader.parse(new InputSource(new ByteArrayInputStream(document)));
        } catch (SAXParseException e) {
            throw XmlPosition.of(sourceName, e).error(e.getMessage(), e);
        } catch (SAXException | IOException e) {
            // Not expected once validation passed: the same bytes parsed cleanly a moment ago.
            throw new ConfigException(sourceName + ": cannot read configuration: "
                    + ConfigMessages.abbreviate(e.getMessage()), e);
        }
        return handler.result();
    }
}
