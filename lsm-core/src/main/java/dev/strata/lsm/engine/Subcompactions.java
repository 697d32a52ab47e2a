package dev.strata.lsm.engine;

import dev.strata.lsm.sstable.TableFences;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * Where a large merge is split into key-range pieces that run in parallel (RocksDB's
 * subcompactions, {@code max_subcompactions}): the boundaries are input tables' smallest keys,
 * chosen so that each piece holds about an equal share of the inputs' bytes, as the tables'
 * fences estimate them ({@link TableFences}). Every version of a user key falls in one piece
 * (boundaries are user keys), so each piece keeps what the whole merge would keep. Stateless.
 */
final class Subcompactions {
    private Subcompactions() {
    }

    /** One input table of a merge: its smallest user key, its size and where its bytes lie. */
    record Input(byte[] minKey, long sizeBytes, TableFences fences) {
        Input {
            Objects.requireNonNull(minKey, "minKey");
            Objects.requireNonNull(fences, "fences");
            if (sizeBytes < 0) {
                throw new IllegalArgumentException("sizeBytes must be >= 0, got " + sizeBytes);
            }
        }
    }

    /**
     * The boundaries that split a merge of {@code inputs} into at most {@code maxPieces}
     * pieces of at least about {@code minPieceBytes} input bytes each: piece {@code i} holds the
     * user keys in [boundary {@code i - 1}, boundary {@code i}) (open at both ends of the key
     * space). Boundaries are input tables' smallest keys above the smallest of all, strictly
     * ascending; boundary {@code k} is the first such key below which the inputs hold at least
     * {@code k / n} of their bytes, for {@code n} = min(maxPieces, total bytes / minPieceBytes).
     * Empty when the merge is not split (fewer than two pieces, or no key to split at).
     *
     * @param inputs the merge's input tables, in any order
     * @param maxPieces the most pieces (1 or less: no split)
     * @param minPieceBytes input bytes a piece should hold at least (at least 1 is used)
     * @return the boundaries, ascending, at most {@code maxPieces - 1}
     */
    static List<byte[]> boundaries(List<Input> inputs, int maxPieces, long minPieceBytes) {
        long total = 0;
        for (Input in : inputs) {
            total += in.sizeBytes();
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
                below += in.sizeBytes() * in.fences().fraction(null, key);
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
