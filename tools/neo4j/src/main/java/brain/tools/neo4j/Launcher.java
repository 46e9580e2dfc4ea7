package brain.tools.neo4j;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CountDownLatch;

import org.neo4j.configuration.GraphDatabaseInternalSettings;
import org.neo4j.configuration.GraphDatabaseSettings;
import org.neo4j.configuration.SettingValueParsers;
import org.neo4j.configuration.connectors.BoltConnector;
import org.neo4j.configuration.connectors.BoltConnectorInternalSettings;
import org.neo4j.configuration.connectors.HttpConnector;
import org.neo4j.configuration.connectors.HttpsConnector;
import org.neo4j.configuration.helpers.SocketAddress;
import org.neo4j.dbms.api.DatabaseManagementService;
import org.neo4j.dbms.api.DatabaseManagementServiceBuilder;
import org.neo4j.graphdb.GraphDatabaseService;
import org.neo4j.graphdb.config.Setting;
import org.neo4j.logging.Level;
import org.neo4j.logging.log4j.Log4jLogProvider;

/**
 * Embedded Neo4j Community server exposing only Bolt, for brain's tests and development.
 *
 * <pre>
 * java [JVM flags, see neo4j.sh] -cp CLASSPATH brain.tools.neo4j.Launcher --port N
 *      [--host 127.0.0.1] [--data-dir DIR] [--keep-data] [--pagecache 256m] [--log-level WARN]
 *      [--for-tests] [--keep-plans]
 * </pre>
 *
 * Without --data-dir a fresh temporary folder is created. The data folder is deleted on shutdown
 * (SIGTERM / SIGINT / normal exit) unless --keep-data is given. Authentication is disabled, the
 * HTTP(S) connectors are off, usage reporting is off. Prints "ready bolt://HOST:PORT" on stdout
 * once the default database accepts work. With --for-tests (a server that lives for one run of
 * the test suite) Cypher evaluates expressions without generating bytecode for them, and the
 * VM-pause monitor and the file watcher are off: work that a short-lived server pays for in CPU
 * on a shared machine and no test reads. With --keep-plans (--for-tests implies it) a query's
 * compiled plan is kept for the server's life: see keepPlans.
 */
public final class Launcher {

    private Launcher() {}

    public static void main(String[] args) throws Exception {
        String host = "127.0.0.1";
        int port = -1;
        Path dataDir = null;
        boolean keepData = false;
        String pagecache = "256m";
        Level logLevel = Level.WARN;
        boolean forTests = false;
        boolean keepPlans = false;

        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            switch (a) {
                case "--port" -> port = Integer.parseInt(value(args, ++i, a));
                case "--host" -> host = value(args, ++i, a);
                case "--data-dir" -> dataDir = Path.of(value(args, ++i, a)).toAbsolutePath();
                case "--keep-data" -> keepData = true;
                case "--pagecache" -> pagecache = value(args, ++i, a);
                case "--log-level" -> logLevel = Level.valueOf(value(args, ++i, a).toUpperCase());
                case "--for-tests" -> forTests = true;
                case "--keep-plans" -> keepPlans = true;
                case "-h", "--help" -> {
                    usage(System.out);
                    return;
                }
                default -> {
                    System.err.println("unknown argument: " + a);
                    usage(System.err);
                    System.exit(2);
                }
            }
        }
        if (port < 0 || port > 65535) {
            System.err.println("--port is required (1-65535)");
            usage(System.err);
            System.exit(2);
        }

        if (dataDir == null) {
            dataDir = Files.createTempDirectory("brain-neo4j-");
        } else {
            Files.createDirectories(dataDir);
        }
        final Path home = dataDir;
        final boolean deleteOnExit = !keepData;

