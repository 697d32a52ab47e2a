package dev.strata.lsm.version;

import dev.strata.lsm.CorruptionException;
import dev.strata.lsm.Cursor;
import dev.strata.lsm.LsmStore;
import dev.strata.lsm.StoreConfig;
import dev.strata.lsm.io.FileChannelStorageIO;
import dev.strata.lsm.policy.ComponentId;
import dev.strata.lsm.policy.ComponentView;
import dev.strata.lsm.testkit.TestKeys;
import dev.strata.lsm.testkit.TestSeed;
import dev.strata.lsm.version.VersionEdit.Kind;
import dev.strata.lsm.version.VersionEdit.RunLayout;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Manifest format 2: edits record only what changed, a snapshot starts every manifest,
 * format-1 manifests still open, and edits that do not fit their predecessors are
 * reported as corruption naming the record.
 */
class ManifestFormatTest {
    private static final String FIXTURE_FILES = "CURRENT MANIFEST-000001 000026.wal 000027.sst 000028.sst 000029.sst";

    @TempDir
    Path dir;

    static Component component(long n, String min, String max) {
        return new Component(new ComponentMeta(new ComponentId(n, 0), 4096, 1, 0, 10, min.getBytes(UTF_8),
                max.getBytes(UTF_8), n, n, n, 1_700_000_000_000L + n, ComponentView.NO_TOMBSTONE), null);
    }

    static VersionEdit counters() {
        return VersionEdit.snapshot(99, 7, 3, 5, 11, 13, new byte[] {1, 2}, List.of(), List.of());
    }

    /** A tree of {@code n} one-component runs in level 0 (newest first), as a no-merge store builds it. */
    static Version level0Runs(int n) {
        List<Run> runs = new ArrayList<>();
        for (int i = n; i >= 1; i--) {
            runs.add(new Run(i, List.of(component(i, "a", "z"))));
        }
        return new Version(List.of(runs), n, new byte[0]);
    }

    static Version withNewestRun(Version base, Component c, long runId) {
        List<Run> l0 = new ArrayList<>(base.levels().get(0));
        l0.add(0, new Run(runId, List.of(c)));
        List<List<Run>> levels = new ArrayList<>(base.levels());
        levels.set(0, l0);
        return new Version(levels, base.flushCounter() + 1, new byte[0]);
    }

    @Test
    void addingOneComponentCostsTheSameWhateverTheTreeHolds() throws IOException {
        int[] sizes = new int[2];
        int[] counts = {10, 10_000};
        for (int i = 0; i < counts.length; i++) {
            Version base = level0Runs(counts[i]);
            Version next = withNewestRun(base, component(counts[i] + 1, "a", "z"), counts[i] + 1);
            VersionEdit delta = ManifestState.delta(base, next, counters());
            assertEquals(Kind.DELTA, delta.kind());
            byte[] bytes = delta.encode();
            sizes[i] = bytes.length;
            ManifestState replayed = ManifestState.of(base);
            try {
                replayed.apply(VersionEdit.decode(bytes), 0);
            } catch (ManifestState.InconsistentEdit e) {
                throw new AssertionError(e);
            }
            assertEquals(VersionEdit.layoutOf(next), replayed.layout());
        }
        assertEquals(sizes[0], sizes[1], "edit size with 10 vs 10,000 components");
        assertTrue(sizes[1] < 300, "an edit adding one component takes " + sizes[1] + " bytes");
        // Format 1 would have carried the whole layout: 16 bytes and more per component.
        Version base = level0Runs(counts[1]);
        VersionEdit full = ManifestState.delta(base, withNewestRun(base, component(20_000, "a", "z"), 20_000),
                counters()).asLayout(VersionEdit.layoutOf(base));
        assertTrue(full.encodeFormat1().length > 16 * counts[1]);
    }

