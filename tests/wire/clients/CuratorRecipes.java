// Curator 5.4's InterProcessMutex and LeaderLatch (Debian
// libcurator-recipes-java) on `zksim serve`: concurrent clients while a
// nemesis thread injects faults through the control interface; the run's
// history is written for the project's checkers (check_history.cpp, the
// format of zksim_harness.py).
//
//   java CuratorRecipes HOSTS CONTROL_PORT SCENARIO SEED HISTORY.json SESSION_MS
//
// SCENARIO: mutex or leader-latch; SESSION_MS the clients' session timeout
// (zksim_harness.SESSION_S). Prints the faults struck.

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.leader.LeaderLatch;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.zookeeper.KeeperException;

public class CuratorRecipes {
  static final int CONNECTION_LOSS = -4, OPERATION_TIMEOUT = -7, SYSTEM_ERROR = -1, SESSION_EXPIRED = -112;
  static final long RUN_MS = 2500;

  /** The history, in the order things happened (zksim_harness.History). */
  static final class History {
    private final long t0 = System.nanoTime();
    private final List<String> events = new ArrayList<>();
    private int nextOp = 1;

    synchronized long now() { return (System.nanoTime() - t0) / 1_000_000; }

    synchronized int invoke(int client, String f) {
      int op = nextOp++;
      events.add(String.format("{\"type\":\"invoke\",\"op\":%d,\"client\":%d,\"f\":\"%s\",\"time\":%d,\"value\":\"\"}",
                               op, client, f, now()));
      return op;
    }
    synchronized void ok(int op, String value) {
      events.add(String.format("{\"type\":\"ok\",\"op\":%d,\"time\":%d,\"value\":\"%s\",\"fence\":0}", op, now(),
                               value.replace("\\", "\\\\").replace("\"", "\\\"")));
    }
    synchronized void end(int op, String type, int error) {
      events.add(String.format("{\"type\":\"%s\",\"op\":%d,\"time\":%d,\"error\":%d,\"value\":\"\"}", type, op, now(),
                               error));
    }
    synchronized void note(int client, String what, long at) {
      events.add(String.format("{\"type\":\"note\",\"client\":%d,\"time\":%d,\"what\":\"%s\"}", client, at, what));
    }
    synchronized void write(Path file, String recipe) throws IOException {
      Files.writeString(file, "{\"recipe\":\"" + recipe + "\",\"members\":0,\"left\":[],\"counter\":null,\"events\":[\n"
                              + String.join(",\n", events) + "]}\n");
    }
  }

  /** A call that ended by an exception: a lost connection leaves it unknown. */
  static void ended(History h, int op, Exception e) {
    if (e instanceof KeeperException.ConnectionLossException) {
      h.end(op, "info", CONNECTION_LOSS);
    } else if (e instanceof KeeperException.SessionExpiredException) {
      h.end(op, "fail", SESSION_EXPIRED);
    } else {
      h.end(op, "info", SYSTEM_ERROR);
    }
  }

  static String control(int port, String command) {
    try {
      HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/commands/" + command)).build();
      return HttpClient.newHttpClient().send(request, HttpResponse.BodyHandlers.ofString()).body();
    } catch (IOException | InterruptedException e) {
      return "{\"error\":\"" + e + "\"}";
    }
  }

  static long session(CuratorFramework c) {
    try {
      return c.getZookeeperClient().getZooKeeper().getSessionId();
    } catch (Exception e) {
      return 0;
    }
  }

