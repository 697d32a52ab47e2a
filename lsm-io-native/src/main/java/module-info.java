/**
 * Strata's native storage IO (O_DIRECT, fallocate, punch-hole, fdatasync, fadvise through
 * JNA). {@code dev.strata.lsm} finds it through the {@link dev.strata.lsm.io.StorageIOFactory}
 * service (on the class path through {@code META-INF/services}, which the jar keeps) under
 * the name {@code native}; {@link dev.strata.lsm.io.direct.NativeStorageIO} is exported for
 * applications that hand a store an instance.
 */
@SuppressWarnings("requires-automatic")
module dev.strata.lsm.io.direct {
    requires transitive dev.strata.lsm;
    requires com.sun.jna;

    exports dev.strata.lsm.io.direct;

    provides dev.strata.lsm.io.StorageIOFactory with dev.strata.lsm.io.direct.NativeStorageIOFactory;
}
