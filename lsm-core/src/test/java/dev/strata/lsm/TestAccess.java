package dev.strata.lsm;

import dev.strata.lsm.engine.Engine;

/** Gives tests in other packages the engine behind a store, which the public API does not expose. */
public final class TestAccess {
    private TestAccess() {
    }

    public static Engine engine(LsmStore store) {
        return store.engine();
    }
}
