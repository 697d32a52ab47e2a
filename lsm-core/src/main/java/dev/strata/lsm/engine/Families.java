package dev.strata.lsm.engine;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The live column family trees of a store, by id and by name, the default family's first.
 * Copy on write: readers (the read path, write validation) read the volatile map without a
 * lock; changes (create, drop) are made under the engine's mutex.
 */
final class Families {
    private volatile Map<Integer, Tree> byId = Map.of();

    /** The tree of family {@code id}, or null if the store has no such live family. */
    Tree get(int id) {
        return byId.get(id);
    }

    /** The live tree named {@code name}, or null. */
    Tree named(String name) {
        for (Tree t : byId.values()) {
            if (t.name.equals(name)) {
                return t;
            }
        }
        return null;
    }

    /** Every live tree, the default family's first, then in creation order. */
    Collection<Tree> all() {
        return byId.values();
    }

    /** Whether the store has families other than the default one. */
    boolean several() {
        return byId.size() > 1;
    }

    /** Adds {@code tree}. Mutex held (or during open). */
    void add(Tree tree) {
        Map<Integer, Tree> next = new LinkedHashMap<>(byId);
        next.put(tree.id, tree);
        byId = java.util.Collections.unmodifiableMap(next);
    }

    /** Removes family {@code id}. Mutex held. */
    void remove(int id) {
        Map<Integer, Tree> next = new LinkedHashMap<>(byId);
        next.remove(id);
        byId = java.util.Collections.unmodifiableMap(next);
    }

    /** A copy of the live trees. */
    List<Tree> list() {
        return new ArrayList<>(byId.values());
    }
}
