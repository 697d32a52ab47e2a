package dev.strata.lsm.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.strata.lsm.policy.MergePolicies;
import dev.strata.lsm.policy.MergePolicyFactory;
import dev.strata.lsm.policy.PolicyParameter;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

/**
 * {@code policies [--json]}: every merge policy ServiceLoader finds, with the module that
 * provides it and its typed parameters (name, type, default as written in XML, allowed
 * values, description). The JSON shape is pinned:
 * {@code {"policies":[{"name":…,"module":…,"description":…,"params":[{"name":…,"type":…,"default":…,"description":…}]}]}}.
 */
@Command(name = "policies", mixinStandardHelpOptions = true,
        description = "List every registered merge policy and its parameters.")
public final class PoliciesCommand implements Callable<Integer> {

    @Option(names = "--json", description = "print JSON instead of a table")
    boolean json;

    @Override
    public Integer call() throws Exception {
        print(System.out);
        return 0;
    }

    void print(PrintStream out) throws Exception {
        List<MergePolicyFactory> factories = MergePolicies.available();
        if (json) {
            ObjectMapper mapper = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
            out.println(mapper.writeValueAsString(Map.of("policies", describe(factories))));
            return;
        }
        for (MergePolicyFactory f : factories) {
            out.printf("%s (%s): %s%n", f.name(), f.module(), f.description());
            for (PolicyParameter p : f.parameters()) {
                out.printf("    %-32s %-16s default %-24s %s; %s%n", p.name(), p.typeName(), p.defaultText(),
                        p.description(), p.allowed());
            }
        }
    }

    static List<Map<String, Object>> describe(List<MergePolicyFactory> factories) {
        List<Map<String, Object>> policies = new ArrayList<>();
        for (MergePolicyFactory f : factories) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("name", f.name());
            m.put("module", f.module());
            m.put("description", f.description());
            List<Map<String, Object>> params = new ArrayList<>();
            for (PolicyParameter p : f.parameters()) {
                Map<String, Object> pm = new LinkedHashMap<>();
                pm.put("name", p.name());
                pm.put("type", p.typeName());
                pm.put("default", p.defaultText());
                pm.put("description", p.description());
                if (p.min() != null) {
                    pm.put("min", p.min().toString());
                }
                if (p.max() != null) {
                    pm.put("max", p.max().toString());
                }
                if (!p.choices().isEmpty()) {
                    pm.put("values", p.choices());
                }
                params.add(pm);
            }
            m.put("params", params);
            policies.add(m);
        }
        return policies;
    }
}
