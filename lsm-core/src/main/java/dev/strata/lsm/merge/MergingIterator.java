package dev.strata.lsm.merge;

import dev.strata.lsm.sstable.EntryType;
import dev.strata.lsm.sstable.InternalIterator;
import dev.strata.lsm.sstable.InternalKeys;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;

/**
 * Merges several internal iterators into one stream in internal-key order. When two
 * inputs hold the same (key, seqno) — which a correct tree never produces — the input
 * listed first wins and the other copy is skipped. Not thread safe.
 */
public final class MergingIterator implements InternalIterator {
    private final List<InternalIterator> inputs;
    private final PriorityQueue<Source> heap;
    private Source current;

    private record Source(InternalIterator it, int order) {
    }

    public MergingIterator(List<? extends InternalIterator> inputs) {
        this.inputs = new ArrayList<>(inputs);
        this.heap = new PriorityQueue<>(Math.max(1, inputs.size()), MergingIterator::compare);
    }

    private static int compare(Source a, Source b) {
        int c = InternalKeys.compare(a.it.key(), a.it.seqno(), b.it.key(), b.it.seqno());
        return c != 0 ? c : Integer.compare(a.order, b.order);
    }

    /**
     * Moves {@code s} (the current source) to its next entry and returns the new current one:
     * {@code s} again when it still sorts before every other input (a run of entries from one
     * input, as a merge of a small level into a large one mostly is, costs one comparison
     * each), else the heap's least.
     */
    private Source advance(Source s) throws IOException {
        s.it.next();
        if (!s.it.valid()) {
            return heap.poll();
        }
        Source top = heap.peek();
        if (top == null || compare(s, top) < 0) {
            return s;
        }
        heap.add(s);
        return heap.poll();
    }

    @Override
    public void seekToFirst() throws IOException {
        heap.clear();
        for (int i = 0; i < inputs.size(); i++) {
            inputs.get(i).seekToFirst();
            offer(new Source(inputs.get(i), i));
        }
        current = heap.poll();
    }

    @Override
    public void seek(byte[] userKey) throws IOException {
        heap.clear();
        for (int i = 0; i < inputs.size(); i++) {
            inputs.get(i).seek(userKey);
            offer(new Source(inputs.get(i), i));
        }
        current = heap.poll();
    }

    private void offer(Source s) {
        if (s.it.valid()) {
            heap.add(s);
        }
    }

    @Override
    public boolean valid() {
        return current != null;
    }

    @Override
    public void next() throws IOException {
        byte[] key = current.it.key();
        long seq = current.it.seqno();
        current = advance(current);
        // Drop exact duplicates of the entry just passed.
        while (current != null && current.it.seqno() == seq && java.util.Arrays.equals(current.it.key(), key)) {
            current = advance(current);
        }
    }

    @Override
    public byte[] key() {
        return current.it.key();
    }

    @Override
    public long seqno() {
        return current.it.seqno();
    }

    @Override
    public EntryType type() {
        return current.it.type();
    }

    @Override
    public byte[] value() throws IOException {
        return current.it.value();
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