    @Test
    void anEditThatChangesOnlyCountersCarriesNoLayout() throws Exception {
        Version base = level0Runs(1000);
        Version same = new Version(base.levels(), base.flushCounter(), new byte[] {7});
        VersionEdit delta = ManifestState.delta(base, same, counters());
        assertEquals(Kind.DELTA, delta.kind());
        assertTrue(delta.placed().isEmpty() && delta.levelChanges().isEmpty() && delta.removed().isEmpty());
        ManifestState replayed = ManifestState.of(base);
        replayed.apply(VersionEdit.decode(delta.encode()), 0);
        assertEquals(VersionEdit.layoutOf(base), replayed.layout());
    }

    @Test
    void storeManifestGrowsByAConstantPerFlush() throws IOException {
        StoreConfig config = StoreConfig.builder().mergePolicy("no-merge").build();
        long[] sizes = new long[121];
        try (LsmStore store = LsmStore.open(dir, config)) {
            Path manifest = Manifest.readCurrent(new FileChannelStorageIO(), dir);
            for (int i = 0; i <= 120; i++) {
                store.put(TestKeys.padded("key-", i, 5).getBytes(UTF_8), "v".getBytes(UTF_8));
                store.flush();
                sizes[i] = Files.size(manifest);
            }
        }
        long early = sizes[20] - sizes[10];
        long late = sizes[120] - sizes[110];
        // Block framing may add a header or a trailer (7 bytes each) now and then.
        assertTrue(late <= early + 20, "10 flushes cost " + early + " bytes at 10 tables, " + late + " at 110");
        try (LsmStore store = LsmStore.open(dir, config)) {
            for (int i = 0; i <= 120; i++) {
                assertEquals("v", new String(store.get(TestKeys.padded("key-", i, 5).getBytes(UTF_8)), UTF_8));
            }
        }
    }

    @Test
    void randomLayoutChangesReplayExactly() throws IOException {
        long seed = TestSeed.orRandom();
        Random rnd = new Random(seed);
        try {
            Version v = new Version(List.of(), 0, new byte[0]);
            ManifestState replay = new ManifestState();
            replay.apply(VersionEdit.decode(VersionEdit.snapshot(1, 0, 0, 0, 1, 1, null, List.of(),
                    List.of()).encode()), 0);
            long[] ids = {1, 1}; // next component, next run
            for (int step = 0; step < 400; step++) {
                Version next = RandomLayouts.step(v, rnd, ids);
                VersionEdit edit = ManifestState.delta(v, next, counters());
                replay.apply(VersionEdit.decode(edit.encode()), step);
                assertEquals(VersionEdit.layoutOf(next), replay.layout(), "step " + step);
                for (Component c : next.components()) {
                    assertEquals(c.meta().creationTimeMillis(), replay.meta(c.id()).creationTimeMillis());
                }
                v = next;
            }
        } catch (AssertionError | ManifestState.InconsistentEdit | RuntimeException e) {
            throw new AssertionError("failed with -Dstrata.test.seed=" + seed + ": " + e, e);
        }
    }

    @Test
    void format1RecordsDecodeAsFullLayouts() throws IOException {
        Component c = component(5, "k", "m");
        VersionEdit f1 = new VersionEdit(Kind.LAYOUT, 9, 8, 7, 6, 5, 4, new byte[] {9}, List.of(c.meta()),
                List.of(new ComponentId(3, 0)), List.of(List.of(new RunLayout(2, List.of(c.id())))), List.of(),
                List.of());
        byte[] bytes = f1.encodeFormat1();
        assertEquals(1, bytes[0]);
        VersionEdit back = VersionEdit.decode(bytes);
        assertEquals(Kind.LAYOUT, back.kind());
        assertEquals(f1.layout(), back.layout());
        assertEquals(List.of(new ComponentId(3, 0)), back.removed());
        assertEquals(0, back.added().get(0).creationTimeMillis(), "format 1 does not know creation times");
        assertEquals(ComponentView.NO_TOMBSTONE, back.added().get(0).oldestTombstoneMillis());
    }

