package dev.strata.lsm.version;

import dev.strata.lsm.cache.BlockCache;
import dev.strata.lsm.io.IoPurpose;
import dev.strata.lsm.io.OpenMode;
import dev.strata.lsm.io.PageFile;
import dev.strata.lsm.io.StorageIO;
import dev.strata.lsm.sstable.SSTableReader;
import dev.strata.lsm.sstable.TableOptions;

import java.io.IOException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The open table files of a store: one read handle per file (shared by every version of
 * the table inside it), table naming, and deletion of files no longer referenced.
 *
 * <p>Locking: every method is synchronized; opening and closing are rare.
 */
public final class TableFiles {
    public static final String SUFFIX = ".sst";

    private final StorageIO io;
    private final Path dir;
    private final BlockCache cache;
    private final Map<Long, PageFile> open = new HashMap<>();
    /** Per open file, how long it is and what was punched out of it. */
    private final Map<Long, Extent> extents = new HashMap<>();

    /**
     * One open file's length (the end of the newest table version opened in it) and the bytes
     * of dead pages punched out of it (no longer on disk); read without the lock.
     */
    private static final class Extent {
        final AtomicLong length = new AtomicLong();
        final AtomicLong punched;

        Extent(long punched) {
            this.punched = new AtomicLong(punched);
        }

        long onDisk() {
            return length.get() - punched.get();
        }
    }

    public TableFiles(StorageIO io, Path dir, BlockCache cache) {
        this.io = io;
        this.dir = dir;
        this.cache = cache;
    }

    /** File name of table file {@code number}. */
    public static String fileName(long number) {
        return String.format("%06d%s", number, SUFFIX);
    }

    /** Table file number in {@code name}, or -1. */
    public static long parseNumber(String name) {
        if (!name.endsWith(SUFFIX)) {
            return -1;
        }
        String digits = name.substring(0, name.length() - SUFFIX.length());
        if (digits.length() < 6 || !digits.chars().allMatch(Character::isDigit)) {
            return -1;
        }
        return Long.parseLong(digits);
    }

    public Path path(long fileNumber) {
        return dir.resolve(fileName(fileNumber));
    }

    /**
     * Whether table file {@code fileNumber} has other hard links (a checkpoint's): such a file
     * must not be changed in place — no block-compaction append, no punched page — since the
     * other store reads the same bytes. False where the file system reports no link count.
     */
    public boolean sharedWithCheckpoint(long fileNumber) {
        try {
            Object links = java.nio.file.Files.getAttribute(path(fileNumber), "unix:nlink");
            return links instanceof Integer n && n > 1;
        } catch (UnsupportedOperationException | IllegalArgumentException | IOException | SecurityException e) {
            return false;
        }
    }

    public BlockCache cache() {
        return cache;
    }

    /** Opens the table version of {@code meta} for user reads. */
    public synchronized Component open(ComponentMeta meta) throws IOException {
        PageFile file = open.get(meta.fileNumber());
        if (file == null) {
            file = io.open(path(meta.fileNumber()), OpenMode.READ, IoPurpose.READ);
            open.put(meta.fileNumber(), file);
        }
        SSTableReader reader = SSTableReader.open(file, meta.id().footerOffset(), meta.fileNumber(), cache);
        Extent extent = extents.get(meta.fileNumber());
        if (extent == null) {
            extent = new Extent(holesAtOpen(file, reader));
            extents.put(meta.fileNumber(), extent);
        }
        // A table version ends with its footer page, and a later version appended to the file makes
        // it longer: the file's length is the end of the newest version opened, for every version.
        extent.length.accumulateAndGet(meta.id().footerOffset() + reader.footer().pageSize(), Math::max);
        return new Component(meta, reader, extent::onDisk, new ReadCounter());
    }

    /**
     * The bytes punched out of a file first opened now: none for a table written whole; for
     * a file holding reusing versions, its measured holes (holes punched before a restart
     * count then).
     */
    private static long holesAtOpen(PageFile file, SSTableReader reader) throws IOException {
        return reader.footer().previousFooterOffset() < 0 ? 0 : Math.max(0, measuredHoles(file));
    }

    /** What {@code file}'s length exceeds its allocated blocks by, or -1 if the storage cannot tell. */
    private static long measuredHoles(PageFile file) throws IOException {
        long allocated = file.allocatedBytes();
        return allocated < 0 ? -1 : Math.max(0, file.size() - allocated);
    }

    /**
     * Records that {@code bytes} of dead pages were just punched out of table file
     * {@code fileNumber} through {@code file}: its components' {@link Component#physicalBytes()}
     * no longer count them. Where the storage reports allocated blocks, the file's holes are
     * measured and replace what was counted, so a page punched twice (once before a restart)
     * is not counted twice; else {@code bytes} is added. Returns the bytes this frees beyond
     * what was counted (0 if the file is not open).
     */
    public synchronized long punched(long fileNumber, PageFile file, long bytes) throws IOException {
        Extent extent = extents.get(fileNumber);
        if (extent == null) {
            return 0;
        }
        long holes = measuredHoles(file);
        if (holes < 0) {
            extent.punched.addAndGet(bytes);
            return bytes;
        }
        return Math.max(0, holes - extent.punched.getAndSet(holes));
    }

    /** Closes the handle of a file, drops its cached pages and deletes it. */
    public synchronized void delete(long fileNumber) throws IOException {
        PageFile file = open.remove(fileNumber);
        Extent extent = extents.remove(fileNumber);
        // Pages are cached only through tables opened here, so a file never opened has none.
        long bytes = extent == null ? 0 : extent.length.get();
        if (file != null) {
            try {
                bytes = Math.max(bytes, file.size());
            } finally {
                file.close();
            }
        }
        // Every page number a file of this length can hold, at the smallest page size.
        cache.invalidateFile(fileNumber, (bytes + TableOptions.MIN_PAGE_SIZE - 1) / TableOptions.MIN_PAGE_SIZE);
        io.delete(path(fileNumber));
    }

    /**
     * Bytes of the table files this store holds open: those of the live components and
     * those of obsolete components that a reader still pins or whose deletion is pending.
     * A file whose size cannot be read counts as 0.
     */
    public synchronized long fileBytes() {
        long sum = 0;
        for (PageFile f : open.values()) {
            try {
                sum += f.size();
            } catch (IOException e) {
                // A handle that cannot report its size (closed under an interrupt, say): not counted.
            }
        }
        return sum;
    }

    /**
     * Disk bytes the open table files occupy (punched holes not counted), or -1 when the
     * storage cannot tell for some file.
     */
    public synchronized long allocatedBytes() {
        long sum = 0;
        for (PageFile f : open.values()) {
            try {
                long a = f.allocatedBytes();
                if (a < 0) {
                    return -1;
                }
                sum += a;
            } catch (IOException e) {
                // Not counted, as in fileBytes().
            }
        }
        return sum;
    }

    /** Closes every handle. */
    public synchronized void closeAll() {
        for (PageFile f : open.values()) {
            try {
                f.close();
            } catch (IOException ignored) {
                // Closing a read handle cannot lose data.
            }
        }
        open.clear();
        extents.clear();
    }
}
