package dev.strata.lsm.server;

import io.netty.handler.codec.redis.ErrorRedisMessage;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * INCRBYFLOAT's and HINCRBYFLOAT's arithmetic, as Redis 7 answers it: both the stored value
 * and the increment are decimal floats (exponents allowed, no leading or trailing space, at
 * most 5,120 characters), the sum is written with at most 17 digits after the point and no
 * trailing zeros ({@code "10.5"}, {@code "5000"}, never an exponent), and a sum outside the
 * range of an 80-bit long double (Redis's type) is refused as Infinity. Redis adds in binary
 * long double; here the sum is exact in decimal and then rounded to 17 places, which gives the
 * answers Redis prints for ordinary inputs ({@code 0.1} three times is {@code "0.3"} in both).
 * Hexadecimal floats, which Redis's {@code strtold} also reads, are refused. Stateless.
 */
final class FloatIncrement {
    static final ErrorRedisMessage NOT_FLOAT = new ErrorRedisMessage("ERR value is not a valid float");
    static final ErrorRedisMessage HASH_NOT_FLOAT = new ErrorRedisMessage("ERR hash value is not a float");
    static final ErrorRedisMessage NAN_OR_INFINITY =
            new ErrorRedisMessage("ERR increment would produce NaN or Infinity");
    /** The largest finite 80-bit long double. */
    private static final BigDecimal MAX = new BigDecimal("1.18973149535723176502e4932");
    /** The smallest positive (subnormal) 80-bit long double. */
    private static final BigDecimal MIN = new BigDecimal("3.6451995318824746025e-4951");
    /** Redis's MAX_LONG_DOUBLE_CHARS. */
    private static final int MAX_CHARS = 5 * 1024;
    private static final int DECIMALS = 17;

    private FloatIncrement() {
    }

    /**
     * {@code current} (null for a missing value: 0) plus {@code by}, formatted as Redis stores it.
     *
     * @throws CommandRefused with {@code notFloat} when {@code current} is not a float,
     *     {@link #NOT_FLOAT} when {@code by} is not, {@link #NAN_OR_INFINITY} for an infinite sum
     */
    static byte[] add(byte[] current, byte[] by, ErrorRedisMessage notFloat) {
        BigDecimal base = BigDecimal.ZERO;
        boolean infinite = false;
        if (current != null) {
            Parsed p = parse(current);
            if (p == null) {
                throw new CommandRefused(notFloat);
            }
            infinite = p.infinite;
            base = p.value;
        }
        Parsed increment = parse(by);
        if (increment == null) {
            throw new CommandRefused(NOT_FLOAT);
        }
        if (infinite || increment.infinite) {
            throw new CommandRefused(NAN_OR_INFINITY);
        }
        BigDecimal sum = base.add(increment.value);
        if (sum.abs().compareTo(MAX) > 0) {
            throw new CommandRefused(NAN_OR_INFINITY);
        }
        return format(sum).getBytes(StandardCharsets.US_ASCII);
    }

    /** {@code value} with at most 17 places after the point, trailing zeros (and point) dropped. */
    static String format(BigDecimal value) {
        BigDecimal rounded = value.setScale(DECIMALS, RoundingMode.HALF_EVEN).stripTrailingZeros();
        if (rounded.signum() == 0) {
            return "0";
        }
        return rounded.scale() < 0 ? rounded.setScale(0).toPlainString() : rounded.toPlainString();
    }

    private record Parsed(BigDecimal value, boolean infinite) {
    }

    /** A decimal float as {@code strtold} reads it whole; null when it is not one. */
    private static Parsed parse(byte[] text) {
        if (text.length == 0 || text.length > MAX_CHARS) {
            return null;
        }
        String s = new String(text, StandardCharsets.US_ASCII);
        String word = s.toLowerCase(Locale.ROOT);
        String unsigned = word.startsWith("+") || word.startsWith("-") ? word.substring(1) : word;
        if (unsigned.equals("inf") || unsigned.equals("infinity")) {
            return new Parsed(BigDecimal.ZERO, true);
        }
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (!(c >= '0' && c <= '9') && c != '.' && c != 'e' && c != 'E' && c != '+' && c != '-') {
                return null;
            }
        }
        BigDecimal v;
        try {
            v = new BigDecimal(s);
        } catch (NumberFormatException | ArithmeticException e) {
            return null;
        }
        BigDecimal abs = v.abs();
        // strtold's range error (overflow, or underflow to zero) makes Redis refuse the value.
        if (abs.compareTo(MAX) > 0 || (v.signum() != 0 && abs.compareTo(MIN) < 0)) {
            return null;
        }
        return new Parsed(v, false);
    }
}
