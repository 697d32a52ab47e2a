package dev.strata.lsm.io;

import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;

/**
 * Waits that an interrupt does not cut short: IO handed to another thread must complete, or its
 * caller could not tell what reached the file. The waiting thread keeps its interrupt status
 * (set again before returning) for its own code to act on.
 */
public final class Uninterruptibly {
    private Uninterruptibly() {
    }

    /**
     * The result of {@code future}, waiting through interrupts.
     *
     * @param future the work waited for
     * @param <T> its result's type
     * @return its result
     * @throws ExecutionException the work's failure
     */
    public static <T> T get(Future<T> future) throws ExecutionException {
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    return future.get();
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