        Map<Setting<?>, Object> cfg = new HashMap<>();
        // Connectors: Bolt on loopback only, no HTTP(S), no auth.
        cfg.put(BoltConnector.enabled, true);
        cfg.put(BoltConnector.listen_address, new SocketAddress(host, port));
        cfg.put(BoltConnector.advertised_address, new SocketAddress(host, port));
        cfg.put(BoltConnector.encryption_level, BoltConnector.EncryptionLevel.DISABLED);
        cfg.put(HttpConnector.enabled, false);
        cfg.put(HttpsConnector.enabled, false);
        cfg.put(GraphDatabaseSettings.auth_enabled, false);
        cfg.put(GraphDatabaseSettings.udc_enabled, false);
        // Memory / disk footprint fit for tests beside other processes.
        cfg.put(GraphDatabaseSettings.pagecache_memory, SettingValueParsers.BYTES.parse(pagecache));
        cfg.put(GraphDatabaseSettings.tx_state_memory_allocation,
                GraphDatabaseSettings.TransactionStateMemoryAllocation.ON_HEAP);
        cfg.put(GraphDatabaseSettings.preallocate_logical_logs, false);
        cfg.put(GraphDatabaseSettings.preallocate_store_files, false);
        cfg.put(GraphDatabaseSettings.keep_logical_logs, "false");
        cfg.put(GraphDatabaseSettings.pagecache_warmup_enabled, false);
        // Quiet: no debug.log; the user log (neo4j.log equivalent) goes to stdout at --log-level.
        cfg.put(GraphDatabaseSettings.debug_log_enabled, false);
        // Fast shutdown: Neo4j's defaults wait 5 s of Netty quiet period (plus up to 5 min for
        // open client connections); a test server should stop in about a second.
        cfg.put(GraphDatabaseSettings.shutdown_transaction_end_timeout, Duration.ofSeconds(2));
        cfg.put(GraphDatabaseInternalSettings.netty_server_shutdown_quiet_period, 0);
        cfg.put(GraphDatabaseInternalSettings.netty_server_shutdown_timeout, Duration.ofSeconds(3));
        cfg.put(BoltConnectorInternalSettings.thread_pool_shutdown_wait_time, Duration.ofSeconds(3));
        cfg.put(BoltConnectorInternalSettings.connection_shutdown_wait_time, Duration.ofSeconds(3));
        if (forTests) {
            // Compiled expressions are generated classes that the JIT must then compile again:
            // for queries run a few hundred times in a test run, interpreting them is cheaper.
            // Same results either way (the same expressions, evaluated by the slotted runtime).
            cfg.put(GraphDatabaseInternalSettings.cypher_expression_engine,
                    GraphDatabaseInternalSettings.CypherExpressionEngine.INTERPRETED);
            // A thread that wakes every 100 ms to time its own sleep, and one that polls the
            // data folder for deleted files: nobody reads what they report on a test server.
            cfg.put(GraphDatabaseInternalSettings.vm_pause_monitor_enabled, false);
            cfg.put(GraphDatabaseSettings.filewatcher_enabled, false);
        }

        if (forTests || keepPlans) {
            keepPlans(cfg);
        }

        Log4jLogProvider userLog = new Log4jLogProvider(System.out, logLevel);
        DatabaseManagementService dbms;
        try {
            dbms = new DatabaseManagementServiceBuilder(home)
                    .setConfig(cfg)
                    .setUserLogProvider(userLog)
                    .build();
        } catch (Throwable t) {
            // e.g. "Address already in use": report, clean up, and make sure the JVM exits.
            t.printStackTrace();
            if (deleteOnExit) {
                deleteRecursively(home);
            }
            System.err.flush();
            Runtime.getRuntime().halt(1);
            return;
        }

        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                dbms.shutdown();
            } catch (Throwable t) {
                System.err.println("neo4j shutdown failed: " + t);
            } finally {
                userLog.close();
                if (deleteOnExit) {
                    deleteRecursively(home);
                }
                System.out.println("stopped");
                System.out.flush();
                stopped.countDown();
            }
        }, "brain-neo4j-shutdown"));

        // Block until the default database is usable, then announce readiness.
        GraphDatabaseService db = dbms.database(GraphDatabaseSettings.DEFAULT_DATABASE_NAME);
        long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
        while (!db.isAvailable(1000)) {
            if (System.nanoTime() > deadline) {
                System.err.println("default database did not become available");
                System.exit(1);
            }
        }
        System.out.println("ready bolt://" + host + ":" + port + " data=" + home);
        System.out.flush();

        stopped.await();
    }

    /**
     * A test server's graph swings from empty to a few hundred nodes and back with every test,
     * so Neo4j's defaults (replan a cached query once 10 s have passed and the counts it was
     * planned with moved by 75%) compile the same few hundred statements again and again: most
     * of a test server's Bolt-thread CPU went to compiling, not running, queries. Here a plan,
     * once made, is reused whatever the counts, and list parameters of any length share one
     * plan (not one per size bucket). Plans decide how a query runs, never what it answers.
     */
    private static void keepPlans(Map<Setting<?>, Object> cfg) {
        cfg.put(GraphDatabaseSettings.cypher_min_replan_interval, Duration.ofDays(365));
        cfg.put(GraphDatabaseSettings.query_statistics_divergence_threshold, 1.0);
        cfg.put(GraphDatabaseInternalSettings.cypher_size_hint_parameters, false);
    }

    private static String value(String[] args, int i, String flag) {
        if (i >= args.length) {
            System.err.println(flag + " needs a value");
            System.exit(2);
        }
        return args[i];
    }

    private static void usage(PrintStream out) {
        out.println("usage: Launcher --port N [--host 127.0.0.1] [--data-dir DIR] [--keep-data]"
                + " [--pagecache 256m] [--log-level DEBUG|INFO|WARN|ERROR|NONE] [--for-tests] [--keep-plans]");
    }

    private static void deleteRecursively(Path root) {
        if (!Files.exists(root)) {
            return;
        }
        try {
            Files.walkFileTree(root, new SimpleFileVisitor<>() {
                @Override
                public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                    Files.deleteIfExists(file);
                    return FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult postVisitDirectory(Path dir, IOException exc) throws IOException {
                    Files.deleteIfExists(dir);
                    return FileVisitResult.CONTINUE;
                }
            });
        } catch (IOException e) {
            System.err.println("could not delete " + root + ": " + e);
        }
    }
}
