package dev.strata.lsm.io.direct;

import dev.strata.lsm.io.StorageIO;
import dev.strata.lsm.io.StorageIOFactory;
import dev.strata.lsm.policy.PolicyParameter;
import dev.strata.lsm.policy.PolicyParameters;

import java.util.List;

/**
 * Registers {@link NativeStorageIO} as {@value #NAME}:
 * {@code <storageIO name="native"><param name="direct" value="true"/><param name="punch-holes" value="true"/></storageIO>}.
 */
public final class NativeStorageIOFactory implements StorageIOFactory {
    /** The name configurations use for the native storage IO. */
    public static final String NAME = "native";


    /** The factory; ServiceLoader calls this. */
    public NativeStorageIOFactory() {
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String description() {
        return "Linux IO through JNA: O_DIRECT table writes and merge reads, fallocate, hole punching, fadvise";
    }

    @Override
    public List<PolicyParameter> parameters() {
        return List.of(
                PolicyParameter.ofBoolean("direct", true,
                        "O_DIRECT for table writes (flushes, merges) and merge reads; buffered where refused"),
                PolicyParameter.ofBoolean("punch-holes", true, "free the blocks of dead pages (fallocate PUNCH_HOLE)"),
                PolicyParameter.ofBoolean("fadvise", true,
                        "DONTNEED behind merge reads and buffered table writes, RANDOM for point reads"),
                PolicyParameter.ofBoolean("preallocate", true,
                        "fallocate(KEEP_SIZE) ahead of table writes; WAL space reservation"));
    }

    @Override
    public StorageIO create(PolicyParameters params) {
        return new NativeStorageIO(new NativeOptions(params.getBoolean("direct"), params.getBoolean("punch-holes"),
                params.getBoolean("fadvise"), params.getBoolean("preallocate")));
    }
}
