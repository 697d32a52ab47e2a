package dev.strata.lsm.engine;

import dev.strata.lsm.sstable.TableFences;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * Where a large merge is split into key-range pieces that run in parallel (RocksDB's
 * subcompactions, {@code max_subcompactions}): the boundaries are input tables' smallest keys,
 * chosen so that each piece holds about an equal share of the inputs' data, as the tables'
 * fences place it ({@link TableFences}). Every version of a user key falls in one piece
 * (boundaries are user keys), so each piece keeps what the whole merge would keep. Stateless.
 *
 * <p>A table's share is its data ({@link Input#dataBytes}), not its file: a table of a few
 * entries still takes whole pages (leaf, index, bloom, footer), so a dozen one-key flushes
 * weighed by their files looked like several output files of input and were split into
 * one-key pieces, each of which wrote its own table (issue 36, session 20).
 */
final class Subcompactions {
    private Subcompactions() {
    }

    /**
     * Bytes an entry takes beyond its key and value: its sequence number and type (the
     * internal key's trailer), about what a leaf cell adds.
     */
    static final long ENTRY_OVERHEAD_BYTES = 8;

    /**
     * Output files of data a piece holds at least: a piece's last file is a partial one, so a
     * piece of one file's worth could write two files where the whole merge writes one; with
     * two, a merge whose data fits in three files is never split.
     */
    static final int MIN_FILES_PER_PIECE = 2;

    /**
     * One input table of a merge: its smallest user key, its size, what its manifest record
     * says of its entries, and where its bytes lie.
     *
     * @param minKey the table's smallest user key
     * @param sizeBytes the table's bytes as stored (pages, compressed where they are)
     * @param entryCount its internal entries
     * @param userBytes the sum of its entries' key and value lengths
     * @param fences where its bytes lie in the key space
     */
    record Input(byte[] minKey, long sizeBytes, long entryCount, long userBytes, TableFences fences) {
        Input {
            Objects.requireNonNull(minKey, "minKey");
            Objects.requireNonNull(fences, "fences");
            if (sizeBytes < 0 || entryCount < 0 || userBytes < 0) {
                throw new IllegalArgumentException("sizes must be >= 0, got sizeBytes " + sizeBytes + ", entryCount "
                        + entryCount + ", userBytes " + userBytes);
            }
        }

        /**
         * The bytes its entries take in an output: their keys, values and trailers, but never
         * more than the table's stored bytes (a compressed table's entries take about what
         * they take in it). A table of a few entries counts their bytes, not its pages.
         */
        long dataBytes() {
            long entries = userBytes + entryCount * ENTRY_OVERHEAD_BYTES;
            return Math.min(sizeBytes, entries);
        }
    }

    /**
     * The least input data of a piece for outputs cut at {@code outputFileBytes}:
     * {@link #MIN_FILES_PER_PIECE} files' worth.
     */
    static long minPieceBytes(long outputFileBytes) {
        return outputFileBytes >= Long.MAX_VALUE / MIN_FILES_PER_PIECE ? Long.MAX_VALUE
                : Math.max(1, outputFileBytes) * MIN_FILES_PER_PIECE;
    }

    /**
     * The boundaries that split a merge of {@code inputs} into at most {@code maxPieces}
     * pieces of at least about {@code minPieceBytes} input data each ({@link Input#dataBytes}):
     * piece {@code i} holds the user keys in [boundary {@code i - 1}, boundary {@code i}) (open
     * at both ends of the key space). Boundaries are input tables' smallest keys above the
     * smallest of all, strictly ascending; boundary {@code k} is the first such key below which
     * the inputs hold at least {@code k / n} of their data, for {@code n} = min(maxPieces,
     * total data / minPieceBytes).
     * Empty when the merge is not split (fewer than two pieces, or no key to split at).
     *
     * @param inputs the merge's input tables, in any order
     * @param maxPieces the most pieces (1 or less: no split)
     * @param minPieceBytes input data a piece should hold at least (at least 1 is used)
     * @return the boundaries, ascending, at most {@code maxPieces - 1}
     */
    static List<byte[]> boundaries(List<Input> inputs, int maxPieces, long minPieceBytes) {
        long total = 0;
        for (Input in : inputs) {
            total += in.dataBytes();
        }
        long pieces = Math.min(maxPieces, total / Math.max(1, minPieceBytes));
        if (pieces < 2) {
            return List.of();
        }
        List<byte[]> keys = new ArrayList<>();
        for (Input in : inputs) {
            keys.add(in.minKey());
        }
        keys.sort(Arrays::compareUnsigned);
        List<byte[]> out = new ArrayList<>();
        int k = 1;
        byte[] smallest = keys.get(0);
        for (byte[] key : keys) {
            if (k >= pieces) {
                break;
            }
            if (Arrays.compareUnsigned(key, smallest) <= 0
                    || !out.isEmpty() && Arrays.compareUnsigned(key, out.get(out.size() - 1)) <= 0) {
                continue;
            }
            double below = 0;
            for (Input in : inputs) {
                below += in.dataBytes() * in.fences().fraction(null, key);
            }
            if (below >= (double) total * k / pieces) {
                out.add(key.clone());
                while (k < pieces && below >= (double) total * k / pieces) {
                    k++;
                }
            }
        }
        return out;
    }
}
