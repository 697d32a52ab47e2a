package dev.strata.lsm;

/**
 * Options of one write ({@link LsmStore#write(WriteBatch, WriteOptions)} and the put and delete
 * overloads), like RocksDB's {@code WriteOptions} but immutable: each setter returns a new
 * object, so one instance can be shared by any number of threads.
 *
 * <pre>{@code
 * WriteOptions durable = WriteOptions.defaults().sync(true);
 * store.put(key, value, durable); // on the device when put returns
 * }</pre>
 *
 * <ul>
 *   <li>{@link #sync(boolean) sync}: the write is on the device before the call returns,
 *   whatever the store's WAL mode, so it survives a power loss, not only a process kill. In
 *   modes {@code async} and {@code sync} its WAL record is forced (with the writes that share
 *   its group commit); in mode {@code none} the store has no WAL, and the call flushes the
 *   memtable (with every write before it) into a table before it returns — costly, for the
 *   rare write that must not be lost in a store that otherwise accepts losing some.</li>
 *   <li>{@link #disableWal(boolean) disableWal}: the write goes to the memtable only, never to
 *   the WAL. It is visible at once, and durable only once a flush has written its memtable
 *   (or the store was closed cleanly); a process kill before that loses it, while writes
 *   with the WAL that were acknowledged before or after it are recovered. For bulk loads that
 *   can be repeated, as RocksDB's {@code disableWAL}.</li>
 * </ul>
 * Both together are refused ({@link IllegalArgumentException}): a write without a WAL record
 * has nothing to force.
 */
public final class WriteOptions {
    private static final WriteOptions DEFAULTS = new WriteOptions(false, false);

    private final boolean sync;
    private final boolean walDisabled;

    private WriteOptions(boolean sync, boolean walDisabled) {
        if (sync && walDisabled) {
            throw new IllegalArgumentException("a write cannot be both sync and without WAL: sync forces the write's "
                    + "WAL record to the device, and disableWal writes none");
        }
        this.sync = sync;
        this.walDisabled = walDisabled;
    }

    /**
     * Neither sync nor WAL disabled: the store's WAL mode decides durability.
     *
     * @return the default options
     */
    public static WriteOptions defaults() {
        return DEFAULTS;
    }

    /**
     * These options with {@code sync} set (see the class comment).
     *
     * @param sync true to force the write to the device before the call returns
     * @return new options, otherwise equal to these
     */
    public WriteOptions sync(boolean sync) {
        return new WriteOptions(sync, walDisabled);
    }

    /**
     * These options with the WAL disabled or not (see the class comment).
     *
     * @param disable true to skip the WAL
     * @return new options, otherwise equal to these
     */
    public WriteOptions disableWal(boolean disable) {
        return new WriteOptions(sync, disable);
    }

    /**
     * Whether the write is forced to the device before the call returns.
     *
     * @return true when the write is synced
     */
    public boolean isSync() {
        return sync;
    }

    /**
     * Whether the write skips the WAL.
     *
     * @return true when the write skips the WAL
     */
    public boolean isWalDisabled() {
        return walDisabled;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof WriteOptions w && w.sync == sync && w.walDisabled == walDisabled;
    }

    @Override
    public int hashCode() {
        return (sync ? 1 : 0) + (walDisabled ? 2 : 0);
    }

    @Override
    public String toString() {
        return "WriteOptions[sync=" + sync + ", disableWal=" + walDisabled + "]";
    }
}
