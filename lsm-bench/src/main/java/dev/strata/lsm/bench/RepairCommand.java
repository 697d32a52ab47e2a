package dev.strata.lsm.bench;

import dev.strata.lsm.LsmStore;
import dev.strata.lsm.StoreConfig;
import dev.strata.lsm.StoreException;
import dev.strata.lsm.RepairReport;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.nio.file.Path;
import java.util.concurrent.Callable;

/**
 * {@code repair DIR}: rebuilds the manifest of a closed store from its table files
 * ({@link LsmStore#repair}) after an open failed naming a damaged manifest. Nothing is
 * deleted; files the repair cannot use are moved into {@code DIR/lost/}.
 */
@Command(name = "repair", mixinStandardHelpOptions = true,
        description = "Rebuild a closed store's manifest from its tables; unusable files go to DIR/lost/.")
public final class RepairCommand implements Callable<Integer> {

    @Parameters(index = "0", paramLabel = "DIR", description = "the store directory")
    Path dir;

    @Option(names = "--config", paramLabel = "FILE.xml",
            description = "the store's XML configuration (its page size is used for tables a repair writes)")
    Path config;

    @Override
    public Integer call() {
        try {
            StoreConfig c = config == null ? StoreConfig.defaults() : StoreConfig.fromXml(config);
            RepairReport report = LsmStore.repair(dir, c);
            System.out.println(report);
            return 0;
        } catch (StoreException e) {
            System.err.println("repair failed: " + e.getMessage());
            return 1;
        }
    }
}
