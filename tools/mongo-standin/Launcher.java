// Starts mongo-java-server, a MongoDB wire-protocol stand-in, for offline development and CI.
//   java -cp <classpath> Launcher.java <port> [h2-file]
// Port 0 picks a free port. Without a file the data lives in memory; with one it is kept in an H2 file.
// Prints "mongo-standin listening on <host>:<port>" once it accepts connections. Stops on SIGTERM, and
// when its standard input closes, so it never outlives the Node process that started it. It ignores
// SIGINT: Ctrl-C in a terminal signals the whole foreground process group, and the API, which keeps
// serving while it drains, stops the stand-in last.
import de.bwaldvogel.mongo.MongoBackend;
import de.bwaldvogel.mongo.MongoServer;
import de.bwaldvogel.mongo.backend.h2.H2Backend;
import de.bwaldvogel.mongo.backend.memory.MemoryBackend;
import java.net.InetSocketAddress;

public class Launcher {
    public static void main(String[] args) throws Exception {
        if (args.length < 1) {
            System.err.println("usage: Launcher <port> [h2-file]");
            System.exit(2);
        }
        int port = Integer.parseInt(args[0]);
        MongoBackend backend = args.length > 1 ? new H2Backend(args[1]) : new MemoryBackend();
        MongoServer server = new MongoServer(backend);
        server.bind("127.0.0.1", port);
        // The JVM runs shutdown hooks on SIGTERM; closing the server flushes the H2 file.
        Runtime.getRuntime().addShutdownHook(new Thread(server::shutdownNow));
        sun.misc.Signal.handle(new sun.misc.Signal("INT"), sun.misc.SignalHandler.SIG_IGN);
        InetSocketAddress address = server.getLocalAddress();
        System.out.println("mongo-standin listening on " + address.getHostString() + ":" + address.getPort());
        System.out.flush();
        while (System.in.read() != -1) {
            // discard input; end of input means the parent has gone
        }
        System.exit(0);
    }
}
