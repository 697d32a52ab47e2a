package dev.strata.lsm.merge;

import dev.strata.lsm.sstable.EntryType;
import dev.strata.lsm.sstable.InternalIterator;
import dev.strata.lsm.sstable.InternalKeys;

import java.io.IOException;
import java.util.Arrays;
import java.util.List;

/**
 * Merges several internal iterators into one stream in internal-key order. When two
 * inputs hold the same (key, seqno) — which a correct tree never produces — the input
 * listed first wins and the other copy is skipped. Not thread safe.
 *
 * <p>The inputs play a tournament (a loser tree): each inner node of a binary tree over the
 * inputs holds the loser of the match played there, so after the winner moves on, only the
 * matches on its path to the root are replayed, about log2(inputs) comparisons per entry
 * whatever the order of the inputs. Each input's key and sequence number are fetched once
 * per position, not at each comparison.
 *
 * <p>It moves both ways, as LevelDB's MergingIterator. Going backwards the same tree plays
 * the reverse matches (the larger internal key wins: a max-tournament, the counterpart of a
 * max-heap), every input positioned at its last entry not after the current one. Changing
 * direction repositions the inputs that are not current: going forward after {@link #prev()},
 * each other input is sought to the first entry after the current key; going backwards after
 * {@link #next()}, to the last entry before it. Then the current input steps and the tree is
 * played again — a direction change costs a seek per input, a step in one direction costs
 * about log2(inputs) comparisons. Seeks and {@code seekToFirst} leave it going forward,
 * {@code seekForPrev} and {@code seekToLast} going backwards.
 */
public final class MergingIterator implements InternalIterator {
    private final InternalIterator[] inputs;
    /** The current key and sequence number of each input; a null key: the input is exhausted. */
    private final byte[][] keys;
    private final long[] seqnos;
    /**
     * tree[1..n-1]: the input that lost the match at that inner node (inputs are leaves
     * n..2n-1, the parent of node j is j/2); tree[0]: the overall winner, the current input.
     */
    private final int[] tree;
    /** Whether the inputs are positioned for stepping backwards (the tree plays reverse matches). */
    private boolean reverse;

    /**
     * Merges {@code inputs}, each in internal-key order, into one internal-key order.
     *
     * @param inputs the iterators to merge, each in internal-key order (user key ascending, then
     *     sequence number descending)
     */
    public MergingIterator(List<? extends InternalIterator> inputs) {
        this.inputs = inputs.toArray(new InternalIterator[0]);
        int n = this.inputs.length;
        this.keys = new byte[n][];
        this.seqnos = new long[n];
        this.tree = new int[Math.max(1, n)];
    }

    /**
     * Whether input {@code a} wins over input {@code b}: it sorts strictly before it in the
     * direction of travel (exhausted inputs last; on equal internal keys the input listed
     * first, in both directions, so the same copy of a duplicate is the one seen).
     */
    private boolean before(int a, int b) {
        byte[] ka = keys[a];
        byte[] kb = keys[b];
        if (ka == null || kb == null) {
            return kb == null && (ka != null || a < b);
        }
        int c = InternalKeys.compare(ka, seqnos[a], kb, seqnos[b]);
        if (reverse) {
            c = -c;
        }
        return c != 0 ? c < 0 : a < b;
    }

    /** Records where input {@code i} is now. */
    private void load(int i) {
        InternalIterator it = inputs[i];
        if (it.valid()) {
            keys[i] = it.key();
            seqnos[i] = it.seqno();
        } else {
            keys[i] = null;
        }
    }

    /** Plays every match from the leaves up. */
    private void build() {
        int n = inputs.length;
        if (n == 0) {
            return;
        }
        int[] winners = new int[2 * n];
        for (int i = 0; i < n; i++) {
            winners[n + i] = i;
        }
        for (int node = n - 1; node >= 1; node--) {
            int a = winners[2 * node];
            int b = winners[2 * node + 1];
            boolean aWins = before(a, b);
            winners[node] = aWins ? a : b;
            tree[node] = aWins ? b : a;
        }
        tree[0] = n == 1 ? 0 : winners[1];
    }