    @Test
    void unknownKindOrVersionIsRejected() {
        byte[] bytes = counters().encode();
        bytes[1] = 9;
        IOException e = assertThrows(IOException.class, () -> VersionEdit.decode(bytes));
        assertTrue(e.getMessage().contains("kind 9"), e.getMessage());
        bytes[0] = 4;
        e = assertThrows(IOException.class, () -> VersionEdit.decode(bytes));
        assertTrue(e.getMessage().contains("format 4"), e.getMessage());
        bytes[0] = 0;
        e = assertThrows(IOException.class, () -> VersionEdit.decode(bytes));
        assertTrue(e.getMessage().contains("format 0"), e.getMessage());
    }

    @Test
    void aDeltaThatDoesNotFitIsCorruptionNamingTheRecord() {
        Version base = level0Runs(3);
        Version next = withNewestRun(base, component(4, "a", "z"), 4);
        VersionEdit delta = ManifestState.delta(base, next, counters());
        // Replayed without the snapshot it builds on: it places a component into a level that does not hold it.
        VersionEdit removesUnknown = new VersionEdit(Kind.DELTA, 1, 1, 1, 1, 1, 1, null, List.of(),
                List.of(new ComponentId(77, 0)), List.of(), List.of(), List.of());
        Path manifest = dir.resolve("MANIFEST-000009");
        Manifest.Log log = new Manifest.Log(List.of(VersionEdit.snapshot(1, 1, 1, 1, 5, 5, null,
                base.components().stream().map(Component::meta).toList(), VersionEdit.layoutOf(base)), delta,
                removesUnknown), List.of(0L, 100L, 200L), 300, 300, null);
        CorruptionException e = assertThrows(CorruptionException.class, () -> log.layout(manifest));
        assertTrue(e.getMessage().contains("offset 200") && e.getMessage().contains("#77"), e.getMessage());
        Manifest.Log good = new Manifest.Log(log.edits().subList(0, 2), List.of(0L, 100L), 200, 200, null);
        assertEquals(VersionEdit.layoutOf(next), good.layout(manifest));
    }

    @Test
    void aStoreWrittenWithFormat1Opens() throws IOException {
        for (String name : FIXTURE_FILES.split(" ")) {
            try (InputStream in = getClass().getResourceAsStream("/format1-store/" + name)) {
                Files.copy(in, dir.resolve(name));
            }
        }
        Manifest.Log old = Manifest.readLog(new FileChannelStorageIO(), dir.resolve("MANIFEST-000001"));
        assertTrue(old.edits().size() > 3 && old.edits().stream().allMatch(e -> e.kind() == Kind.LAYOUT),
                "the fixture is a format-1 manifest with several edits");
        assertTrue(old.edits().stream().anyMatch(e -> !e.removed().isEmpty()), "the fixture holds a merge");
        Map<String, String> expected = Format1StoreFixture.expected();
        for (int round = 0; round < 2; round++) {
            try (LsmStore store = LsmStore.open(dir, Format1StoreFixture.config())) {
                assertEquals(expected, contents(store), "round " + round);
                store.put("new-key".getBytes(UTF_8), "new".getBytes(UTF_8));
                store.flush();
                expected.put("new-key", "new");
            }
            Path current = Manifest.readCurrent(new FileChannelStorageIO(), dir);
            Manifest.Log log = Manifest.readLog(new FileChannelStorageIO(), current);
            assertEquals(Kind.SNAPSHOT, log.edits().get(0).kind(), "a reopened store writes format 3");
            assertEquals(3, Files.readAllBytes(current)[21 + 7], "format version of the first record");
            assertEquals(PolicyRecord.of("size-tiered", Map.of()), log.recordedPolicy(),
                    "the fixture's configuration names size-tiered, which is recorded");
        }
    }

    static Map<String, String> contents(LsmStore store) {
        Map<String, String> m = new TreeMap<>();
        try (Cursor c = store.scan(null, null)) {
            while (c.next()) {
                m.put(new String(c.key(), StandardCharsets.US_ASCII), new String(c.value(), StandardCharsets.US_ASCII));
            }
        }
        return m;
    }
}
