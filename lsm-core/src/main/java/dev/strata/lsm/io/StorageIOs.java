package dev.strata.lsm.io;

import dev.strata.lsm.policy.PolicyParameters;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;

/** The registry of {@link StorageIOFactory storage IO implementations} visible to a class loader. */
public final class StorageIOs {
    /** What parameter messages call the owner of a parameter: "... for storage IO 'native'". */
    public static final String KIND = "storage IO";

    private StorageIOs() {
    }

    /**
     * Every factory on the class path, sorted by name.
     *
     * @return a new list of each registered factory, sorted by {@link StorageIOFactory#name()}
     */
    public static List<StorageIOFactory> available() {
        List<StorageIOFactory> all = new ArrayList<>();
        for (StorageIOFactory f : ServiceLoader.load(StorageIOFactory.class, StorageIOs.class.getClassLoader())) {
            all.add(f);
        }
        ClassLoader context = Thread.currentThread().getContextClassLoader();
        if (context != null && context != StorageIOs.class.getClassLoader()) {
            for (StorageIOFactory f : ServiceLoader.load(StorageIOFactory.class, context)) {
                if (all.stream().noneMatch(g -> g.name().equals(f.name()))) {
                    all.add(f);
                }
            }
        }
        all.sort(Comparator.comparing(StorageIOFactory::name));
        return all;
    }

    /**
     * Names of every available implementation.
     *
     * @return the names of the available implementations, sorted
     */
    public static List<String> names() {
        return available().stream().map(StorageIOFactory::name).toList();
    }

    /**
     * The factory called {@code name}.
     *
     * @param name the implementation's configuration name
     * @return the registered factory with that name
     * @throws IllegalArgumentException naming the unknown implementation and listing the known ones
     */
    public static StorageIOFactory find(String name) {
        for (StorageIOFactory f : available()) {
            if (f.name().equals(name)) {
                return f;
            }
        }
        throw new IllegalArgumentException("unknown storage IO '" + name + "'; available: "
                + String.join(", ", names()));
    }

    /**
     * Validates {@code rawParams} for the implementation {@code name}.
     *
     * @param name the implementation's configuration name
     * @param rawParams the parameters as configured, name to unparsed value (absent ones take their
     *     defaults)
     *
     * @return the typed parameters, defaults filled in
     * @throws IllegalArgumentException for an unknown implementation or parameter, or a bad value
     */
    public static PolicyParameters resolve(String name, Map<String, String> rawParams) {
        StorageIOFactory f = find(name);
        return PolicyParameters.resolve(KIND, f.name(), f.parameters(), rawParams);
    }

    /**
     * Validates {@code rawParams} for {@code name} and creates the implementation.
     *
     * @param name the implementation's configuration name
     * @param rawParams the parameters as configured, name to unparsed value (absent ones take their
     *     defaults)
     *
     * @return a new implementation
     * @throws IllegalArgumentException for an unknown implementation or parameter, or a bad value
     */
    public static StorageIO create(String name, Map<String, String> rawParams) {
        return find(name).create(resolve(name, rawParams));
    }
}
