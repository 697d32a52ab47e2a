package dev.strata.lsm.engine;

import dev.strata.lsm.sstable.ForwardingInternalIterator;
import dev.strata.lsm.sstable.InternalIterator;
import dev.strata.lsm.sstable.TableIterator;
import dev.strata.lsm.version.Component;
import dev.strata.lsm.version.Run;

import java.io.IOException;
import java.util.List;

/**
 * Iterates a sorted run as one stream, both ways: its components in key order, opened one
 * at a time. The components' key ranges are disjoint, so stepping off either end of one
 * component's table continues at the neighbouring component's first or last entry.
 */
final class RunIterator extends ForwardingInternalIterator {
    private final Run run;
    private final List<Component> components;
    private int index;
    private TableIterator current;

    RunIterator(Run run) {
        this.run = run;
        this.components = run.components();
    }

    @Override
    protected InternalIterator positioned() {
        return current;
    }

    @Override
    public void seekToFirst() throws IOException {
        open(0);
        if (current != null) {
            current.seekToFirst();
            skipExhausted();
        }
    }

    @Override
    public void seekToLast() throws IOException {
        open(components.size() - 1);
        if (current != null) {
            current.seekToLast();
            skipExhaustedBackward();
        }
    }

    @Override
    public void seek(byte[] userKey, long seqno) throws IOException {
        open(run.firstEndingAtOrAfter(userKey));
        if (current != null) {
            current.seek(userKey, seqno);
            skipExhausted();
        }
    }

    @Override
    public void seekForPrev(byte[] userKey, long seqno) throws IOException {
        open(run.lastStartingAtOrBefore(userKey));
        if (current != null) {
            current.seekForPrev(userKey, seqno);
            skipExhaustedBackward();
        }
    }

    /**
     * Opens component {@code i} (keeps the table iterator if it is already open, as after a
     * seek within the same table or a change of direction); none (null) when {@code i} is
     * outside the run.
     */
    private void open(int i) {
        if (i == index && current != null) {
            return;
        }
        index = i;
        current = i >= 0 && i < components.size() ? components.get(i).reader().iterator() : null;
    }

    private void skipExhausted() throws IOException {
        while (current != null && !current.valid()) {
            open(index + 1);
            if (current != null) {
                current.seekToFirst();
            }
        }
    }

    private void skipExhaustedBackward() throws IOException {
        while (current != null && !current.valid()) {
            open(index - 1);
            if (current != null) {
                current.seekToLast();
            }
        }
    }

    @Override
    public boolean valid() {
        return current != null && current.valid();
    }

    @Override
    public void next() throws IOException {
        current.next();
        skipExhausted();
    }

    @Override
    public void prev() throws IOException {
        current.prev();
        skipExhaustedBackward();
    }
}
