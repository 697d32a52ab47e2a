package dev.strata.lsm.backup;

import dev.strata.lsm.CorruptionException;
import dev.strata.lsm.LsmStore;
import dev.strata.lsm.StoreException;
import dev.strata.lsm.io.ScratchDirectories;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.stream.Stream;
import java.util.zip.CRC32C;

/**
 * Incremental backups of stores in one backup directory, as RocksDB's {@code BackupEngine}:
 * each backup is a checkpoint of the store ({@link LsmStore#checkpoint}) whose table files are
 * copied into the directory's shared area only if no earlier backup holds them, so a second
 * backup after a few changes copies the few tables they produced.
 *
 * <p>Layout (docs/format.md, "Backup directory"): {@code shared/} holds the files, each
 * stored once under a name made of its store name, length and CRC-32C ({@code
 * 000012.sst.4096.1a2b3c4d}; a column family's {@code families/1/000012.sst} as
 * {@code families+1+000012.sst.4096.1a2b3c4d}); {@code BACKUPS} lists every backup with its files (the store
 * name each is restored as, and the shared name), written to a temporary file, forced and
 * renamed over the old one. A file is referenced by every backup that lists it and deleted
 * once none does. A crash while a backup is taken leaves {@code BACKUPS} as it was, so every
 * earlier backup is intact; the files copied for the unfinished one are unreferenced and
 * deleted by the next {@link #open}, and its checkpoint (a directory {@code .NAME.backup-PID-*}
 * beside the store) by the next {@link #create} of that store.
 *
 * <p>One {@code Backups} at a time per directory (its methods are synchronized; two
 * processes must not share a backup directory).
 */
public final class Backups {
    static final String LIST = "BACKUPS";
    private static final String LIST_TEMP = "BACKUPS.tmp";
    private static final String SHARED = "shared";
    /** The list's header: version 2 names files by their path in the store ({@code families/1/000012.sst}). */
    private static final String HEADER = "strata-backups 2";
    /** Version 1's header (every file in the store's directory itself); still read. */
    private static final String HEADER_V1 = "strata-backups 1";

    /** One file of a backup: restored as {@code name}, stored as {@code shared/<stored>}. */
    record BackupFile(String name, String stored, long length, long crc) {
    }

    private record Backup(BackupInfo info, List<BackupFile> files) {
    }

    private final Path dir;
    private final Map<Long, Backup> backups = new LinkedHashMap<>();

    private Backups(Path dir) {
        this.dir = dir;
    }

    /**
     * Opens (creating if needed) the backup directory {@code backupDir}, and deletes shared
     * files no backup lists (left by a backup that did not finish).
     *
     * @throws CorruptionException if its {@code BACKUPS} list is damaged
     */
    public static Backups open(Path backupDir) {
        Objects.requireNonNull(backupDir, "backupDir");
        Backups b = new Backups(backupDir);
        try {
            Files.createDirectories(backupDir.resolve(SHARED));
            Files.deleteIfExists(backupDir.resolve(LIST_TEMP));
            b.read();
            b.deleteUnreferenced();
        } catch (IOException e) {
            throw new StoreException("cannot open backup directory " + backupDir + ": " + e, e);
        }
        return b;
    }

