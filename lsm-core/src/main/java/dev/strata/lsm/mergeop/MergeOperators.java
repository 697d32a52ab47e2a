package dev.strata.lsm.mergeop;

import dev.strata.lsm.ConfigException;

import java.util.ArrayList;
import java.util.List;
import java.util.ServiceLoader;
import java.util.TreeSet;

/** The merge operators the class path registers ({@link ServiceLoader}), by name. */
public final class MergeOperators {
    private MergeOperators() {
    }

    /**
     * Every registered operator.
     *
     * @return a new list of a new instance of each registered operator, in the service loader's
     *     order
     */
    public static List<MergeOperator> available() {
        List<MergeOperator> all = new ArrayList<>();
        for (MergeOperator o : ServiceLoader.load(MergeOperator.class, MergeOperators.class.getClassLoader())) {
            all.add(o);
        }
        if (all.isEmpty()) {
            for (MergeOperator o : ServiceLoader.load(MergeOperator.class)) {
                all.add(o);
            }
        }
        return all;
    }

    /**
     * Names of every registered operator, sorted.
     *
     * @return the names of the registered operators, sorted
     */
    public static List<String> names() {
        TreeSet<String> names = new TreeSet<>();
        available().forEach(o -> names.add(o.name()));
        return List.copyOf(names);
    }

    /**
     * The operator named {@code name}.
     *
     * @param name the operator's registered name, as a configuration gives it
     * @return the registered operator with that name
     * @throws ConfigException naming the unknown name and the known ones
     */
    public static MergeOperator find(String name) {
        for (MergeOperator o : available()) {
            if (o.name().equals(name)) {
                return o;
            }
        }
        throw new ConfigException("unknown merge operator '" + name + "'; available: " + names());
    }
}
