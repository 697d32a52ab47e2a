package dev.strata.lsm.kafka;

import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.StreamsMetrics;
import org.apache.kafka.streams.processor.CommitCallback;
import org.apache.kafka.streams.processor.StateRestoreCallback;
import org.apache.kafka.streams.processor.StateStore;
import org.apache.kafka.streams.processor.StateStoreContext;
import org.apache.kafka.streams.processor.TaskId;
import org.apache.kafka.streams.processor.api.RecordMetadata;

import java.io.File;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * A {@link StateStoreContext} for driving a store directly: a fixed task and state directory,
 * settable record metadata (what a processor would be processing), and the restore callback
 * the store registered.
 */
final class TestStoreContext implements StateStoreContext {
    private final File stateDir;
    private final TaskId taskId;
    private final Map<String, Object> appConfigs = new HashMap<>();
    private RecordMetadata recordMetadata;
    StateRestoreCallback restoreCallback;
    StateStore registered;
    /** What {@link #metrics()} answers: null (no metrics recorded) unless a test sets it. */
    StreamsMetrics metrics;

    TestStoreContext(File stateDir, int partition, boolean exactlyOnce) {
        this.stateDir = stateDir;
        this.taskId = new TaskId(0, partition);
        appConfigs.put(StreamsConfig.APPLICATION_ID_CONFIG, "test-app");
        appConfigs.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG,
                exactlyOnce ? StreamsConfig.EXACTLY_ONCE_V2 : StreamsConfig.AT_LEAST_ONCE);
        // Every commit written, whatever the machine's speed: the tests of what a kill leaves after
        // a commit expect it written (CoalescedCommitTest tests the held commits).
        appConfigs.put(StrataStoreConfigs.COMMIT_COALESCE_MS_CONFIG, 0);
    }

    /** Makes the next writes come from {@code topic-partition@offset}. */
    void processing(String topic, int partition, long offset) {
        recordMetadata = new RecordMetadata() {
            @Override
            public String topic() {
                return topic;
            }

            @Override
            public int partition() {
                return partition;
            }

            @Override
            public long offset() {
                return offset;
            }
        };
    }

    @Override
    public String applicationId() {
        return "test-app";
    }

    @Override
    public TaskId taskId() {
        return taskId;
    }

    @Override
    public Optional<RecordMetadata> recordMetadata() {
        return Optional.ofNullable(recordMetadata);
    }

    @Override
    public Serde<?> keySerde() {
        return Serdes.ByteArray();
    }

    @Override
    public Serde<?> valueSerde() {
        return Serdes.ByteArray();
    }

    @Override
    public File stateDir() {
        return stateDir;
    }

    @Override
    public StreamsMetrics metrics() {
        return metrics;
    }

    @Override
    public void register(StateStore store, StateRestoreCallback stateRestoreCallback) {
        register(store, stateRestoreCallback, () -> { });
    }

    @Override
    public void register(StateStore store, StateRestoreCallback stateRestoreCallback, CommitCallback commitCallback) {
        this.registered = store;
        this.restoreCallback = stateRestoreCallback;
    }

    @Override
    public Map<String, Object> appConfigs() {
        return appConfigs;
    }

    @Override
    public Map<String, Object> appConfigsWithPrefix(String prefix) {
        Map<String, Object> result = new HashMap<>();
        appConfigs.forEach((k, v) -> {
            if (k.startsWith(prefix)) {
                result.put(k.substring(prefix.length()), v);
            }
        });
        return result;
    }
}