    /**
     * Backs up {@code store} as it is now (every write acknowledged before the call), while
     * it goes on serving reads and writes; returns the new backup.
     */
    public synchronized BackupInfo create(LsmStore store) {
        Objects.requireNonNull(store, "store");
        Path storeDir = store.directory().toAbsolutePath().normalize();
        Path temp = null;
        try {
            // Beside the store, so that the checkpoint's tables are links; a killed create's directory
            // is deleted by the next create of the same store.
            temp = ScratchDirectories.create(storeDir.getParent(), storeDir.getFileName().toString(), "backup");
            Path checkpoint = temp.resolve("checkpoint");
            store.checkpoint(checkpoint);
            Set<String> present = new HashSet<>();
            try (Stream<Path> s = Files.list(dir.resolve(SHARED))) {
                s.forEach(p -> present.add(p.getFileName().toString()));
            }
            List<BackupFile> files = new ArrayList<>();
            long bytes = 0;
            long copied = 0;
            List<Path> sources;
            try (Stream<Path> s = Files.walk(checkpoint)) {
                sources = s.filter(Files::isRegularFile).sorted().toList();
            }
            for (Path source : sources) {
                long length = Files.size(source);
                long crc = crc(source);
                // A column family's files are in families/<id>/: named by that path, stored flat.
                String name = checkpoint.relativize(source).toString().replace(java.io.File.separatorChar, '/');
                String stored = name.replace('/', '+') + "." + length + "." + String.format("%08x", crc);
                if (!present.contains(stored)) {
                    copyForced(source, dir.resolve(SHARED).resolve(stored));
                    present.add(stored);
                    copied += length;
                }
                files.add(new BackupFile(name, stored, length, crc));
                bytes += length;
            }
            long id = backups.keySet().stream().mapToLong(Long::longValue).max().orElse(0) + 1;
            BackupInfo info = new BackupInfo(id, System.currentTimeMillis(), files.size(), bytes, copied);
            backups.put(id, new Backup(info, List.copyOf(files)));
            try {
                write();
            } catch (IOException | RuntimeException e) {
                backups.remove(id);
                throw e;
            }
            return info;
        } catch (IOException e) {
            throw new StoreException("backup of " + storeDir + " into " + dir + " failed: " + e, e);
        } finally {
            if (temp != null) {
                deleteTreeQuietly(temp);
            }
        }
    }

    /** The backups, oldest first. */
    public synchronized List<BackupInfo> list() {
        return backups.values().stream().map(Backup::info).toList();
    }

    /**
     * Reads every file of backup {@code id} and checks its length and CRC-32C.
     *
     * @throws CorruptionException naming the first file that does not match
     * @throws IllegalArgumentException if there is no such backup
     */
    public synchronized void verify(long id) {
        for (BackupFile f : backup(id).files()) {
            Path stored = dir.resolve(SHARED).resolve(f.stored());
            try {
                long length = Files.size(stored);
                if (length != f.length()) {
                    throw new CorruptionException(stored, 0, "backup " + id + ": " + stored + " holds " + length
                            + " bytes, " + LIST + " says " + f.length());
                }
                long crc = crc(stored);
                if (crc != f.crc()) {
                    throw new CorruptionException(stored, 0, "backup " + id + ": " + stored + " has CRC-32C "
                            + String.format("%08x", crc) + ", " + LIST + " says " + String.format("%08x", f.crc()));
                }
            } catch (NoSuchFileException e) {
                throw new CorruptionException(stored, 0, "backup " + id + ": " + stored + " is missing", e);
            } catch (IOException e) {
                throw new StoreException("cannot verify backup " + id + " in " + dir + ": " + e, e);
            }
        }
    }

    /**
     * Writes backup {@code id} as a store into {@code target}, which must not exist; it opens
     * with {@code LsmStore.open(target, config)}. Each file is checked against its CRC-32C as
     * it is copied; a crash leaves no {@code target} (the files go to a temporary directory
     * beside it first).
     */
    public synchronized void restore(long id, Path target) {
        Objects.requireNonNull(target, "target");
        Backup b = backup(id);
        Path absolute = target.toAbsolutePath().normalize();
        if (Files.exists(absolute)) {
            throw new IllegalArgumentException("restore target " + absolute + " exists; give a path that does not");
        }
        Path temp = absolute.resolveSibling(absolute.getFileName() + ".restore-tmp");
        try {
            deleteTree(temp);
            Files.createDirectories(temp);
            for (BackupFile f : b.files()) {
                Path stored = dir.resolve(SHARED).resolve(f.stored());
                Path to = temp.resolve(checkedName(f.name(), id));
                Files.createDirectories(to.getParent());
                copyForced(stored, to);
                if (Files.size(to) != f.length() || crc(to) != f.crc()) {
                    throw new CorruptionException(stored, 0, "backup " + id + ": " + stored
                            + " does not match its length and CRC-32C in " + LIST);
                }
            }
            try (Stream<Path> dirs = Files.walk(temp)) {
                for (Path d : dirs.filter(Files::isDirectory).toList()) {
                    syncDirectory(d);
                }
            }
            Files.move(temp, absolute, StandardCopyOption.ATOMIC_MOVE);
            syncDirectory(absolute.getParent());
        } catch (IOException e) {
            deleteTreeQuietly(temp);
            throw new StoreException("cannot restore backup " + id + " into " + absolute + ": " + e, e);
        } catch (RuntimeException e) {
            deleteTreeQuietly(temp);
            throw e;
        }
    }

