package dev.strata.lsm.crash;

import dev.strata.lsm.ColumnFamily;
import dev.strata.lsm.FamilyOptions;
import dev.strata.lsm.LsmStore;
import dev.strata.lsm.StoreConfig;
import dev.strata.lsm.WriteBatch;
import dev.strata.lsm.io.FileChannelStorageIO;
import dev.strata.lsm.io.ForwardingStorageIO;
import dev.strata.lsm.testkit.TestKeys;
import dev.strata.lsm.version.FamilyCatalog;

import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.locks.LockSupport;

/**
 * The child of {@link FamilyDropKillTest}: fills families {@code doomed} and {@code keep}
 * (cross-family batches, a flush, then writes only the WAL holds), then drops {@code doomed}
 * and parks inside the drop — {@code before}: at the rename that would record it in the
 * catalog; {@code after}: once the catalog naming the drop is durable (its directory synced),
 * before any of the family's files is deleted — printing {@code HELD} for the parent to
 * SIGKILL it there. Arguments: store directory, {@code before} or {@code after}.
 */
public final class FamilyDropChild {
    static final int KEYS = 200;

    private FamilyDropChild() {
    }

    static byte[] key(int i) {
        return TestKeys.padded("k", i, 5).getBytes(StandardCharsets.US_ASCII);
    }

    static byte[] value(int i, String family) {
        return (family + i).getBytes(StandardCharsets.US_ASCII);
    }

    public static void main(String[] args) throws IOException {
        Path dir = Path.of(args[0]);
        boolean after = args[1].equals("after");
        FileOutputStream out = new FileOutputStream(FileDescriptor.out);
        boolean[] armed = {false};
        // Set once the drop's catalog rename happened: the next sync of the store directory is its.
        boolean[] renamed = {false};
        ForwardingStorageIO io = new ForwardingStorageIO(new FileChannelStorageIO()) {
            @Override
            public void rename(Path source, Path target) throws IOException {
                boolean catalog = armed[0] && target.getFileName().toString().equals(FamilyCatalog.FILE);
                if (catalog && !after) {
                    hold(out);
                }
                super.rename(source, target);
                if (catalog) {
                    renamed[0] = true;
                }
            }

            @Override
            public void syncDirectory(Path d) throws IOException {
                super.syncDirectory(d);
                if (renamed[0] && after && d.equals(dir)) {
                    hold(out);
                }
            }
        };
        LsmStore store = LsmStore.open(dir, StoreConfig.builder().storageIO(io).build());
        ColumnFamily doomed = store.createColumnFamily("doomed", FamilyOptions.defaults());
        ColumnFamily keep = store.createColumnFamily("keep", FamilyOptions.defaults());
        for (int i = 0; i < KEYS; i++) {
            store.write(new WriteBatch().put(doomed, key(i), value(i, "doomed")).put(keep, key(i), value(i, "keep"))
                    .put(key(i), value(i, "default")));
            if (i == KEYS / 2) {
                store.flushColumnFamily(doomed);
                store.flushColumnFamily(keep);
            }
        }
        armed[0] = true;
        store.dropColumnFamily(doomed);
        emit(out, "DROPPED"); // not reached: the hook holds the drop
    }

    private static void hold(FileOutputStream out) {
        try {
            emit(out, "HELD");
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        while (true) {
            LockSupport.park();
        }
    }

    private static void emit(FileOutputStream out, String line) throws IOException {
        out.write((line + "\n").getBytes(StandardCharsets.US_ASCII));
    }
}
