package dev.strata.lsm.io;

import dev.strata.lsm.policy.PolicyParameter;
import dev.strata.lsm.policy.PolicyParameters;

import java.util.List;

/** Registers {@link FileChannelStorageIO} as {@value #NAME}, the default storage IO. It takes no parameters. */
public final class FileChannelStorageIOFactory implements StorageIOFactory {
    /** The name of the portable FileChannel implementation. */
    public static final String NAME = "nio";

    /** The factory; ServiceLoader calls this. */
    public FileChannelStorageIOFactory() {
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String description() {
        return "portable buffered IO through java.nio FileChannel; WAL appends through a shared mapping";
    }

    @Override
    public List<PolicyParameter> parameters() {
        return List.of();
    }

    @Override
    public StorageIO create(PolicyParameters params) {
        return new FileChannelStorageIO();
    }
}