    /** Deletes all but the newest {@code keep} backups, and the files only they held. */
    public synchronized void purgeOldBackups(int keep) {
        if (keep < 0) {
            throw new IllegalArgumentException("keep must be >= 0, was " + keep);
        }
        List<Long> ids = new ArrayList<>(backups.keySet());
        if (ids.size() <= keep) {
            return;
        }
        Map<Long, Backup> before = new LinkedHashMap<>(backups);
        for (long id : ids.subList(0, ids.size() - keep)) {
            backups.remove(id);
        }
        try {
            write();
            deleteUnreferenced();
        } catch (IOException e) {
            backups.clear();
            backups.putAll(before);
            throw new StoreException("cannot purge backups in " + dir + ": " + e, e);
        }
    }

    /**
     * {@code name} as a path inside the restored store: relative, of plain segments (a
     * damaged or forged list must not write outside the target).
     */
    private String checkedName(String name, long id) {
        for (String part : name.split("/", -1)) {
            if (part.isEmpty() || part.equals(".") || part.equals("..") || part.indexOf('\\') >= 0) {
                throw new CorruptionException(dir.resolve(LIST), 0, "backup " + id + " lists file \"" + name
                        + "\", which is not a plain relative path in a store");
            }
        }
        return name;
    }

    private Backup backup(long id) {
        Backup b = backups.get(id);
        if (b == null) {
            throw new IllegalArgumentException("no backup " + id + " in " + dir + "; backups: " + backups.keySet());
        }
        return b;
    }

    // ---- the BACKUPS list

