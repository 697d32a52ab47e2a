package dev.strata.lsm.crash;

import dev.strata.lsm.LsmStore;
import dev.strata.lsm.StoreConfig;
import dev.strata.lsm.WriteBatch;

import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;

/**
 * The writer process of {@link ReaderTortureTest}: {@link #THREADS} threads each write
 * batches {@code n = 1, 2, ...} of two puts, {@code ctr/t = n} and {@code log/t/n}, continuing
 * after the counter the store holds; small memtables and a merging policy make it flush,
 * merge and delete files all the time. Runs until killed.
 *
 * <p>Arguments: store directory. Protocol on stdout: {@code O} once open, {@code A <t> <n>}
 * after every 50th batch of thread t returned.
 */
public final class ReaderTortureWriter {
    static final int THREADS = 3;

    private ReaderTortureWriter() {
    }

    static StoreConfig config() {
        return StoreConfig.builder().memtableBytes(32 << 10).mergePolicy("size-tiered", Map.of()).build();
    }

    static byte[] counterKey(int thread) {
        return ("ctr/" + thread).getBytes(StandardCharsets.US_ASCII);
    }

    static byte[] logKey(int thread, long n) {
        return String.format("log/%d/%09d", thread, n).getBytes(StandardCharsets.US_ASCII);
    }

    static byte[] logPrefixEnd(int thread) {
        return String.format("log/%d0", thread).getBytes(StandardCharsets.US_ASCII);
    }

    static byte[] counter(long n) {
        return ByteBuffer.allocate(8).putLong(n).array();
    }

    static long counterOf(byte[] v) {
        return v == null ? 0 : ByteBuffer.wrap(v).getLong();
    }

    static byte[] logValue(int thread, long n) {
        return (thread + ":" + n + ":" + "p".repeat((int) (n % 80))).getBytes(StandardCharsets.US_ASCII);
    }

    public static void main(String[] args) throws Exception {
        LsmStore store = LsmStore.open(Path.of(args[0]), config());
        FileOutputStream out = new FileOutputStream(FileDescriptor.out);
        Thread[] threads = new Thread[THREADS];
        for (int t = 0; t < THREADS; t++) {
            int thread = t;
            long start = counterOf(store.get(counterKey(t)));
            threads[t] = new Thread(() -> {
                for (long n = start + 1; ; n++) {
                    store.write(new WriteBatch().put(counterKey(thread), counter(n)).put(logKey(thread, n),
                            logValue(thread, n)));
                    if (n % 50 == 0) {
                        emit(out, "A " + thread + " " + n);
                    }
                }
            }, "torture-writer-" + t);
        }
        emit(out, "O");
        for (Thread t : threads) {
            t.start();
        }
        for (Thread t : threads) {
            t.join();
        }
    }

    private static void emit(FileOutputStream out, String line) {
        try {
            synchronized (out) {
                out.write((line + "\n").getBytes(StandardCharsets.US_ASCII));
            }
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
