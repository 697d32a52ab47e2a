package dev.strata.lsm.kafka;

import java.io.File;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.ArrayList;
import java.util.List;

/**
 * A class loader that defines every class of the test classpath itself (its parent is the
 * platform loader) and says which it loaded: a run of Kafka Streams in it shows whether that
 * run loaded a class (rocksdbjni's {@code org.rocksdb.RocksDB}), whatever other tests of the
 * JVM loaded. Not thread safe beyond {@link URLClassLoader}'s guarantees.
 */
final class IsolatedLoader extends URLClassLoader {
    IsolatedLoader() {
        super(classpath(), ClassLoader.getPlatformClassLoader());
    }

    /** Whether this loader defined {@code className}. */
    boolean loaded(String className) {
        return findLoadedClass(className) != null;
    }

    private static URL[] classpath() {
        String cp = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        List<URL> urls = new ArrayList<>();
        for (String entry : cp.split(File.pathSeparator)) {
            if (!entry.isEmpty()) {
                try {
                    urls.add(new File(entry).toURI().toURL());
                } catch (MalformedURLException e) {
                    throw new IllegalStateException(entry, e);
                }
            }
        }
        return urls.toArray(new URL[0]);
    }
}
