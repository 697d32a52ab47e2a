package dev.strata.lsm.engine;

import dev.strata.lsm.io.FileChannelStorageIO;
import dev.strata.lsm.io.ForwardingStorageIO;
import dev.strata.lsm.io.IoPurpose;
import dev.strata.lsm.io.OpenMode;
import dev.strata.lsm.io.PageFile;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;

/**
 * Storage whose writes to a merge output wait at a gate until {@link #release}: {@link #mergeWriting}
 * counts down at the first one (FlushLaneTest, MergeStopsOnCloseTest, PolicyTickTest,
 * SubcompactionSlowTest; TornManifestTest adds manifest faults in a subclass).
 */
class GatedMergeIO extends ForwardingStorageIO {
    final CountDownLatch gate = new CountDownLatch(1);
    final CountDownLatch mergeWriting = new CountDownLatch(1);

    GatedMergeIO() {
        super(new FileChannelStorageIO());
    }

    void release() {
        gate.countDown();
    }

    private void hold() throws IOException {
        mergeWriting.countDown();
        try {
            gate.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while held", e);
        }
    }

    @Override
    public PageFile open(Path path, OpenMode mode, IoPurpose purpose) throws IOException {
        PageFile f = super.open(path, mode, purpose);
        if (purpose != IoPurpose.MERGE || mode != OpenMode.CREATE_NEW) {
            return f;
        }
        return new ForwardingPageFile(f) {
            @Override
            public void write(ByteBuffer src, long position) throws IOException {
                hold();
                super.write(src, position);
            }

            @Override
            public long append(ByteBuffer src) throws IOException {
                hold();
                return super.append(src);
            }
        };
    }
}
