package dev.strata.lsm.config;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Keeps configuration error messages readable whatever the document holds: a value the
 * message quotes (the parser's messages quote the offending text too) is shown by its
 * first {@value #QUOTED_CHARS} characters and its length, so a megabyte attribute yields
 * a one-line message rather than a megabyte one.
 */
final class ConfigMessages {
    /** How much of a long quoted value a message keeps. */
    static final int QUOTED_CHARS = 64;
    /** Unquoted runs without whitespace (a long element name, say) are cut beyond this length. */
    static final int MAX_WORD_CHARS = 200;

    private static final Pattern SINGLE_QUOTED = Pattern.compile("'([^']{" + (QUOTED_CHARS + 1) + ",})'");
    private static final Pattern DOUBLE_QUOTED = Pattern.compile("\"([^\"]{" + (QUOTED_CHARS + 1) + ",})\"");
    private static final Pattern LONG_WORD = Pattern.compile("\\S{" + (MAX_WORD_CHARS + 1) + ",}");

    private ConfigMessages() {
    }

    /** {@code message} with every long quoted value, and every overlong word, shortened. */
    static String abbreviate(String message) {
        if (message == null || message.length() <= QUOTED_CHARS) {
            return message;
        }
        String m = shorten(message, SINGLE_QUOTED, '\'', QUOTED_CHARS);
        m = shorten(m, DOUBLE_QUOTED, '"', QUOTED_CHARS);
        return shorten(m, LONG_WORD, (char) 0, MAX_WORD_CHARS);
    }

    private static String shorten(String message, Pattern pattern, char quote, int keep) {
        Matcher matcher = pattern.matcher(message);
        StringBuilder out = new StringBuilder();
        int last = 0;
        while (matcher.find()) {
            String text = quote == 0 ? matcher.group() : matcher.group(1);
            out.append(message, last, matcher.start());
            if (quote != 0) {
                out.append(quote);
            }
            out.append(text, 0, keep).append("… (").append(text.length()).append(" chars)");
            if (quote != 0) {
                out.append(quote);
            }
            last = matcher.end();
        }
        if (last == 0) {
            return message;
        }
        return out.append(message, last, message.length()).toString();
    }
}
