package dev.strata.lsm.config;

import org.xml.sax.ErrorHandler;
import org.xml.sax.SAXException;
import org.xml.sax.SAXParseException;
import org.xml.sax.XMLReader;

import javax.xml.XMLConstants;
import javax.xml.parsers.ParserConfigurationException;
import javax.xml.parsers.SAXParserFactory;

/**
 * The one way this package turns bytes into XML events. A configuration file is short
 * and needs nothing from outside itself, so everything that could reach outside is off:
 * a DOCTYPE is a fatal error (which rules out external entities, external DTDs and
 * entity-expansion bombs in one stroke), and external entities and DTD loading are
 * disabled as well in case a future parser ignores the first switch.
 */
final class SecureXml {
    /** Treats every recoverable error as fatal and ignores warnings. */
    static final ErrorHandler STRICT = new ErrorHandler() {
        @Override
        public void warning(SAXParseException e) {
        }

        @Override
        public void error(SAXParseException e) throws SAXParseException {
            throw e;
        }

        @Override
        public void fatalError(SAXParseException e) throws SAXParseException {
            throw e;
        }
    };

    private SecureXml() {
    }

    /**
     * A new namespace-aware, non-validating SAX reader that rejects any DOCTYPE and never
     * opens an external resource. Readers are not thread-safe: one per parse.
     */
    static XMLReader newReader() {
        try {
            // The JDK's built-in parser, not whatever SAXParserFactory the class path names:
            // the feature names below are the JDK's, and a hardening switch a third-party
            // parser does not know must not be silently skipped.
            SAXParserFactory factory = SAXParserFactory.newDefaultInstance();
            factory.setNamespaceAware(true);
            factory.setValidating(false);
            factory.setXIncludeAware(false);
            factory.setFeature(XMLConstants.FEATURE_SECURE_PROCESSING, true);
            factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
            factory.setFeature("http://xml.org/sax/features/external-general-entities", false);
            factory.setFeature("http://xml.org/sax/features/external-parameter-entities", false);
            factory.setFeature("http://apache.org/xml/features/nonvalidating/load-external-dtd", false);
            XMLReader reader = factory.newSAXParser().getXMLReader();
            reader.setProperty(XMLConstants.ACCESS_EXTERNAL_DTD, "");
            reader.setProperty(XMLConstants.ACCESS_EXTERNAL_SCHEMA, "");
            reader.setErrorHandler(STRICT);
            return reader;
        } catch (ParserConfigurationException | SAXException e) {
            // The JDK parser supports every switch above; failing here is a broken runtime.
            throw new IllegalStateException("the JDK XML parser rejected a hardening setting", e);
        }
    }
}