    /** Steps the current input in the direction of travel and replays its matches up to the root. */
    private void advanceWinner() throws IOException {
        int w = tree[0];
        if (reverse) {
            inputs[w].prev();
        } else {
            inputs[w].next();
        }
        load(w);
        for (int node = (w + inputs.length) >>> 1; node >= 1; node >>>= 1) {
            int other = tree[node];
            if (before(other, w)) {
                tree[node] = w;
                w = other;
            }
        }
        tree[0] = w;
    }

    @Override
    public void seekToFirst() throws IOException {
        reverse = false;
        for (int i = 0; i < inputs.length; i++) {
            inputs[i].seekToFirst();
            load(i);
        }
        build();
    }

    @Override
    public void seekToLast() throws IOException {
        reverse = true;
        for (int i = 0; i < inputs.length; i++) {
            inputs[i].seekToLast();
            load(i);
        }
        build();
    }

    @Override
    public void seek(byte[] userKey, long seqno) throws IOException {
        reverse = false;
        for (int i = 0; i < inputs.length; i++) {
            inputs[i].seek(userKey, seqno);
            load(i);
        }
        build();
    }

    @Override
    public void seekForPrev(byte[] userKey, long seqno) throws IOException {
        reverse = true;
        for (int i = 0; i < inputs.length; i++) {
            inputs[i].seekForPrev(userKey, seqno);
            load(i);
        }
        build();
    }

    @Override
    public boolean valid() {
        return inputs.length > 0 && keys[tree[0]] != null;
    }

    @Override
    public void next() throws IOException {
        int w = tree[0];
        byte[] key = keys[w];
        long seq = seqnos[w];
        if (reverse) {
            // Every other input is at its last entry before (key, seq), or exhausted: move each
            // to its first entry after it (LevelDB's MergingIterator::Next on a direction change).
            reverse = false;
            for (int i = 0; i < inputs.length; i++) {
                if (i != w) {
                    InternalIterator it = inputs[i];
                    it.seek(key, seq);
                    if (it.valid() && it.seqno() == seq && Arrays.equals(it.key(), key)) {
                        it.next();
                    }
                    load(i);
                }
            }
            inputs[w].next();
            load(w);
            build();
        } else {
            advanceWinner();
        }
        // Drop exact duplicates of the entry just passed.
        while (keys[tree[0]] != null && seqnos[tree[0]] == seq && Arrays.equals(keys[tree[0]], key)) {
            advanceWinner();
        }
    }

    @Override
    public void prev() throws IOException {
        int w = tree[0];
        byte[] key = keys[w];
        long seq = seqnos[w];
        if (!reverse) {
            // Every other input is at its first entry after (key, seq), or exhausted: move each
            // to its last entry before it.
            reverse = true;
            for (int i = 0; i < inputs.length; i++) {
                if (i != w) {
                    InternalIterator it = inputs[i];
                    it.seekForPrev(key, seq);
                    if (it.valid() && it.seqno() == seq && Arrays.equals(it.key(), key)) {
                        it.prev();
                    }
                    load(i);
                }
            }
            inputs[w].prev();
            load(w);
            build();
        } else {
            advanceWinner();
        }
        // Drop exact duplicates of the entry just passed.
        while (keys[tree[0]] != null && seqnos[tree[0]] == seq && Arrays.equals(keys[tree[0]], key)) {
            advanceWinner();
        }
    }

    @Override
    public byte[] key() {
        return keys[tree[0]];
    }

    @Override
    public long seqno() {
        return seqnos[tree[0]];
    }

    @Override
    public EntryType type() {
        return inputs[tree[0]].type();
    }

    @Override
    public byte[] value() throws IOException {
        return inputs[tree[0]].value();
    }

    @Override
    public byte[] valueArray() throws IOException {
        return inputs[tree[0]].valueArray();
    }

    @Override
    public int valueOffset() {
        return inputs[tree[0]].valueOffset();
    }

    @Override
    public int valueLength() throws IOException {
        return inputs[tree[0]].valueLength();
    }

    @Override
    public void close() throws IOException {
        IOException first = null;
        for (InternalIterator it : inputs) {
            try {
                it.close();
            } catch (IOException e) {
                if (first == null) {
                    first = e;
                }
            }
        }
        if (first != null) {
            throw first;
        }
    }
}
