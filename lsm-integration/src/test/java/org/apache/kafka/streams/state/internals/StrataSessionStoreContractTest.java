package org.apache.kafka.streams.state.internals;

import dev.strata.lsm.kafka.StrataStores;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.common.utils.Utils;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.apache.kafka.streams.kstream.Windowed;
import org.apache.kafka.streams.kstream.internals.SessionWindow;
import org.apache.kafka.streams.processor.StateStoreContext;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.SessionStore;
import org.apache.kafka.streams.state.Stores;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

import static java.time.Duration.ofMillis;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * Kafka's session store contract ({@code AbstractSessionBytesStoreTest} from the
 * {@code kafka-streams} 4.3.1 test jar) run against {@link StrataStores#persistentSessionStore}.
 * The base class picks its store with a closed enum; this class overrides the
 * (package-private) builder to build a Strata store and answers {@code RocksDBSessionStore}
 * as its type, so the cases whose expectations differ by store type expect what Kafka's
 * RocksDB session store does (the semantics the Strata store follows: e.g.
 * {@code findSessions(earliestEnd, latestEnd)} is unsupported).
 *
 * <p>One case is replaced: Kafka's {@code shouldRestore} reads a <em>closed</em> store
 * (expecting an empty result) and restores into it. Strata's stores, like Kafka's RocksDB
 * key-value store, throw {@link InvalidStateStoreException} on a closed store, so the
 * replacement checks that, then wipes the store as Kafka Streams does before restoring,
 * opens it again and restores the same changelog into it.
 */
public class StrataSessionStoreContractTest extends AbstractSessionBytesStoreTest {
    @Override
    <K, V> SessionStore<K, V> buildSessionStore(long retentionPeriod, Serde<K> keySerde, Serde<V> valueSerde) {
        return Stores.sessionStoreBuilder(
                StrataStores.persistentSessionStore("rocksDB session store", ofMillis(retentionPeriod)),
                keySerde, valueSerde).build();
    }

    @Override
    StoreType storeType() {
        return StoreType.RocksDBSessionStore;
    }

    @Test
    @Override
    public void shouldRestore() {
        List<KeyValue<Windowed<String>, Long>> expected = List.of(
                KeyValue.pair(new Windowed<>("a", new SessionWindow(0, 0)), 1L),
                KeyValue.pair(new Windowed<>("a", new SessionWindow(10, 10)), 2L),
                KeyValue.pair(new Windowed<>("a", new SessionWindow(100, 100)), 3L),
                KeyValue.pair(new Windowed<>("a", new SessionWindow(1000, 1000)), 4L));
        for (KeyValue<Windowed<String>, Long> kv : expected) {
            sessionStore.put(kv.key, kv.value);
        }
        try (KeyValueIterator<Windowed<String>, Long> values = sessionStore.fetch("a")) {
            assertEquals(expected, Utils.toList(values));
        }

        sessionStore.close();
        assertThrows(InvalidStateStoreException.class, () -> sessionStore.fetch("a"));

        wipe(context.stateDir().toPath().resolve("strata").resolve(sessionStore.name()));
        sessionStore.init((StateStoreContext) context, sessionStore);
        try (KeyValueIterator<Windowed<String>, Long> values = sessionStore.fetch("a")) {
            assertFalse(values.hasNext());
        }

        List<KeyValue<byte[], byte[]>> changeLog = new ArrayList<>();
        for (ProducerRecord<Object, Object> record : recordCollector().collected()) {
            changeLog.add(new KeyValue<>(((Bytes) record.key()).get(), (byte[]) record.value()));
        }
        assertEquals(expected.size(), changeLog.size());
        context.restore(sessionStore.name(), changeLog);

        try (KeyValueIterator<Windowed<String>, Long> values = sessionStore.fetch("a")) {
            assertEquals(expected, Utils.toList(values));
        }
    }

    private org.apache.kafka.test.MockRecordCollector recordCollector() {
        return (org.apache.kafka.test.MockRecordCollector) context.recordCollector();
    }

    private static void wipe(Path dir) {
        try (Stream<Path> walk = Files.walk(dir)) {
            for (Path p : (Iterable<Path>) walk.sorted(Comparator.reverseOrder())::iterator) {
                Files.delete(p);
            }
        } catch (IOException e) {
            throw new AssertionError("cannot wipe " + dir, e);
        }
    }
}
