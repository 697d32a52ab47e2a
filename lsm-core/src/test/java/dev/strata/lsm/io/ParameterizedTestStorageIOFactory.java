package dev.strata.lsm.io;

import dev.strata.lsm.policy.PolicyParameter;
import dev.strata.lsm.policy.PolicyParameters;

import java.util.List;

/**
 * A storage IO with parameters, registered for lsm-core's tests only (lsm-core itself ships
 * just {@code nio}, which takes none): the configuration paths for parameters are tested
 * against it. It records the parameters it was created with and otherwise is nio.
 */
public final class ParameterizedTestStorageIOFactory implements StorageIOFactory {
    public static final String NAME = "test-io";

    /** The parameters of the last instance created. */
    public static volatile PolicyParameters lastCreated;

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String description() {
        return "nio, with parameters, for tests";
    }

    @Override
    public List<PolicyParameter> parameters() {
        return List.of(
                PolicyParameter.ofBoolean("direct", true, "a flag"),
                PolicyParameter.ofInt("depth", 4, 1, 16, "a number"));
    }

    @Override
    public StorageIO create(PolicyParameters params) {
        lastCreated = params;
        return new FileChannelStorageIO();
    }
}
