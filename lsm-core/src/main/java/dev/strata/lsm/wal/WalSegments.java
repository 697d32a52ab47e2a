package dev.strata.lsm.wal;

import dev.strata.lsm.StoreException;
import dev.strata.lsm.io.StorageIO;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.OptionalLong;

/**
 * Names of WAL segment files: segment {@code N} lives in {@code String.format("%06d.wal", N)}
 * (more digits once N passes 999999). Directory listings are sorted by the parsed number,
 * not by name, so that {@code 1000000.wal} comes after {@code 999999.wal}.
 */
public final class WalSegments {
    /** The file name suffix of every segment. */
    public static final String SUFFIX = ".wal";

    private WalSegments() {
    }

    /**
     * The file name of segment {@code number}.
     *
     * @throws IllegalArgumentException if {@code number} is negative
     */
    public static String fileName(long number) {
        if (number < 0) {
            throw new IllegalArgumentException("negative WAL segment number " + number);
        }
        return String.format("%06d%s", number, SUFFIX);
    }

    /** The path of segment {@code number} inside {@code dir}. */
    public static Path path(Path dir, long number) {
        return dir.resolve(fileName(number));
    }

    /**
     * The segment number encoded in {@code fileName}, or empty when the name is not a
     * segment name (digits only, then {@value #SUFFIX}; the number must fit a long).
     */
    public static OptionalLong parseNumber(String fileName) {
        if (!fileName.endsWith(SUFFIX)) {
            return OptionalLong.empty();
        }
        String digits = fileName.substring(0, fileName.length() - SUFFIX.length());
        if (digits.isEmpty() || digits.length() > 19) {
            return OptionalLong.empty();
        }
        for (int i = 0; i < digits.length(); i++) {
            char c = digits.charAt(i);
            if (c < '0' || c > '9') {
                return OptionalLong.empty();
            }
        }
        try {
            return OptionalLong.of(Long.parseLong(digits));
        } catch (NumberFormatException e) {
            // 19 digits can still exceed Long.MAX_VALUE.
            return OptionalLong.empty();
        }
    }

    /** The segment number of {@code path}'s file name, or empty when it is not a segment. */
    public static OptionalLong parseNumber(Path path) {
        Path name = path.getFileName();
        return name == null ? OptionalLong.empty() : parseNumber(name.toString());
    }

    /**
     * The segment files directly inside {@code dir}, sorted by segment number; other files
     * are ignored.
     *
     * @throws StoreException naming {@code dir} if it cannot be listed
     */
    public static List<Path> list(StorageIO io, Path dir) {
        List<Path> files;
        try {
            files = io.list(dir);
        } catch (IOException e) {
            throw new StoreException("cannot list WAL segments in " + dir + ": " + e.getMessage(), e);
        }
        List<Path> segments = new ArrayList<>();
        for (Path p : files) {
            if (parseNumber(p).isPresent()) {
                segments.add(p);
            }
        }
        segments.sort(Comparator.comparingLong(p -> parseNumber(p).getAsLong()));
        return segments;
    }
}
