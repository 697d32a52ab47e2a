package dev.strata.lsm.io;

/** How {@link StorageIO#open} opens a file. */
public enum OpenMode {
    /** Read only; the file must exist. */
    READ,
    /** Read and write; the file must exist. */
    READ_WRITE,
    /** Read and write; the file is created if absent, kept if present. */
    CREATE,
    /** Read and write; the file must not exist yet. */
    CREATE_NEW
}
