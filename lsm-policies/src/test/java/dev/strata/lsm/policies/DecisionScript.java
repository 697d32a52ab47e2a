package dev.strata.lsm.policies;

import dev.strata.lsm.policy.ComponentId;
import dev.strata.lsm.policy.ComponentView;
import dev.strata.lsm.policy.FlushPlan;
import dev.strata.lsm.policy.LevelView;
import dev.strata.lsm.policy.MergeMode;
import dev.strata.lsm.policy.MergePolicies;
import dev.strata.lsm.policy.MergePolicy;
import dev.strata.lsm.policy.MergeTask;
import dev.strata.lsm.policy.Placement;
import dev.strata.lsm.policy.RunView;
import dev.strata.lsm.policy.RunningMerge;
import dev.strata.lsm.policy.StoreSettings;
import dev.strata.lsm.policy.TreeView;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.DynamicTest;

import java.io.IOException;
import java.io.InputStream;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Runs one case of a Pebble-style decision script against a registered merge policy.
 *
 * <pre>
 * policy lo1 size-ratio=10        the registered policy and parameter overrides
 * memtable 100                    the store's memtable size every view carries (StoreSettings), also
 *                                 shown first as a flushed table's size to a policy that learns it
 * now 5000                        the view's clock (default 0)
 * L0: #1[a,c]1-10/120 | #2[a,z]11-12/50
 * L1: #3[a,b]1-1/300 t=10/100 c=7 ot=9 busy
 * pick                            prints the tasks picked from this tree (repeatable: state carries over)
 * flush 100                       plans a flush of a 100-byte table onto this tree and prints the plan
 * running L1 #9 #8 #5             a rewrite of #9, #8, #5 into a new run of L1 is executing (repeatable;
 *                                 the inputs should also be marked busy); later trees of the case keep it
 * running none                    no merge is executing (the default)
 * </pre>
 *
 * A component is {@code #id[minKey,maxKey]minSeq-maxSeq/bytes}, optionally followed by
 * {@code t=tombstones/entries}, {@code c=creationMillis}, {@code ot=oldestTombstoneMillis}
 * and {@code busy}; runs of a level are separated by {@code |}, newest first.
 */
public final class DecisionScript {
    private DecisionScript() {
    }

    /**
     * One dynamic test per case of the golden file {@code resource}: cases are separated by
     * {@code ====}; each holds a script, a {@code ----} line and the expected output. To
     * accept new output after a deliberate change, run with {@code -Dstrata.golden.print=true}
     * and review the printed traces.
     */
    public static List<DynamicTest> goldenTests(String resource) throws IOException {
        String text;
        try (InputStream in = DecisionScript.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IOException("no test resource " + resource);
            }
            text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        List<DynamicTest> tests = new ArrayList<>();
        for (String block : text.split("\n====\n")) {
            String[] halves = block.split("\n----(\n|$)", 2);
            List<String> script = List.of(halves[0].split("\n"));
            String title = script.stream().filter(l -> l.startsWith("# ")).findFirst().orElse("case").substring(2);
            String expected = halves.length > 1 ? halves[1].strip() : "";
            tests.add(DynamicTest.dynamicTest(title, () -> {
                String actual = run(script).strip();
                if (Boolean.getBoolean("strata.golden.print")) {
                    System.out.println(halves[0].strip() + "\n----\n" + actual + "\n====");
                }
                Assertions.assertEquals(expected, actual, title);
            }));
        }
        return tests;
    }

    public static String run(List<String> lines) {
        MergePolicy policy = null;
        long memtable = 0;
        long now = 0;
        List<LevelView> levels = new ArrayList<>();
        List<RunningMerge> running = new ArrayList<>();
        byte[] state = new byte[0];
        StringBuilder out = new StringBuilder();
        for (String raw : lines) {
            String line = raw.strip();
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            if (line.startsWith("policy ")) {
                String[] parts = line.substring(7).trim().split("\\s+");
                Map<String, String> params = new LinkedHashMap<>();
                for (int i = 1; i < parts.length; i++) {
                    String[] kv = parts[i].split("=", 2);
                    params.put(kv[0], kv[1]);
                }
                policy = MergePolicies.create(parts[0], params);
            } else if (line.startsWith("memtable ")) {
                memtable = Long.parseLong(line.substring(9).trim());
            } else if (line.startsWith("now ")) {
                now = Long.parseLong(line.substring(4).trim());
            } else if (line.matches("L\\d+:.*")) {
                int level = Integer.parseInt(line.substring(1, line.indexOf(':')));
                while (levels.size() <= level) {
                    levels.add(new LevelView(levels.size(), List.of()));
                }
                List<RunView> runs = new ArrayList<>();
                for (String run : line.substring(line.indexOf(':') + 1).split("\\|")) {
                    List<ComponentView> cs = new ArrayList<>();
                    for (String c : run.trim().split("\\s+(?=#)")) {
                        if (!c.isBlank()) {
                            cs.add(component(c.trim()));
                        }
                    }
                    runs.add(new RunView(cs));
                }
                levels.set(level, new LevelView(level, runs));
            } else if (line.equals("running none")) {
                running.clear();
            } else if (line.matches("running L\\d+( #\\d+)+")) {
                String[] parts = line.split("\\s+");
                List<ComponentId> inputs = new ArrayList<>();
                for (int i = 2; i < parts.length; i++) {
                    inputs.add(new ComponentId(Long.parseLong(parts[i].substring(1)), 0));
                }
                running.add(new RunningMerge(inputs, Placement.newRun(Integer.parseInt(parts[1].substring(1))),
                        MergeMode.REWRITE, 0, ""));
            } else if (line.startsWith("flush ")) {
                TreeView tree = new TreeView(levels, 0, state, null, running, now, settings(memtable));
                ComponentView flushed = ComponentView.builder(new ComponentId(0, 0))
                        .sizeBytes(Long.parseLong(line.substring(6).trim())).build();
                FlushPlan plan = policy.planFlush(tree, flushed);
                state = policy.persistentState(tree);
                out.append(line).append('\n').append("  ").append(plan).append('\n');
            } else if (line.equals("pick")) {
                if (memtable > 0 && state.length == 0) {
                    TreeView empty = new TreeView(List.of(), 0, state, null, List.of(), now, settings(memtable));
                    policy.planFlush(empty, ComponentView.builder(new ComponentId(0, 0)).sizeBytes(memtable).build());
                    state = policy.persistentState(empty);
                }
                TreeView tree = new TreeView(levels, 0, state, null, running, now, settings(memtable));
                List<MergeTask> tasks = policy.pickMerges(tree);
                state = policy.persistentState(tree);
                out.append("pick").append('\n');
                if (tasks.isEmpty()) {
                    out.append("  (none)\n");
                }
                for (MergeTask t : tasks) {
                    out.append("  ").append(t).append('\n');
                }
                out.append("  admission ").append(policy.admission(tree)).append('\n');
            } else {
                throw new IllegalArgumentException("bad script line: " + line);
            }
        }
        return out.toString();
    }

    /** The settings of a script's views: its memtable size, or none known without a {@code memtable} line. */
    private static StoreSettings settings(long memtable) {
        return memtable > 0 ? new StoreSettings(memtable) : StoreSettings.UNKNOWN;
    }

    private static ComponentView component(String spec) {
        String[] parts = spec.split("\\s+");
        String head = parts[0];
        long id = Long.parseLong(head.substring(1, head.indexOf('[')));
        String[] keys = head.substring(head.indexOf('[') + 1, head.indexOf(']')).split(",");
        String[] seqSize = head.substring(head.indexOf(']') + 1).split("/");
        String[] seqs = seqSize[0].split("-");
        long size = Long.parseLong(seqSize[1]);
        ComponentView.Builder b = ComponentView.builder(new ComponentId(id, 0)).sizeBytes(size).entries(size, 0)
                .userBytes(size).keyRange(keys[0].getBytes(StandardCharsets.UTF_8),
                        keys[1].getBytes(StandardCharsets.UTF_8))
                .seqnos(Long.parseLong(seqs[0]), Long.parseLong(seqs[1])).creation(id, 0);
        for (int i = 1; i < parts.length; i++) {
            String p = parts[i];
            if (p.equals("busy")) {
                b.busy(true);
            } else if (p.startsWith("t=")) {
                String[] te = p.substring(2).split("/");
                b.entries(Long.parseLong(te[1]), Long.parseLong(te[0]));
            } else if (p.startsWith("c=")) {
                b.creation(id, Long.parseLong(p.substring(2)));
            } else if (p.startsWith("ot=")) {
                b.oldestTombstoneMillis(Long.parseLong(p.substring(3)));
            } else {
                throw new IllegalArgumentException("bad component attribute " + p + " in " + spec);
            }
        }
        return b.build();
    }
}