  public static void main(String[] args) throws Exception {
    String hosts = args[0];
    int controlPort = Integer.parseInt(args[1]);
    String scenario = args[2];
    Random rng = new Random(Long.parseLong(args[3]));
    Path out = Path.of(args[4]);
    int sessionMs = Integer.parseInt(args[5]);
    History h = new History();
    int n = 3;
    List<CuratorFramework> clients = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      CuratorFramework c = CuratorFrameworkFactory.newClient(hosts, sessionMs, 2000, new ExponentialBackoffRetry(50, 29, 200));
      final int client = i;
      c.getConnectionStateListenable().addListener((cf, state) -> {
        if (state == ConnectionState.SUSPENDED) h.note(client, "suspended", h.now());
        if (state == ConnectionState.LOST) h.note(client, "lost", h.now());
      });
      c.start();
      if (!c.blockUntilConnected(3 * sessionMs, TimeUnit.MILLISECONDS)) {
        throw new IllegalStateException("client " + i + " did not connect");
      }
      clients.add(c);
    }
    long until = System.currentTimeMillis() + RUN_MS;

    // The nemesis: a fault every 250 ms, on a client drawn from the seed.
    String[] faults = {"expire", "pause", "close", "drop-before", "drop-after"};
    List<String> struck = new ArrayList<>();
    Thread nemesis = new Thread(() -> {
      while (System.currentTimeMillis() < until) {
        try {
          Thread.sleep(250);
        } catch (InterruptedException e) {
          return;
        }
        int client = rng.nextInt(n);
        String kind = faults[rng.nextInt(faults.length)];
        long id = session(clients.get(client));
        if (id == 0) continue;
        String target = "session=0x" + Long.toHexString(id);
        long asked = h.now();
        String answer;
        switch (kind) {
          case "expire": answer = control(controlPort, "expire?" + target); break;
          case "pause": answer = control(controlPort, "pause?" + target + "&ms=200"); break;
          case "close": answer = control(controlPort, "close?" + target); break;
          default: answer = control(controlPort, "drop?" + target + "&when=" + kind.substring(5)); break;
        }
        if (answer.contains("\"error\":null")) {
          if (kind.equals("expire")) h.note(client, "expired", asked);
          struck.add(kind + " c" + client);
        }
      }
    });
    nemesis.start();

    List<Thread> workers = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      final int client = i;
      final CuratorFramework c = clients.get(i);
      workers.add(new Thread(() -> {
        if (scenario.equals("mutex")) {
          mutex(h, client, c, until);
        } else {
          latch(h, client, c, until);
        }
      }));
    }
    for (Thread t : workers) t.start();
    for (Thread t : workers) t.join(RUN_MS + 3L * sessionMs);
    nemesis.join();
    for (CuratorFramework c : clients) c.close();
    h.write(out, scenario);
    System.out.println("faults: " + String.join(", ", struck));
    System.exit(0);
  }

  static void mutex(History h, int client, CuratorFramework c, long until) {
    InterProcessMutex mutex = new InterProcessMutex(c, "/mutex");
    while (System.currentTimeMillis() < until) {
      int op = h.invoke(client, "acquire");
      boolean got;
      try {
        got = mutex.acquire(3, TimeUnit.SECONDS);
      } catch (Exception e) {
        ended(h, op, e);
        continue;
      }
      if (!got) {
        h.end(op, "fail", OPERATION_TIMEOUT);
        continue;
      }
      h.ok(op, "c" + client);
      sleep(30);
      op = h.invoke(client, "release");
      try {
        mutex.release();
        h.ok(op, "");
      } catch (Exception e) {
        ended(h, op, e);
      }
    }
  }

  static void latch(History h, int client, CuratorFramework c, long until) {
    while (System.currentTimeMillis() < until) {
      LeaderLatch latch = new LeaderLatch(c, "/latch", "c" + client);
      int op = h.invoke(client, "campaign");
      try {
        latch.start();
        if (latch.await(1, TimeUnit.SECONDS)) {
          h.ok(op, "c" + client);
          sleep(50);
          op = h.invoke(client, "resign");
          latch.close();
          h.ok(op, "");
        } else {
          h.end(op, "fail", OPERATION_TIMEOUT);
          latch.close();
        }
      } catch (Exception e) {
        ended(h, op, e);
        try {
          latch.close();
        } catch (Exception ignored) {
          // already closed
        }
      }
    }
  }

  static void sleep(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
