package dev.strata.lsm.bench;

import picocli.CommandLine;

import java.io.UncheckedIOException;
import java.util.function.Function;

/**
 * A picocli converter over the project's own parser of a value ({@code FlushLengths.Spec.parse},
 * {@code Semantics.parse}, ...): the parser's error (an {@link IllegalArgumentException}, or an
 * {@link UncheckedIOException} for a file it could not read) becomes picocli's usage error,
 * {@code Invalid value for option '--NAME': MESSAGE}, so a bad value is refused by name before the
 * command runs. Subclasses name the parser in a no-argument constructor, as picocli instantiates
 * them. Stateless; safe to share between threads.
 *
 * @param <T> the option's type
 */
public abstract class ParsingConverter<T> implements CommandLine.ITypeConverter<T> {
    private final Function<String, T> parser;

    /**
     * A converter parsing with {@code parser}.
     *
     * @param parser the value's parser, throwing with a message naming the bad value
     */
    protected ParsingConverter(Function<String, T> parser) {
        this.parser = parser;
    }

    @Override
    public T convert(String value) {
        try {
            return parser.apply(value);
        } catch (IllegalArgumentException | UncheckedIOException e) {
            throw new CommandLine.TypeConversionException(e.getMessage());
        }
    }
}
