package dev.strata.lsm.io;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * Temporary directories beside a store ({@code .NAME.KIND-PID-RANDOM}: a backup's checkpoint,
 * a read-only open's staging) that name the process that made them, so that the ones a
 * killed process left behind — holding hard links that keep old tables' blocks allocated —
 * are found and deleted by the next one made: a directory whose process is gone is
 * abandoned. A directory of a live process (this one included) is never touched; a reused
 * process id only delays the deletion. Stateless; safe from any thread.
 */
public final class ScratchDirectories {
    private ScratchDirectories() {
    }

    /**
     * Deletes the abandoned {@code .NAME.KIND-*} directories in {@code parent}, then creates a
     * new one of this process.
     *
     * @param parent the directory to make the scratch directory in (it must exist)
     * @param name the owner's name, the {@code NAME} of the directory's name
     * @param kind what the directory is for, the {@code KIND} of the directory's name
     * @return the new, empty directory {@code .NAME.KIND-PID-*} of this process
     * @throws java.io.IOException if {@code parent} cannot be listed, or an abandoned directory
     *     deleted or the new one created
     */
    public static Path create(Path parent, String name, String kind) throws IOException {
        deleteAbandoned(parent, name, kind);
        return Files.createTempDirectory(parent, prefix(name, kind) + ProcessHandle.current().pid() + "-");
    }

    /**
     * Deletes the {@code .NAME.KIND-PID-*} directories in {@code parent} whose process PID is not
     * running.
     *
     * @param parent the directory to look in
     * @param name the owner's name, the {@code NAME} of the directories' names
     * @param kind what the directories are for, the {@code KIND} of their names
     * @throws java.io.IOException if {@code parent} cannot be listed or an abandoned directory
     *     cannot be deleted
     */
    public static void deleteAbandoned(Path parent, String name, String kind) throws IOException {
        String prefix = prefix(name, kind);
        long self = ProcessHandle.current().pid();
        try (DirectoryStream<Path> s = Files.newDirectoryStream(parent, p -> p.getFileName().toString().startsWith(prefix))) {
            for (Path p : s) {
                String rest = p.getFileName().toString().substring(prefix.length());
                int dash = rest.indexOf('-');
                if (dash <= 0 || !Files.isDirectory(p)) {
                    continue;
                }
                long pid;
                try {
                    pid = Long.parseLong(rest.substring(0, dash));
                } catch (NumberFormatException e) {
                    continue; // not one of ours
                }
                Optional<ProcessHandle> owner = ProcessHandle.of(pid);
                if (pid != self && (owner.isEmpty() || !owner.get().isAlive())) {
                    deleteTree(p);
                }
            }
        }
    }

    private static String prefix(String name, String kind) {
        return "." + name + "." + kind + "-";
    }

    /**
     * Deletes {@code root} and everything in it (a scratch directory its maker is done with);
     * nothing happens if it does not exist.
     *
     * @param root the directory to delete
     * @throws java.io.IOException if a file in it cannot be deleted
     */
    public static void delete(Path root) throws IOException {
        if (Files.exists(root)) {
            deleteTree(root);
        }
    }

    private static void deleteTree(Path root) throws IOException {
        try (Stream<Path> walk = Files.walk(root)) {
            for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}
