package dev.strata.lsm.version;

import dev.strata.lsm.io.FileChannelStorageIO;
import dev.strata.lsm.io.IoPurpose;
import dev.strata.lsm.policy.ComponentId;
import dev.strata.lsm.WalSyncMode;
import dev.strata.lsm.wal.WalWriter;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.CRC32C;

/**
 * For the open-time measurement: given a no-merge store of one-table runs (made by
 * {@code dev.strata.lsm.bench.OpenTimeBench}), writes into {@code OUT} hard links to its tables
 * and the manifest the session that made them leaves behind: format 2, a snapshot of nothing
 * then one delta per flush; or format 1, rotated at 4 MiB like the format-1 writer, so a
 * snapshot then the last ~15 full-layout edits. Opening a copy of {@code OUT} times the first
 * open after a write session. Usage: {@code SessionManifestWriter STORE OUT 1|2}.
 */
public final class SessionManifestWriter {
    public static void main(String[] a) throws Exception {
        Path src = Path.of(a[0]);
        Path out = Path.of(a[1]);
        int format = Integer.parseInt(a[2]);
        FileChannelStorageIO io = new FileChannelStorageIO();
        Path mp = Manifest.readCurrent(io, src);
        Manifest.Log log = Manifest.readLog(io, mp);
        ManifestState st = log.replay(mp);
        VersionEdit last = log.last();
        List<VersionEdit.RunLayout> l0 = st.layout().get(0);
        List<Component> oldestFirst = new ArrayList<>();
        List<Long> runIds = new ArrayList<>();
        for (int i = l0.size() - 1; i >= 0; i--) {
            ComponentId id = l0.get(i).components().get(0);
            oldestFirst.add(new Component(st.meta(id), null));
            runIds.add(l0.get(i).runId());
        }
        Files.createDirectories(out);
        for (Component c : oldestFirst) {
            String n = TableFiles.fileName(c.meta().fileNumber());
            Files.createLink(out.resolve(n), src.resolve(n));
        }
        long number = last.nextFileNumber() + 10;
        String name = Manifest.fileName(number);
        WalWriter w = WalWriter.create(io, out.resolve(name), number, WalSyncMode.NONE, IoPurpose.MANIFEST);
        int n = oldestFirst.size();
        long limit = 4L << 20;
        List<Run> runs = new ArrayList<>();
        for (int k = 0; k < n; k++) {
            runs.add(0, new Run(runIds.get(k), List.of(oldestFirst.get(k))));
        }
        // Format 1 rotates at 4 MiB: find the last snapshot point, walking back from the end.
        int start = 0;
        if (format == 1) {
            long acc = 0;
            start = n;
            while (start > 0 && acc <= limit) {
                acc += 28L * start + 150;
                start--;
            }
        }
        List<Run> base = new ArrayList<>(runs.subList(n - start, n));
        Version v = new Version(base.isEmpty() ? List.of() : List.of(base), start, new byte[0]);
        VersionEdit snap = VersionEdit.snapshot(last.nextFileNumber(), last.lastSequence(), last.logNumber(), start,
                last.nextRunId(), last.nextCreationOrder(), null, v.components().stream().map(Component::meta).toList(),
                VersionEdit.layoutOf(v));
        w.append(format == 1 ? snap.asLayout(snap.layout()).encodeFormat1() : snap.encode());
        for (int k = start; k < n; k++) {
            List<Run> r = new ArrayList<>(runs.subList(n - k - 1, n));
            Version next = new Version(List.of(r), k + 1, new byte[0]);
            VersionEdit counters = VersionEdit.snapshot(last.nextFileNumber(), last.lastSequence(), last.logNumber(),
                    k + 1, last.nextRunId(), last.nextCreationOrder(), null, List.of(), List.of());
            VersionEdit d = ManifestState.delta(v, next, counters);
            w.append(format == 1 ? d.asLayout(VersionEdit.layoutOf(next)).encodeFormat1() : d.encode());
            v = next;
        }
        w.close();
        CRC32C crc = new CRC32C();
        crc.update(name.getBytes(StandardCharsets.US_ASCII));
        Files.writeString(out.resolve("CURRENT"), String.format("strata-current 1 %s %08x\n", name, crc.getValue()));
        System.out.println("wrote " + name + " (" + Files.size(out.resolve(name)) + " bytes, snapshot of " + start
                + " then " + (n - start) + " edits)");
    }
}
