package dev.strata.lsm;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The rule of {@link LsmStore}'s javadoc, checked for every public method of {@link LsmStore},
 * {@link Snapshot} and {@link Cursor} by reflection (so a method added later is checked too):
 * once the store is closed, every call but {@code close()} throws {@link StoreClosedException};
 * so does every call on a closed snapshot or cursor of an open store.
 */
class ClosedStoreContractTest {
    @TempDir
    Path dir;

    @Test
    void everyCallOnAClosedStoreItsSnapshotsAndCursorsThrows() {
        LsmStore store = LsmStore.open(dir.resolve("store"));
        store.put("a".getBytes(), "1".getBytes());
        store.put("b".getBytes(), "2".getBytes());
        family = store.createColumnFamily("cf", FamilyOptions.defaults());
        store.put(family, "a".getBytes(), "1".getBytes());
        Snapshot snapshot = store.snapshot();
        Cursor storeCursor = store.scan(null, null);
        Cursor snapshotCursor = snapshot.scan(null, null);
        assertTrue(storeCursor.next());
        assertTrue(snapshotCursor.next());
        store.close();

        List<String> failures = new ArrayList<>();
        failures.addAll(callsThatDoNotThrow(LsmStore.class, store));
        failures.addAll(callsThatDoNotThrow(Snapshot.class, snapshot));
        failures.addAll(callsThatDoNotThrow(Cursor.class, storeCursor));
        failures.addAll(callsThatDoNotThrow(Cursor.class, snapshotCursor));
        assertEquals(List.of(), failures, "calls on a closed store that did not throw StoreClosedException");
        // close() stays idempotent on all of them.
        store.close();
        snapshot.close();
        storeCursor.close();
        snapshotCursor.close();
    }

    @Test
    void everyCallOnAClosedSnapshotOrCursorOfAnOpenStoreThrows() {
        try (LsmStore store = LsmStore.open(dir.resolve("store"))) {
            store.put("a".getBytes(), "1".getBytes());
            Snapshot snapshot = store.snapshot();
            Cursor cursor = store.scan(null, null);
            assertTrue(cursor.next());
            snapshot.close();
            cursor.close();
            List<String> failures = new ArrayList<>();
            failures.addAll(callsThatDoNotThrow(Snapshot.class, snapshot));
            failures.addAll(callsThatDoNotThrow(Cursor.class, cursor));
            assertEquals(List.of(), failures, "calls on a closed snapshot or cursor that did not throw");
            // The store itself is untouched.
            assertEquals("1", new String(store.get("a".getBytes())));
        }
    }

    /** Invokes every public instance method of {@code type} but close(); lists those that did not throw. */
    private List<String> callsThatDoNotThrow(Class<?> type, Object target) {
        List<String> failures = new ArrayList<>();
        Method[] methods = type.getMethods();
        Arrays.sort(methods, Comparator.comparing(Method::toString));
        for (Method m : methods) {
            if (Modifier.isStatic(m.getModifiers()) || m.getDeclaringClass() == Object.class
                    || (m.getName().equals("close") && m.getParameterCount() == 0)) {
                continue;
            }
            Object[] args = Arrays.stream(m.getParameterTypes()).map(this::argument).toArray();
            try {
                m.invoke(target, args);
                failures.add(type.getSimpleName() + "." + m.getName() + " returned normally");
            } catch (InvocationTargetException e) {
                if (!(e.getCause() instanceof StoreClosedException)) {
                    failures.add(type.getSimpleName() + "." + m.getName() + " threw " + e.getCause());
                }
            } catch (IllegalAccessException e) {
                throw new AssertionError(e);
            }
        }
        return failures;
    }

    /** A live family of the store under test: the calls that take one get it, not null. */
    private ColumnFamily family;

    private Object argument(Class<?> type) {
        if (type == ColumnFamily.class) {
            return family;
        }
        if (type == String.class) {
            return "another";
        }
        if (type == FamilyOptions.class) {
            return FamilyOptions.defaults();
        }
        if (type == byte[].class) {
            return "a".getBytes();
        }
        if (type == byte[][].class) {
            return new byte[][] {"a".getBytes()};
        }
        if (type == WriteBatch.class) {
            return new WriteBatch().put("c".getBytes(), "3".getBytes());
        }
        if (type == WriteOptions.class) {
            return WriteOptions.defaults();
        }
        if (type == Path.class) {
            return dir.resolve("elsewhere");
        }
        if (type == boolean.class) {
            return false;
        }
        if (type == int.class) {
            return 0;
        }
        if (type == long.class) {
            return 0L;
        }
        if (type == List.class) {
            return List.of();
        }
        return null;
    }
}
