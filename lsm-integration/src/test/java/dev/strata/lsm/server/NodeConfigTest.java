package dev.strata.lsm.server;

import dev.strata.lsm.StoreConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The node ships every module a configuration may name: the native storage IO and the policies. */
class NodeConfigTest {
    @TempDir
    Path dir;

    @Test
    void nativeStorageIoAndAPolicyOfLsmPoliciesFromXml() throws IOException {
        Path xml = dir.resolve("strata.xml");
        Files.writeString(xml, "<store><storageIO name=\"native\"/><mergePolicy name=\"binomial\"/></store>");
        StoreConfig config = StoreConfig.fromXml(xml);
        try (TestNode node = new TestNode(dir.resolve("data"), config, ServerOptions.defaults());
             Jedis j = node.client()) {
            assertEquals("native", node.server.store().config().storageIOName());
            assertEquals("OK", j.set("k", "v"));
            assertEquals("v", j.get("k"));
        }
    }
}
