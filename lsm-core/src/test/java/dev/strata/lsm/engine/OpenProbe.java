package dev.strata.lsm.engine;

import dev.strata.lsm.LsmStore;
import dev.strata.lsm.StoreException;

import java.nio.file.Path;

/**
 * The child process of {@link StoreLockTest}: tries to open the store in its argument and
 * reports on stdout {@code OPENED} (then closes it) or {@code REFUSED <message>}.
 */
public final class OpenProbe {
    private OpenProbe() {
    }

    public static void main(String[] args) {
        try (LsmStore store = LsmStore.open(Path.of(args[0]))) {
            System.out.println("OPENED " + store.directory());
        } catch (StoreException e) {
            System.out.println("REFUSED " + e.getMessage());
        }
    }
}
