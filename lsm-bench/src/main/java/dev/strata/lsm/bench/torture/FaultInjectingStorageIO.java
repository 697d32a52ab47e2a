package dev.strata.lsm.bench.torture;

import dev.strata.lsm.io.ForwardingStorageIO;
import dev.strata.lsm.io.IoPurpose;
import dev.strata.lsm.io.OpenMode;
import dev.strata.lsm.io.PageFile;
import dev.strata.lsm.io.StorageIO;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A {@link StorageIO} that fails write sites at random, for the torture command. Every
 * write, append, force, truncate, preallocate and creating open of a file opened for a
 * targeted {@link IoPurpose} is a site; for the {@code MANIFEST} target so are renames and
 * directory syncs. A site fails with probability {@code rate}, and then the next zero to three
 * sites of that purpose fail too (a burst, as a full disk stays full for a while). Reads
 * never fail. The fault kinds each purpose may see are configured separately, so that, for
 * instance, the WAL can be spared disk-full faults.
 *
 * <p>Every injected fault is an {@link InjectedFault}, so that a caller can tell a failure
 * the injection caused from a genuine one. Injection is off until {@link #arm(boolean)}.
 */
public final class FaultInjectingStorageIO extends ForwardingStorageIO {

    /** How a site fails. */
    public enum Kind {
        /** Nothing is written; "No space left on device". */
        ENOSPC,
        /** Nothing is written; "Input/output error". */
        EIO,
        /** Half of the buffer is written, then the call fails with EIO (a torn write). */
        TORN;

        /** Parses a kind name, case-insensitively. */
        public static Kind parse(String s) {
            try {
                return valueOf(s.trim().toUpperCase(Locale.ROOT));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("unknown fault kind '" + s + "'; expected enospc, eio or torn");
            }
        }
    }

    /** The exception of every injected fault. */
    public static final class InjectedFault extends IOException {
        InjectedFault(Kind kind, IoPurpose purpose, String site, Path path) {
            super((kind == Kind.ENOSPC ? "No space left on device" : "Input/output error") + " (injected "
                    + kind.name().toLowerCase(Locale.ROOT) + " on " + site + " of " + purpose + " file " + path + ")");
        }
    }

    private final Map<IoPurpose, List<Kind>> kinds;
    private final double rate;
    private final SplittableRandom random;
    private final Map<IoPurpose, int[]> bursts = new EnumMap<>(IoPurpose.class);
    private final AtomicLong injected = new AtomicLong();
    private volatile boolean armed;

    /**
     * @param kinds the fault kinds each targeted purpose may see (purposes not in the map never fail)
     * @param rate probability that a site starts a burst of faults
     * @param seed seed of the random choices
     */
    public FaultInjectingStorageIO(StorageIO delegate, Map<IoPurpose, Set<Kind>> kinds, double rate, long seed) {
        super(delegate);
        if (!(rate >= 0 && rate <= 1)) {
            throw new IllegalArgumentException("fault rate must be in [0, 1], got " + rate);
        }
        Map<IoPurpose, List<Kind>> k = new EnumMap<>(IoPurpose.class);
        kinds.forEach((purpose, set) -> {
            if (!set.isEmpty()) {
                k.put(purpose, List.copyOf(EnumSet.copyOf(set)));
            }
        });
        this.kinds = k;
        this.rate = rate;
        this.random = new SplittableRandom(seed);
        for (IoPurpose p : IoPurpose.values()) {
            bursts.put(p, new int[1]);
        }
    }

    /** Starts or stops injecting. */
    public void arm(boolean on) {
        armed = on;
    }

    /** Faults injected so far. */
    public long injected() {
        return injected.get();
    }

    /** The fault to inject at a site of {@code purpose} now, or null. */
    private Kind roll(IoPurpose purpose) {
        List<Kind> allowed = kinds.get(purpose);
        if (!armed || allowed == null) {
            return null;
        }
        synchronized (random) {
            int[] burst = bursts.get(purpose);
            if (burst[0] > 0) {
                burst[0]--;
            } else if (random.nextDouble() < rate) {
                burst[0] = random.nextInt(4);
            } else {
                return null;
            }
            injected.incrementAndGet();
            return allowed.get(random.nextInt(allowed.size()));
        }
    }

    private void check(IoPurpose purpose, String site, Path path) throws IOException {
        Kind k = roll(purpose);
        if (k != null) {
            throw new InjectedFault(k == Kind.TORN ? Kind.EIO : k, purpose, site, path);
        }
    }

    @Override
    public PageFile open(Path path, OpenMode mode, IoPurpose purpose) throws IOException {
        if (mode == OpenMode.CREATE || mode == OpenMode.CREATE_NEW) {
            check(purpose, "create", path);
        }
        return super.open(path, mode, purpose);
    }

    @Override
    public void rename(Path source, Path target) throws IOException {
        check(IoPurpose.MANIFEST, "rename", target);
        super.rename(source, target);
    }

    @Override
    public void syncDirectory(Path dir) throws IOException {
        check(IoPurpose.MANIFEST, "directory sync", dir);
        super.syncDirectory(dir);
    }

    @Override
    protected PageFile wrap(PageFile file) {
        if (!kinds.containsKey(file.purpose())) {
            return file;
        }
        return new ForwardingPageFile(file) {
            @Override
            public void write(ByteBuffer src, long position) throws IOException {
                Kind k = roll(purpose());
                if (k != null) {
                    if (k == Kind.TORN && src.remaining() > 1) {
                        ByteBuffer half = src.duplicate();
                        half.limit(half.position() + src.remaining() / 2);
                        super.write(half, position);
                    }
                    throw new InjectedFault(k, purpose(), "write", path());
                }
                super.write(src, position);
            }

            @Override
            public long append(ByteBuffer src) throws IOException {
                Kind k = roll(purpose());
                if (k != null) {
                    if (k == Kind.TORN && src.remaining() > 1) {
                        ByteBuffer half = src.duplicate();
                        half.limit(half.position() + src.remaining() / 2);
                        super.append(half);
                    }
                    throw new InjectedFault(k, purpose(), "append", path());
                }
                return super.append(src);
            }

            @Override
            public void force(boolean metadata) throws IOException {
                check(purpose(), "force", path());
                super.force(metadata);
            }

            @Override
            public void truncate(long size) throws IOException {
                check(purpose(), "truncate", path());
                super.truncate(size);
            }

            @Override
            public void preallocate(long offset, long length) throws IOException {
                check(purpose(), "preallocate", path());
                super.preallocate(offset, length);
            }
        };
    }

    /** Whether {@code t} or one of its causes is an injected fault. */
    public static boolean causedByInjection(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (c instanceof InjectedFault || String.valueOf(c.getMessage()).contains("(injected ")) {
                return true;
            }
            for (Throwable s : c.getSuppressed()) {
                if (causedByInjection(s)) {
                    return true;
                }
            }
            if (c.getCause() == c) {
                break;
            }
        }
        return false;
    }
}
