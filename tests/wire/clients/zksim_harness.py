"""What the real-client tests share: `zksim serve` on free ports with its
control interface, a history in the project's vocabulary (history.h:
invoke, then ok / fail / info; notes), and the checker program that reads
it (check_history.cpp). Standard library only; run with Debian's
/usr/bin/python3, where python3-kazoo is installed."""

import json
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request

# The clients' session timeout, and the tickTime that lets the server grant
# it (at most 20 ticks). A loaded machine keeps such a session's connection:
# kazoo gives a connection up when a ping's reply comes later than its next
# select, 1/3 of the session less up to 0.4 s of jitter (2.9 s here; with a
# 2 s session, 0.27 s, of which a 200 ms pause left 70 ms), the Java client
# after 2/3 of it without a byte.
SESSION_S = 10.0
TICK_MS = 500
# What a scenario's wait gives up after: each waits for a few requests of
# clients that keep their connections through any stall shorter than a
# session timeout, so a wait of several is a client stuck, not a slow one.
WAIT_S = 3 * SESSION_S

# ZooKeeper's error numbers (zksim/error.h) for what a call may end with.
CONNECTION_LOSS = -4
OPERATION_TIMEOUT = -7
SYSTEM_ERROR = -1
SESSION_EXPIRED = -112
NO_NODE = -101


class Serve:
    """`zksim serve` on a free port and a free control port, until stop()."""

    def __init__(self, zksim, tick_ms=200):
        self.proc = subprocess.Popen(
            [zksim, "serve", "--port", "0", "--control-port", "0", "--tick-ms", str(tick_ms),
             "--container-check-ms", "1000"],
            stdout=subprocess.PIPE, text=True)
        lines = [self.proc.stdout.readline().strip() for _ in range(2)]
        if not (lines[0].startswith("serving on ") and lines[1].startswith("control on ")):
            self.proc.kill()
            raise RuntimeError("%s serve did not start (it printed %r)" % (zksim, lines))
        port, control = (line.rsplit(":", 1)[1] for line in lines)
        self.hosts = "127.0.0.1:" + port
        self.port = int(port)
        self.control_port = int(control)

    def command(self, name, **params):
        """A control command; its JSON answer (an error's too)."""
        url = "http://127.0.0.1:%d/commands/%s?%s" % (self.control_port, name, urllib.parse.urlencode(params))
        try:
            with urllib.request.urlopen(url, timeout=10) as r:
                return json.load(r)
        except urllib.error.HTTPError as e:
            return json.load(e)

    def word(self, word):
        """A four-letter word's answer."""
        with socket.create_connection(("127.0.0.1", self.port), timeout=10) as s:
            s.sendall(word.encode())
            answer = b""
            while chunk := s.recv(4096):
                answer += chunk
            return answer.decode()

    def watch_count(self):
        """The watches the server holds, of every kind (mntr's zk_watch_count)."""
        for line in self.word("mntr").splitlines():
            if line.startswith("zk_watch_count\t"):
                return int(line.split("\t")[1])
        raise RuntimeError("mntr has no zk_watch_count")

    @staticmethod
    def wait_for(condition, what, timeout_s=WAIT_S):
        """Polls `condition` until it holds; raises TimeoutError, saying
        `what` it waited for, when `timeout_s` passed first."""
        deadline = time.monotonic() + timeout_s
        while not condition():
            if time.monotonic() > deadline:
                raise TimeoutError("waited %g s for %s" % (timeout_s, what))
            time.sleep(0.01)

    def save_trace(self, path):
        """The server's trace as the HTML page zksim timeline draws."""
        url = "http://127.0.0.1:%d/commands/trace?format=html" % self.control_port
        with urllib.request.urlopen(url, timeout=10) as r, open(path, "wb") as out:
            out.write(r.read())

    def stop(self):
        """SIGTERM, then waits; raises if the server had died or did not
        exit 0 (a crash, or a sanitizer's report: on its stderr, above)."""
        self.proc.send_signal(signal.SIGTERM)
        status = self.proc.wait(timeout=30)
        if status != 0:
            raise RuntimeError("zksim serve exited with status %d" % status)


