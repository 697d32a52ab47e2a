package dev.strata.lsm.config;

import dev.strata.lsm.ConfigException;
import org.xml.sax.ErrorHandler;
import org.xml.sax.InputSource;
import org.xml.sax.SAXException;
import org.xml.sax.SAXParseException;

import javax.xml.XMLConstants;
import javax.xml.transform.sax.SAXSource;
import javax.xml.transform.stream.StreamSource;
import javax.xml.validation.Schema;
import javax.xml.validation.SchemaFactory;
import javax.xml.validation.Validator;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.URL;

/**
 * The XSD every configuration document is checked against before any value is read:
 * {@value #RESOURCE}, shipped next to this class. It fixes the document's shape and the
 * lexical form of each value; ranges and policy names are checked later by
 * {@link dev.strata.lsm.StoreConfig.Builder} and the policy registry.
 */
final class ConfigSchema {
    /** Resource name of the schema, relative to this package. */
    static final String RESOURCE = "strata-config-1.xsd";

    /** Appended to errors about a byte size, whose XSD message only shows the regular expression. */
    private static final String BYTE_SIZE_HINT = " (a byte size is a whole number with an optional unit:"
            + " B, K or KiB, M or MiB, G or GiB, T or TiB, KB, MB, GB, TB; e.g. 4096, 64MiB, 500KB)";

    private ConfigSchema() {
    }

    /** Loaded once, on first use: a {@link Schema} is immutable and thread-safe. */
    private static final class Loaded {
        static final Schema SCHEMA = load();
    }

    /**
     * Validates a whole document.
     *
     * @throws ConfigException at the first error's line and column: malformed XML, a
     *     DOCTYPE, or anything the schema does not allow
     */
    static void validate(byte[] document, String sourceName) {
        Validator validator = Loaded.SCHEMA.newValidator();
        FirstError errors = new FirstError();
        try {
            // The schema is fixed: an xsi:schemaLocation hint in the document must not make
            // the validator fetch anything.
            validator.setProperty(XMLConstants.ACCESS_EXTERNAL_DTD, "");
            validator.setProperty(XMLConstants.ACCESS_EXTERNAL_SCHEMA, "");
            validator.setErrorHandler(errors);
            validator.validate(new SAXSource(SecureXml.newReader(),
                    new InputSource(new ByteArrayInputStream(document))));
        } catch (SAXParseException e) {
            if (errors.first == null) {
                throw XmlPosition.of(sourceName, e).error(e.getMessage(), e);
            }
            // Otherwise the parse stopped at a later error; the first one is reported below.
        } catch (SAXException | IOException e) {
            throw new ConfigException(sourceName + ": cannot validate configuration: "
                    + ConfigMessages.abbreviate(e.getMessage()), e);
        }
        if (errors.first != null) {
            String message = errors.message.toString();
            throw XmlPosition.of(sourceName, errors.first).error(
                    message.contains("'byteSize'") ? message + BYTE_SIZE_HINT : message, errors.first);
        }
    }

    private static Schema load() {
        URL url = ConfigSchema.class.getResource(RESOURCE);
        if (url == null) {
            throw new IllegalStateException("configuration schema " + RESOURCE + " is missing from the class path");
        }
        try (InputStream in = url.openStream()) {
            SchemaFactory factory = SchemaFactory.newDefaultInstance();
            factory.setFeature(XMLConstants.FEATURE_SECURE_PROCESSING, true);
            factory.setProperty(XMLConstants.ACCESS_EXTERNAL_DTD, "");
            factory.setProperty(XMLConstants.ACCESS_EXTERNAL_SCHEMA, "");
            return factory.newSchema(new StreamSource(in, url.toExternalForm()));
        } catch (SAXException | IOException e) {
            throw new IllegalStateException("cannot load configuration schema " + url, e);
        }
    }

    /**
     * Keeps the first validation error together with the ones reported at the same spot,
     * and stops at the first error elsewhere. The validator explains one bad attribute in
     * two messages (the facet that failed, then the attribute and element it belongs to);
     * only the pair names both the problem and the attribute.
     */
    private static final class FirstError implements ErrorHandler {
        SAXParseException first;
        final StringBuilder message = new StringBuilder();

        @Override
        public void warning(SAXParseException e) {
        }

        @Override
        public void error(SAXParseException e) throws SAXParseException {
            if (first == null) {
                first = e;
                message.append(e.getMessage());
            } else if (e.getLineNumber() == first.getLineNumber() && e.getColumnNumber() == first.getColumnNumber()) {
                message.append(' ').append(e.getMessage());
            } else {
                throw e;
            }
        }

        @Override
        public void fatalError(SAXParseException e) throws SAXParseException {
            throw e;
        }
    }
}
