package dev.strata.lsm.config;

import dev.strata.lsm.ConfigException;
import org.xml.sax.Locator;
import org.xml.sax.SAXParseException;

/**
 * A place in a configuration document, as the XML parser reports it: for an element, the
 * line and column just after the {@code >} that ends its start tag (XML parsers do not
 * report where a tag begins). Every configuration error is prefixed with it, so editors
 * and terminals can jump to the spot.
 *
 * @param source the name the document was read under (a path, or the caller's name)
 * @param line 1-based line, or -1 when the parser does not know
 * @param column 1-based column, or -1 when the parser does not know
 */
record XmlPosition(String source, int line, int column) {

    /** Where the parser's locator stands now. */
    static XmlPosition of(String source, Locator locator) {
        return locator == null ? new XmlPosition(source, -1, -1)
                : new XmlPosition(source, locator.getLineNumber(), locator.getColumnNumber());
    }

    /** Where a parse or validation error was found. */
    static XmlPosition of(String source, SAXParseException e) {
        return new XmlPosition(source, e.getLineNumber(), e.getColumnNumber());
    }

    /** A configuration error at this position; long values it quotes are shortened. */
    ConfigException error(String message) {
        return new ConfigException(this + ": " + ConfigMessages.abbreviate(message));
    }

    /** A configuration error at this position, keeping what caused it; long values it quotes are shortened. */
    ConfigException error(String message, Throwable cause) {
        return new ConfigException(this + ": " + ConfigMessages.abbreviate(message), cause);
    }

    /** {@code source:line:column}, the prefix of every message. */
    @Override
    public String toString() {
        return source + ":" + line + ":" + column;
    }
}