    /**
     * Text, UTF-8: the header line, then per backup a line {@code backup ID CREATED_MILLIS
     * BYTES_COPIED FILE_COUNT}, followed by FILE_COUNT lines {@code file NAME STORED LENGTH
     * CRC32C_HEX}; the last line is {@code end CRC32C_HEX} of every byte before it. Version 2
     * ({@code strata-backups 2}): NAME is the file's path in the store with {@code /} between
     * segments ({@code families/1/000012.sst} for a column family's table), STORED that path
     * with {@code +} for {@code /}; version 1 lists only files of the store's own directory.
     */
    private void write() throws IOException {
        StringBuilder text = new StringBuilder(HEADER).append('\n');
        for (Backup b : backups.values()) {
            BackupInfo i = b.info();
            text.append("backup ").append(i.id()).append(' ').append(i.createdMillis()).append(' ')
                    .append(i.bytesCopied()).append(' ').append(b.files().size()).append('\n');
            for (BackupFile f : b.files()) {
                text.append("file ").append(f.name()).append(' ').append(f.stored()).append(' ').append(f.length())
                        .append(' ').append(String.format("%08x", f.crc())).append('\n');
            }
        }
        byte[] body = text.toString().getBytes(StandardCharsets.UTF_8);
        CRC32C crc = new CRC32C();
        crc.update(body);
        byte[] end = String.format("end %08x%n", crc.getValue()).getBytes(StandardCharsets.UTF_8);
        Path temp = dir.resolve(LIST_TEMP);
        try (FileChannel ch = FileChannel.open(temp, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING)) {
            ch.write(ByteBuffer.wrap(body));
            ch.write(ByteBuffer.wrap(end));
            ch.force(true);
        }
        try {
            Files.move(temp, dir.resolve(LIST), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (AtomicMoveNotSupportedException e) {
            throw new IOException("the file system of " + dir + " cannot rename atomically", e);
        }
        syncDirectory(dir);
    }

    private void read() throws IOException {
        Path list = dir.resolve(LIST);
        if (!Files.exists(list)) {
            return;
        }
        byte[] bytes = Files.readAllBytes(list);
        String text = new String(bytes, StandardCharsets.UTF_8);
        int endAt = text.lastIndexOf("end ");
        if (!(text.startsWith(HEADER + "\n") || text.startsWith(HEADER_V1 + "\n")) || endAt < 0) {
            throw new CorruptionException(list, 0, "backup list " + list + " is not a strata backup list");
        }
        CRC32C crc = new CRC32C();
        crc.update(bytes, 0, text.substring(0, endAt).getBytes(StandardCharsets.UTF_8).length);
        String expected = text.substring(endAt + 4).trim();
        if (!expected.equals(String.format("%08x", crc.getValue()))) {
            throw new CorruptionException(list, endAt, "backup list " + list + " fails its checksum");
        }
        String[] lines = text.substring(0, endAt).split("\n");
        try {
            for (int i = 1; i < lines.length; i++) {
                String[] w = lines[i].split(" ");
                if (!w[0].equals("backup") || w.length != 5) {
                    throw new CorruptionException(list, 0, "backup list " + list + ": bad line " + (i + 1));
                }
                long id = Long.parseLong(w[1]);
                int count = Integer.parseInt(w[4]);
                List<BackupFile> files = new ArrayList<>();
                long total = 0;
                for (int f = 0; f < count; f++) {
                    String[] x = lines[++i].split(" ");
                    if (!x[0].equals("file") || x.length != 5) {
                        throw new CorruptionException(list, 0, "backup list " + list + ": bad line " + (i + 1));
                    }
                    BackupFile file = new BackupFile(x[1], x[2], Long.parseLong(x[3]), Long.parseLong(x[4], 16));
                    files.add(file);
                    total += file.length();
                }
                backups.put(id, new Backup(new BackupInfo(id, Long.parseLong(w[2]), count, total,
                        Long.parseLong(w[3])), List.copyOf(files)));
            }
        } catch (NumberFormatException | ArrayIndexOutOfBoundsException e) {
            throw new CorruptionException(list, 0, "backup list " + list + " is malformed: " + e, e);
        }
    }

    private void deleteUnreferenced() throws IOException {
        Set<String> referenced = new HashSet<>();
        for (Backup b : backups.values()) {
            b.files().forEach(f -> referenced.add(f.stored()));
        }
        try (DirectoryStream<Path> s = Files.newDirectoryStream(dir.resolve(SHARED))) {
            for (Path p : s) {
                if (!referenced.contains(p.getFileName().toString())) {
                    Files.delete(p);
                }
            }
        }
    }

    // ---- files

    private static long crc(Path file) throws IOException {
        CRC32C crc = new CRC32C();
        byte[] buf = new byte[1 << 16];
        try (InputStream in = Files.newInputStream(file)) {
            int n;
            while ((n = in.read(buf)) > 0) {
                crc.update(buf, 0, n);
            }
        }
        return crc.getValue();
    }

    private static void copyForced(Path from, Path to) throws IOException {
        Path temp = to.resolveSibling(to.getFileName() + ".tmp");
        try (InputStream in = Files.newInputStream(from); OutputStream out = Files.newOutputStream(temp)) {
            in.transferTo(out);
        }
        try (FileChannel ch = FileChannel.open(temp, StandardOpenOption.WRITE)) {
            ch.force(true);
        }
        Files.move(temp, to, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    }

    private static void syncDirectory(Path d) {
        try (FileChannel ch = FileChannel.open(d, StandardOpenOption.READ)) {
            ch.force(true);
        } catch (IOException e) {
            // Not every file system lets a directory be opened and forced; the renames are then as durable as it makes them.
        }
    }

    private static void deleteTree(Path root) throws IOException {
        if (!Files.exists(root)) {
            return;
        }
        try (Stream<Path> walk = Files.walk(root)) {
            for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }

    private static void deleteTreeQuietly(Path root) {
        try {
            deleteTree(root);
        } catch (IOException e) {
            // best effort: a leftover temporary directory holds only links and copies
        }
    }
}