class History:
    """A run's history, recorded from many threads in the order things happened."""

    def __init__(self):
        self.events = []
        self.lock = threading.Lock()
        self.t0 = time.monotonic()
        self.next_op = 1

    def now(self):
        return int((time.monotonic() - self.t0) * 1000)

    def _add(self, event, at=None):
        with self.lock:
            event["time"] = self.now() if at is None else at
            if event["type"] == "invoke":
                event["op"] = self.next_op
                self.next_op += 1
            self.events.append(event)
            return event.get("op")

    def invoke(self, client, f, value=""):
        return self._add({"type": "invoke", "client": client, "f": f, "value": value})

    def ok(self, op, value="", fence=0):
        self._add({"type": "ok", "op": op, "value": value, "fence": fence})

    def fail(self, op, error):
        self._add({"type": "fail", "op": op, "error": error})

    def info(self, op, error, value=""):
        self._add({"type": "info", "op": op, "error": error, "value": value})

    def note(self, client, what, at=None):
        """`at`: when it happened, if before now (the checker orders by time)."""
        self._add({"type": "note", "client": client, "what": what}, at)

    def write(self, path, recipe, members=0, left=None, counter=None):
        with open(path, "w") as out:
            json.dump({"recipe": recipe, "members": members, "events": self.events,
                       "left": left or [], "counter": counter}, out, indent=0)


def error_code(e):
    """The ZooKeeper error a client exception stands for."""
    return getattr(e, "code", None) if isinstance(getattr(e, "code", None), int) else SYSTEM_ERROR


def check(checker, history_path, expect=None):
    """Runs the checker on a history. Returns (as expected?, its output)."""
    args = [checker, history_path] + (["--expect", expect] if expect else [])
    r = subprocess.run(args, capture_output=True, text=True)
    return r.returncode == 0, r.stdout + r.stderr


class Nemesis(threading.Thread):
    """Injects faults through the control interface every `every_s`, drawn
    from a seeded random source, until stopped. `sessions()` gives the
    clients' current session ids (None while one has none); an expiry is
    written to the history as a note "expired" of that client, at the time
    just before the server was asked (it expired after)."""

    def __init__(self, serve, history, sessions, rng, faults, every_s=0.25, pause_ms=300):
        super().__init__(daemon=True)
        self.serve, self.history, self.sessions, self.rng = serve, history, sessions, rng
        self.faults, self.every_s, self.pause_ms = faults, every_s, pause_ms
        self.done = threading.Event()
        self.struck = []

    def run(self):
        while not self.done.wait(self.every_s):
            ids = self.sessions()
            client = self.rng.randrange(len(ids))
            if ids[client] is None:
                continue
            session = hex(ids[client])
            kind = self.rng.choice(self.faults)
            if kind == "expire":
                asked = self.history.now()
                r = self.serve.command("expire", session=session)
                if r.get("error") is None:
                    self.history.note(client, "expired", at=asked)
            elif kind == "pause":
                r = self.serve.command("pause", session=session, ms=self.pause_ms)
            elif kind == "close":
                r = self.serve.command("close", session=session)
            else:  # drop-before, drop-after
                r = self.serve.command("drop", session=session, when=kind.split("-")[1])
            if r.get("error") is None:
                self.struck.append((kind, client))

    def stop(self):
        self.done.set()
        self.join()


def parse_args(doc, scenarios):
    """ZKSIM CHECKER OUTDIR [SCENARIO ...] from sys.argv, the scenarios all
    of `scenarios` when none is named; None (after saying why on stderr)
    when they are missing or name an unknown scenario."""
    if len(sys.argv) < 4:
        print(doc, file=sys.stderr)
        return None
    zksim, checker, outdir = sys.argv[1:4]
    names = sys.argv[4:] or list(scenarios)
    unknown = [name for name in names if name not in scenarios]
    if unknown:
        print("unknown scenario %s; the scenarios: %s" % (", ".join(unknown), ", ".join(scenarios)), file=sys.stderr)
        return None
    return zksim, checker, outdir, names
