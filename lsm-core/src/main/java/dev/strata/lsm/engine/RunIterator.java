package dev.strata.lsm.engine;

import dev.strata.lsm.sstable.ForwardingInternalIterator;
import dev.strata.lsm.sstable.InternalIterator;
import dev.strata.lsm.sstable.TableIterator;
import dev.strata.lsm.version.Component;
import dev.strata.lsm.version.Run;

import java.io.IOException;
import java.util.List;

/** Iterates a sorted run as one stream: its components in key order, opened one at a time. */
final class RunIterator extends ForwardingInternalIterator {
    private final List<Component> components;
    private int index;
    private TableIterator current;

    RunIterator(Run run) {
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
    public void seek(byte[] userKey) throws IOException {
        Run tmp = new Run(0, components);
        open(tmp.firstEndingAtOrAfter(userKey));
        if (current != null) {
            current.seek(userKey);
            skipExhausted();
        }
    }

    private void open(int i) {
        index = i;
        current = i < components.size() ? components.get(i).reader().iterator() : null;
    }

    private void skipExhausted() throws IOException {
        while (current != null && !current.valid()) {
            open(index + 1);
            if (current != null) {
                current.seekToFirst();
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

}
