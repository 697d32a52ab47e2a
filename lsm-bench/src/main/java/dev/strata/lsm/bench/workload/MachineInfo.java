package dev.strata.lsm.bench.workload;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The machine a report was measured on: CPU, memory, OS and JVM, so that figures carry their context. */
public final class MachineInfo {

    private MachineInfo() {
    }

    /** What is known about this machine, by name; /proc fields are absent off Linux. */
    public static Map<String, Object> describe() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("cpus", Runtime.getRuntime().availableProcessors());
        String cpu = procField("/proc/cpuinfo", "model name");
        if (cpu != null) {
            m.put("cpuModel", cpu);
        }
        String mem = procField("/proc/meminfo", "MemTotal");
        if (mem != null) {
            m.put("memTotal", mem);
        }
        m.put("os", System.getProperty("os.name") + " " + System.getProperty("os.version"));
        m.put("arch", System.getProperty("os.arch"));
        m.put("java", System.getProperty("java.vm.name") + " " + System.getProperty("java.version"));
        m.put("maxHeapBytes", Runtime.getRuntime().maxMemory());
        return m;
    }

    private static String procField(String file, String name) {
        try {
            List<String> lines = Files.readAllLines(Path.of(file));
            for (String line : lines) {
                int colon = line.indexOf(':');
                if (colon > 0 && line.substring(0, colon).trim().equals(name)) {
                    return line.substring(colon + 1).trim();
                }
            }
        } catch (IOException | RuntimeException e) {
            // Not Linux, or not readable: the field is simply left out.
        }
        return null;
    }
}
