#!/usr/bin/python3
"""Measure the observable rules of a real Apache ZooKeeper 3.8.0 server.

Every probe below runs against a real, freshly started standalone server
(one fresh server per area so that zxid / cversion counting is not disturbed
by earlier areas).  Results are printed as "rule -> observed value" lines.

Two clients are used:
  * RawZK  - a tiny hand written wire-protocol client (jute encoding over TCP).
             It shows exactly what the server sends: reply-header zxid and error
             code, raw multi results, every single WATCHER_EVENT packet, and it
             can issue ops kazoo 2.8 lacks (TTL, container, addWatch,
             removeWatches, checkWatches).
  * kazoo    - for the few questions that are about kazoo itself (its
             transaction API results, its client side path handling, how its
             watcher dispatch folds duplicate events).

Usage:  python3 zk_rules.py [area ...]      (areas: seq stat zxid err multi
                                              watch session limits acl)
"""

import base64
import hashlib
import os
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time
import queue

# ----------------------------------------------------------------------------
# Server management
# ----------------------------------------------------------------------------

JAVA_DIR = "/usr/share/java"
CLASSPATH_JARS = [
    "zookeeper.jar", "zookeeper-jute.jar", "slf4j-api.jar",
    "slf4j-log4j12.jar", "log4j-1.2.jar", "netty-handler.jar",
    "netty-transport.jar", "netty-common.jar", "netty-buffer.jar",
    "netty-resolver.jar", "netty-codec.jar", "netty-transport-native-epoll.jar",
    "netty-transport-native-unix-common.jar", "metrics-core.jar",
    "commons-io.jar", "snappy-java.jar",
]
TICK_MS = 200


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def four_letter(port, cmd, timeout=2.0):
    s = socket.create_connection(("127.0.0.1", port), timeout=timeout)
    s.settimeout(timeout)
    s.sendall(cmd.encode())
    chunks = []
    while True:
        try:
            b = s.recv(65536)
        except socket.timeout:
            break
        if not b:
            break
        chunks.append(b)
    s.close()
    return b"".join(chunks).decode(errors="replace")


def srvr_zxid(port):
    for line in four_letter(port, "srvr").splitlines():
        if line.startswith("Zxid:"):
            return int(line.split(":")[1].strip(), 16)
    raise RuntimeError("no Zxid line")


class Server:
    """A standalone ZooKeeper 3.8.0 server with its own data dir and port."""

    def __init__(self, extra_props=None):
        self.dir = tempfile.mkdtemp(prefix="zkmeasure-", dir="/tmp")
        self.port = free_port()
        cfg = os.path.join(self.dir, "zoo.cfg")
        with open(cfg, "w") as f:
            f.write("dataDir=%s/data\n" % self.dir)
            f.write("clientPort=%d\n" % self.port)
            f.write("clientPortAddress=127.0.0.1\n")
            f.write("tickTime=%d\n" % TICK_MS)
            f.write("4lw.commands.whitelist=*\n")
            f.write("admin.enableServer=false\n")
        props = ["-Dzookeeper.extendedTypesEnabled=true",
                 "-Dznode.container.checkIntervalMs=1000"]
        props += extra_props or []
        cp = ":".join(os.path.join(JAVA_DIR, j) for j in CLASSPATH_JARS)
        self.log = open(os.path.join(self.dir, "server.log"), "w")
        self.proc = subprocess.Popen(
            ["java", "-cp", cp] + props +
            ["org.apache.zookeeper.server.ZooKeeperServerMain", cfg],
            stdout=self.log, stderr=subprocess.STDOUT)
        deadline = time.time() + 30
        while time.time() < deadline:
            try:
                if "Mode: standalone" in four_letter(self.port, "srvr", 1.0):
                    return
            except OSError:
                pass
            time.sleep(0.2)
        self.stop()
        raise RuntimeError("server did not start")

    def zxid(self):
        return srvr_zxid(self.port)

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.log.close()
        shutil.rmtree(self.dir, ignore_errors=True)

    def __enter__(self):
        return self

    def __exit__(self, *a):
        self.stop()


# ----------------------------------------------------------------------------
# Minimal jute wire client
# ----------------------------------------------------------------------------

OP = dict(create=1, delete=2, exists=3, getData=4, setData=5, getACL=6,
          setACL=7, getChildren=8, sync=9, ping=11, getChildren2=12, check=13,
          multi=14, create2=15, checkWatches=17, removeWatches=18,
          createContainer=19, createTTL=21, auth=100, addWatch=106,
          closeSession=-11)

ERR = {0: "OK", -1: "SYSTEMERROR", -2: "RUNTIMEINCONSISTENCY",
       -3: "DATAINCONSISTENCY", -4: "CONNECTIONLOSS", -5: "MARSHALLINGERROR",
       -6: "UNIMPLEMENTED", -7: "OPERATIONTIMEOUT", -8: "BADARGUMENTS",
       -12: "UNKNOWNSESSION", -13: "NEWCONFIGNOQUORUM",
       -14: "RECONFIGINPROGRESS", -100: "APIERROR", -101: "NONODE",
       -102: "NOAUTH", -103: "BADVERSION", -108: "NOCHILDRENFOREPHEMERALS",
       -110: "NODEEXISTS", -111: "NOTEMPTY", -112: "SESSIONEXPIRED",
       -113: "INVALIDCALLBACK", -114: "INVALIDACL", -115: "AUTHFAILED",
       -118: "SESSIONMOVED", -119: "NOTREADONLY",
       -120: "EPHEMERALONLOCALSESSION", -121: "NOWATCHER",
       -122: "REQUESTTIMEOUT", -123: "RECONFIGDISABLED",
       -124: "SESSIONCLOSEDREQUIRESASLAUTH", -125: "QUOTAEXCEEDED",
       -127: "THROTTLEDOP"}

EVENT = {-1: "None", 1: "NodeCreated", 2: "NodeDeleted", 3: "NodeDataChanged",
         4: "NodeChildrenChanged", 5: "DataWatchRemoved",
         6: "ChildWatchRemoved", 7: "PersistentWatchRemoved"}

# CreateMode flags
PERSISTENT, EPHEMERAL, PERSISTENT_SEQ, EPHEMERAL_SEQ = 0, 1, 2, 3
CONTAINER, PERSISTENT_TTL, PERSISTENT_SEQ_TTL = 4, 5, 6

PERM_READ, PERM_WRITE, PERM_CREATE, PERM_DELETE, PERM_ADMIN = 1, 2, 4, 8, 16
PERM_ALL = 31
OPEN_ACL = [(PERM_ALL, "world", "anyone")]

STAT_FIELDS = ("czxid", "mzxid", "ctime", "mtime", "version", "cversion",
               "aversion", "ephemeralOwner", "dataLength", "numChildren",
               "pzxid")
STAT_FMT = struct.Struct("!qqqqiiiqiiq")


class Enc:
    def __init__(self):
        self.b = bytearray()

    def int(self, v):
        self.b += struct.pack("!i", v)
        return self

    def long(self, v):
        self.b += struct.pack("!q", v)
        return self

    def bool(self, v):
        self.b += struct.pack("!B", 1 if v else 0)
        return self

    def buf(self, v):
        if v is None:
            return self.int(-1)
        self.int(len(v))
        self.b += v
        return self

    def str(self, v):
        return self.buf(None if v is None else v.encode())

    def acl(self, acls):
        self.int(len(acls))
        for perms, scheme, ident in acls:
            self.int(perms).str(scheme).str(ident)
        return self


class Dec:
    def __init__(self, b):
        self.b, self.o = b, 0

    def _u(self, fmt):
        v = struct.unpack_from(fmt, self.b, self.o)[0]
        self.o += struct.calcsize(fmt)
        return v

    def int(self):
        return self._u("!i")

    def long(self):
        return self._u("!q")

    def bool(self):
        return self._u("!B") != 0

    def buf(self):
        n = self.int()
        if n < 0:
            return None
        v = bytes(self.b[self.o:self.o + n])
        self.o += n
        return v

    def str(self):
        v = self.buf()
        return None if v is None else v.decode()

    def stat(self):
        vals = STAT_FMT.unpack_from(self.b, self.o)
        self.o += STAT_FMT.size
        return dict(zip(STAT_FIELDS, vals))

    def acl(self):
        return [(self.int(), self.str(), self.str()) for _ in range(self.int())]


class ZKError(Exception):
    def __init__(self, code, zxid):
        super().__init__("%s(%d)" % (ERR.get(code, "?"), code))
        self.code, self.zxid, self.name = code, zxid, ERR.get(code, "?")


class RawZK:
    """Synchronous one-request-at-a-time client.  A reader thread collects
    replies and every WATCHER_EVENT packet (with its arrival time)."""

    def __init__(self, port, timeout_ms=4000, session=None):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=10)
        sid, pw = session if session else (0, b"\0" * 16)
        req = (Enc().int(0).long(0).int(timeout_ms).long(sid).buf(pw)
               .bool(False).b)
        self._send_raw(req)
        d = Dec(self._recv_packet())
        d.int()                                   # protocolVersion
        self.negotiated_timeout = d.int()
        self.session_id = d.long()
        self.passwd = d.buf()
        if self.negotiated_timeout <= 0:
            raise ZKError(-112, 0)
        self.events = []                          # (time, type, state, path)
        self.replies = queue.Queue()
        self.xid = 0
        self.lock = threading.Lock()
        self.closed = False
        self.last_zxid = 0
        self.reader = threading.Thread(target=self._read_loop, daemon=True)
        self.reader.start()
        self.pinger = threading.Thread(target=self._ping_loop, daemon=True)
        self.pinger.start()

    # -- transport -------------------------------------------------------
    def _send_raw(self, payload):
        self.sock.sendall(struct.pack("!i", len(payload)) + payload)

    def _recv_exact(self, n):
        b = bytearray()
        while len(b) < n:
            chunk = self.sock.recv(n - len(b))
            if not chunk:
                raise ConnectionError("server closed connection")
            b += chunk
        return bytes(b)

    def _recv_packet(self):
        n = struct.unpack("!i", self._recv_exact(4))[0]
        return self._recv_exact(n)

    def _read_loop(self):
        try:
            while True:
                self.sock.settimeout(None)
                d = Dec(self._recv_packet())
                xid, zxid, err = d.int(), d.long(), d.int()
                if xid == -1:
                    etype, state, path = d.int(), d.int(), d.str()
                    self.events.append((time.time(), EVENT.get(etype, etype),
                                        state, path))
                elif xid == -2:
                    pass                           # ping reply
                else:
                    self.replies.put((xid, zxid, err, d))
        except (OSError, ConnectionError, struct.error) as e:
            self.replies.put(("closed", 0, 0, e))

    def _ping_loop(self):
        interval = max(self.negotiated_timeout / 3000.0, 0.1)
        while not self.closed:
            time.sleep(interval)
            if self.closed:
                break
            try:
                with self.lock:
                    self._send_raw(Enc().int(-2).int(OP["ping"]).b)
            except OSError:
                break

    def call(self, opname, body=b"", xid=None, wait=10):
        """Send one request, return (zxid, Dec) or raise ZKError."""
        with self.lock:
            if xid is None:
                self.xid += 1
                xid = self.xid
            self._send_raw(Enc().int(xid).int(OP[opname]).b + body)
        rx, zxid, err, d = self.replies.get(timeout=wait)
        if rx == "closed":
            raise ConnectionError("connection lost: %r" % (d,))
        if zxid > 0:
            self.last_zxid = zxid
        if err != 0:
            raise ZKError(err, zxid)
        return zxid, d

    # -- operations --------------------------------------------------------
    def create(self, path, data=b"", flags=PERSISTENT, acl=OPEN_ACL, ttl=None):
        """Always uses the stat-returning variants (create2 / container / TTL).
        Returns (created_path, stat, zxid)."""
        body = Enc().str(path).buf(data).acl(acl).int(flags)
        if flags in (PERSISTENT_TTL, PERSISTENT_SEQ_TTL):
            op = "createTTL"
            body.long(ttl if ttl is not None else 1000)
        elif flags == CONTAINER:
            op = "createContainer"
        else:
            op = "create2"
        zxid, d = self.call(op, body.b)
        return d.str(), d.stat(), zxid

    def create1(self, path, data=b"", flags=PERSISTENT, acl=OPEN_ACL):
        """Old opcode 1 create (returns only path)."""
        zxid, d = self.call("create", Enc().str(path).buf(data).acl(acl)
                            .int(flags).b)
        return d.str(), zxid

    def delete(self, path, version=-1):
        return self.call("delete", Enc().str(path).int(version).b)[0]

    def exists(self, path, watch=False):
        try:
            zxid, d = self.call("exists", Enc().str(path).bool(watch).b)
            return d.stat()
        except ZKError as e:
            if e.code == -101:
                return None
            raise

    def get(self, path, watch=False):
        zxid, d = self.call("getData", Enc().str(path).bool(watch).b)
        return d.buf(), d.stat()

    def set(self, path, data, version=-1):
        zxid, d = self.call("setData", Enc().str(path).buf(data)
                            .int(version).b)
        return d.stat(), zxid

    def children(self, path, watch=False):
        zxid, d = self.call("getChildren2", Enc().str(path).bool(watch).b)
        n = d.int()
        kids = [d.str() for _ in range(n)]
        return sorted(kids), d.stat()

    def children1(self, path, watch=False):
        zxid, d = self.call("getChildren", Enc().str(path).bool(watch).b)
        return sorted(d.str() for _ in range(d.int()))

    def get_acl(self, path):
        zxid, d = self.call("getACL", Enc().str(path).b)
        return d.acl(), d.stat()

    def set_acl(self, path, acl, version=-1):
        zxid, d = self.call("setACL", Enc().str(path).acl(acl).int(version).b)
        return d.stat(), zxid

    def sync(self, path):
        zxid, d = self.call("sync", Enc().str(path).b)
        return d.str(), zxid

    def add_auth(self, scheme, cred):
        self.call("auth", Enc().int(0).str(scheme).buf(cred).b, xid=-4)

    def add_watch(self, path, mode):                 # 0 PERSISTENT, 1 RECURSIVE
        return self.call("addWatch", Enc().str(path).int(mode).b)[0]

    def remove_watches(self, path, wtype):           # 1 child, 2 data, 3 any
        return self.call("removeWatches", Enc().str(path).int(wtype).b)[0]

    def check_watches(self, path, wtype):
        return self.call("checkWatches", Enc().str(path).int(wtype).b)[0]

    def multi(self, ops):
        """ops: list of tuples ('create', path, data, flags) | ('delete', path,
        version) | ('set', path, data, version) | ('check', path, version).
        Returns (reply_header_err, zxid, [(op_type, err, payload)])."""
        e = Enc()
        for op in ops:
            kind = op[0]
            if kind == "create":
                _, path, data, flags = op
                e.int(OP["create"]).bool(False).int(-1)
                e.str(path).buf(data).acl(OPEN_ACL).int(flags)
            elif kind == "create2":
                _, path, data, flags = op
                e.int(OP["create2"]).bool(False).int(-1)
                e.str(path).buf(data).acl(OPEN_ACL).int(flags)
            elif kind == "delete":
                e.int(OP["delete"]).bool(False).int(-1).str(op[1]).int(op[2])
            elif kind == "set":
                e.int(OP["setData"]).bool(False).int(-1)
                e.str(op[1]).buf(op[2]).int(op[3])
            elif kind == "check":
                e.int(OP["check"]).bool(False).int(-1).str(op[1]).int(op[2])
        e.int(-1).bool(True).int(-1)
        with self.lock:
            self.xid += 1
            self._send_raw(Enc().int(self.xid).int(OP["multi"]).b + e.b)
        rx, zxid, err, d = self.replies.get(timeout=10)
        results = []
        if rx == "closed":
            raise ConnectionError("connection lost")
        if d.o >= len(d.b):                 # error with no body
            return err, zxid, None
        while True:
            typ, done, operr = d.int(), d.bool(), d.int()
            if done:
                break
            if typ == OP["create"]:
                payload = d.str()
            elif typ == OP["create2"]:
                payload = (d.str(), d.stat())
            elif typ == OP["setData"]:
                payload = d.stat()
            elif typ == -1:
                payload = d.int()
                typ = "error"
            else:
                payload = None
            results.append((typ, operr,
                            ERR.get(payload) if typ == "error" else payload))
        return err, zxid, results

    def close(self):
        """Graceful closeSession."""
        if self.closed:
            return
        try:
            self.call("closeSession", wait=5)
        except Exception:
            pass
        self.closed = True
        self.sock.close()

    def drop(self):
        """Kill the TCP connection without closing the session."""
        self.closed = True
        try:
            self.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.sock.close()

    def wait_events(self, n, timeout=3.0):
        deadline = time.time() + timeout
        while len(self.events) < n and time.time() < deadline:
            time.sleep(0.02)
        return [(t, p) for (_, t, _, p) in self.events]


def err_of(fn, *a, **kw):
    """Run fn, return 'OK' or the ZooKeeper error name."""
    try:
        fn(*a, **kw)
        return "OK"
    except ZKError as e:
        return "%s(%d)" % (e.name, e.code)
    except ConnectionError as e:
        return "CONNECTION-CLOSED (%s)" % e


def fmt_stat(st, keys=STAT_FIELDS):
    return "{" + ", ".join("%s=%s" % (k, hex(st[k]) if k.endswith("zxid")
                                       or k == "ephemeralOwner" else st[k])
                           for k in keys) + "}"


def out(rule, value):
    print("  %-60s -> %s" % (rule, value))
    sys.stdout.flush()


def digest_id(user, pw):
    h = hashlib.sha1(("%s:%s" % (user, pw)).encode()).digest()
    return "%s:%s" % (user, base64.b64encode(h).decode())


# ============================================================================
# 1. Sequential suffix
# ============================================================================

def sequential_suffix_format_and_source(srv):
    c = RawZK(srv.port)
    c.create("/s1")
    st0 = c.exists("/s1")
    p, _, _ = c.create("/s1/x", flags=PERSISTENT_SEQ)
    out("first sequential child name (parent cversion before=%d)"
        % st0["cversion"], p)
    c.create("/s1/plain")
    p, _, _ = c.create("/s1/x", flags=PERSISTENT_SEQ)
    out("after a non-sequential child create", p)
    c.delete("/s1/plain")
    st = c.exists("/s1")
    p, _, _ = c.create("/s1/x", flags=PERSISTENT_SEQ)
    out("after a child delete (parent cversion=%d before create)"
        % st["cversion"], p)
    r = err_of(c.create, "/s1/plain2/deeper")      # failed create, NONODE
    r2 = err_of(c.create, "/s1/x0000000000")       # failed create, NODEEXISTS
    st = c.exists("/s1")
    p, _, _ = c.create("/s1/x", flags=PERSISTENT_SEQ)
    out("after failed creates (%s, %s) parent cversion=%d" % (r, r2,
        st["cversion"]), p)
    p, _, _ = c.create("/s1/", flags=PERSISTENT_SEQ)
    out("sequential create of '/s1/' (empty prefix)", p)
    p, _, _ = c.create("/s1/y-", flags=EPHEMERAL_SEQ)
    out("ephemeral sequential shares the same counter", p)
    # setData on a child or the parent does not move cversion
    c.set("/s1", b"x")
    c.set("/s1/x0000000000", b"x")
    p, _, _ = c.create("/s1/x", flags=PERSISTENT_SEQ)
    out("after setData on parent and child", p)
    # setACL on the parent
    c.set_acl("/s1", OPEN_ACL)
    p, _, _ = c.create("/s1/x", flags=PERSISTENT_SEQ)
    out("after setACL on parent", p)
    c.close()


def sequential_suffix_collision(srv):
    c = RawZK(srv.port)
    c.create("/p")
    c.create("/p/x0000000003")                 # cversion now 1
    got = []
    for i in range(5):
        st = c.exists("/p")
        try:
            p, _, z = c.create("/p/x", flags=PERSISTENT_SEQ)
            got.append("cv=%d:%s" % (st["cversion"], p))
        except ZKError as e:
            got.append("cv=%d:%s(zxid %s)" % (st["cversion"], e.name,
                                             hex(e.zxid)))
    out("pre-existing /p/x0000000003 then 5 seq creates of /p/x", got)
    # Stuck?  If the colliding name is produced again, count how many fail.
    c.create("/q")
    c.create("/q/x0000000001")   # cversion 1; the next seq would be ...0001
    res = [err_of(c.create, "/q/x", flags=PERSISTENT_SEQ) for _ in range(3)]
    st = c.exists("/q")
    out("collision on the very next name, 3 retries (cversion stays?)",
        "%s; parent cversion now %d" % (res, st["cversion"]))
    c.create("/q/other")
    p, _, _ = c.create("/q/x", flags=PERSISTENT_SEQ)
    out("after an unrelated child create the retry", p)
    c.close()


def sequential_suffix_vs_visible_cversion(srv):
    """Visible cversion vs. the counter used for the sequential suffix."""
    c = RawZK(srv.port)
    c.create("/v")
    rows = []
    for step in ("create a", "create b", "delete a", "delete b", "create c"):
        verb, name = step.split()
        if verb == "create":
            c.create("/v/" + name)
        else:
            c.delete("/v/" + name)
        st = c.exists("/v")
        p, _, _ = c.create("/v/s-", flags=PERSISTENT_SEQ)
        c.delete(p)
        rows.append("%s: visible cversion=%d numChildren=%d -> next seq %s"
                    % (step, st["cversion"], st["numChildren"],
                       p.rsplit("-", 1)[1]))
    for r in rows:
        out("cversion vs suffix", r)
    st = c.exists("/")
    out("root: visible cversion / numChildren at this point",
        "%d / %d" % (st["cversion"], st["numChildren"]))
    p, _, _ = c.create("/", flags=PERSISTENT_SEQ)
    out("sequential create of '/' (root parent)", p)
    p, _, _ = c.create("/zookeeper/x", flags=PERSISTENT_SEQ)
    out("sequential create under /zookeeper (visible cversion -2)", p)
    c.close()


def sequential_suffix_multi(srv):
    c = RawZK(srv.port)
    c.create("/m")
    err, zxid, res = c.multi([("create", "/m/a", b"", PERSISTENT_SEQ),
                              ("create", "/m/a", b"", PERSISTENT_SEQ),
                              ("create", "/m/b", b"", PERSISTENT)])
    out("multi: seq, seq, plain under same parent", [r[2] for r in res])
    c.close()


# ============================================================================
# 2. Stat fields
# ============================================================================

def stat_fields(srv):
    c = RawZK(srv.port)
    out("session id of this client", hex(c.session_id))
    out("root '/' stat at start", fmt_stat(c.exists("/")))
    data, st = c.get("/")
    out("root '/' data", repr(data))
    out("root children at start", c.children("/")[0])
    out("/zookeeper stat", fmt_stat(c.exists("/zookeeper")))
    out("/zookeeper children", c.children("/zookeeper")[0])
    out("/zookeeper/quota stat", fmt_stat(c.exists("/zookeeper/quota")))
    d, st = c.get("/zookeeper/config")
    out("/zookeeper/config data, stat", "%r %s" % (d, fmt_stat(st)))
    out("srvr Zxid at start", hex(srv.zxid()))

    t0 = int(time.time() * 1000)
    p, st, z = c.create("/st", b"hello")
    t1 = int(time.time() * 1000)
    out("create persistent returned stat (reply zxid %s)" % hex(z),
        fmt_stat(st))
    out("ctime is epoch ms? (client clock window)",
        "%d <= %d <= %d : %s" % (t0, st["ctime"], t1,
                                 t0 - 5 <= st["ctime"] <= t1 + 5))
    out("exists() after create equals create2 stat",
        c.exists("/st") == st)
    p, st, _ = c.create("/st/empty", b"")
    out("create with empty data b'' -> dataLength", st["dataLength"])
    _, st2, _ = c.create("/st/none", None)
    d, _ = c.get("/st/none")
    out("create with data=None -> dataLength, get() returns",
        "%d, %r" % (st2["dataLength"], d))
    d, _ = c.get("/st/empty")
    out("create with data=b'' -> get() returns", repr(d))
    _, st, _ = c.create("/st/eph", b"", EPHEMERAL)
    out("ephemeral create stat", fmt_stat(st))
    out("ephemeralOwner == session id", st["ephemeralOwner"] == c.session_id)
    _, st, _ = c.create("/st/cont", b"", CONTAINER)
    out("container create stat", fmt_stat(st))
    _, st, _ = c.create("/st/ttl", b"", PERSISTENT_TTL, ttl=100000)
    out("TTL(100000ms) create stat", fmt_stat(st))
    _, st, _ = c.create("/st/ttl1", b"", PERSISTENT_TTL, ttl=1)
    out("TTL(1ms) ephemeralOwner", hex(st["ephemeralOwner"]))
    _, st, _ = c.create("/st/ttlseq", b"", PERSISTENT_SEQ_TTL, ttl=5000)
    out("TTL sequential (ttl 5000) ephemeralOwner", hex(st["ephemeralOwner"]))
    p, st, _ = c.create("/st/seq", b"", PERSISTENT_SEQ)
    out("sequential create %s stat" % p, fmt_stat(st))

    parent_before = c.exists("/st")
    out("parent /st after 7 child creates", fmt_stat(parent_before))
    time.sleep(0.05)
    st, z = c.set("/st", b"new-data!")
    out("setData on /st (reply zxid %s)" % hex(z), fmt_stat(st))
    out("setData: mtime - ctime (ms) > 0", st["mtime"] - st["ctime"])
    st_same, _ = c.set("/st", b"new-data!")
    out("setData with identical bytes still bumps version",
        "version %d -> %d" % (st["version"], st_same["version"]))
    # child setData: parent's pzxid/cversion untouched?
    before = c.exists("/st")
    c.set("/st/empty", b"abc")
    after = c.exists("/st")
    out("child setData changes parent stat?",
        "no" if before == after else "yes: %s -> %s"
        % (fmt_stat(before), fmt_stat(after)))
    # child create: parent mzxid/mtime?
    before = c.exists("/st")
    time.sleep(0.02)
    _, _, zc = c.create("/st/c2")
    after = c.exists("/st")
    out("child create: parent before", fmt_stat(before))
    out("child create: parent after (create zxid %s)" % hex(zc),
        fmt_stat(after))
    # child delete
    before = c.exists("/st")
    zd = c.delete("/st/c2")
    after = c.exists("/st")
    out("child delete: parent after (delete zxid %s)" % hex(zd),
        fmt_stat(after))
    # setACL
    before = c.exists("/st/empty")
    st, za = c.set_acl("/st/empty", [(PERM_ALL, "world", "anyone")])
    out("setACL (same acl) on /st/empty before", fmt_stat(before))
    out("setACL (same acl) on /st/empty after (zxid %s)" % hex(za),
        fmt_stat(st))
    out("getACL of /st", c.get_acl("/st")[0])
    c.close()


# ============================================================================
# 3. Which operations consume a zxid
# ============================================================================

def zxid_consumption(srv):
    c = RawZK(srv.port)
    c.create("/z")
    c.create("/z/exists")
    c.create("/z/full")
    c.create("/z/full/kid")
    c.create("/z/eph", flags=EPHEMERAL)
    n = [0]

    def marker():
        n[0] += 1
        return c.create("/z/m%d" % n[0])[2]

    def measure(label, fn):
        a = marker()
        s_mid = None
        try:
            r = fn()
            reply = "OK" if not isinstance(r, str) else r
        except ZKError as e:
            reply = "%s reply-zxid=%s" % (e.name, hex(e.zxid))
        except ConnectionError as e:
            reply = "conn: %s" % e
        s_mid = srv.zxid()
        b = marker()
        out("zxids used by: " + label,
            "%d  (%s; srvr after op=%s, markers %s..%s)"
            % (b - a - 1, reply, hex(s_mid), hex(a), hex(b)))

    measure("successful create", lambda: c.create("/z/ok"))
    measure("successful setData", lambda: c.set("/z/ok", b"1"))
    measure("successful delete", lambda: c.delete("/z/ok"))
    measure("create NODEEXISTS", lambda: c.create("/z/exists"))
    measure("create, parent missing (NONODE)", lambda: c.create("/z/no/x"))
    measure("delete NONODE", lambda: c.delete("/z/nothere"))
    measure("delete NOTEMPTY", lambda: c.delete("/z/full"))
    measure("setData BADVERSION", lambda: c.set("/z/exists", b"", 42))
    measure("setData NONODE", lambda: c.set("/z/nothere", b""))
    measure("setACL BADVERSION", lambda: c.set_acl("/z/exists", OPEN_ACL, 9))
    measure("create child of ephemeral", lambda: c.create("/z/eph/x"))
    measure("create bad path '/z/bad/' (BADARGUMENTS)",
            lambda: c.create("/z/bad/"))
    measure("create invalid ACL", lambda: c.create("/z/ia", acl=[]))
    measure("reads (exists, getData, getChildren, getACL)",
            lambda: (c.exists("/z"), c.get("/z"), c.children("/z"),
                     c.get_acl("/z")))
    measure("sync", lambda: "sync reply zxid %s" % hex(c.sync("/z")[1]))
    measure("check (in multi) ok single op", lambda: "multi %s" % (
        c.multi([("check", "/z/exists", 0)]),))
    measure("successful multi of 3 writes", lambda: "multi %s" % (
        c.multi([("create", "/z/mm1", b"", 0), ("create", "/z/mm2", b"", 0),
                 ("set", "/z/mm1", b"x", -1)])[:2],))
    measure("failed multi (2nd op NODEEXISTS)", lambda: "multi %s" % (
        c.multi([("create", "/z/mf1", b"", 0), ("create", "/z/exists", b"", 0),
                 ("set", "/z/exists", b"x", -1)])[:2],))
    measure("empty multi", lambda: "multi %s" % (c.multi([]),))
    keep = []
    measure("session create (new client, kept open)",
            lambda: keep.append(RawZK(srv.port)))
    measure("session create+close (new client)",
            lambda: RawZK(srv.port).close())

    def close_with_eph():
        k = RawZK(srv.port)
        k.create("/z/e2", flags=EPHEMERAL)
        k.create("/z/e3", flags=EPHEMERAL)
        a = marker()
        k.close()
        b = marker()
        return "close of session with 2 ephemerals: %d zxids" % (b - a - 1)
    measure("session with 2 ephemerals (create+2 creates+close)",
            close_with_eph)

    # Auth packet
    measure("addAuth digest", lambda: c.add_auth("digest", b"u:p"))
    measure("addWatch (persistent)", lambda: c.add_watch("/z", 0))
    measure("removeWatches NOWATCHER", lambda: c.remove_watches("/z/full", 2))

    # reply-header zxid for reads: last committed zxid?
    last = marker()
    _, d = c.call("exists", Enc().str("/z").bool(False).b)
    out("reply header zxid of a read right after a write",
        "%s (last write %s)" % (hex(c.last_zxid), hex(last)))
    for k in keep:
        k.close()
    c.close()


# ============================================================================
# 4. Error precedence, containers, TTL
# ============================================================================

def error_precedence(srv):
    c = RawZK(srv.port)
    other = RawZK(srv.port)
    c.create("/e")
    c.create("/e/eph", flags=EPHEMERAL)
    c.create("/e/full")
    c.create("/e/full/kid")
    out("create, parent missing", err_of(c.create, "/e/missing/x"))
    out("create seq, parent missing",
        err_of(c.create, "/e/missing/x", flags=PERSISTENT_SEQ))
    out("create existing node whose parent is ephemeral ('/e/eph' itself"
        " exists; create '/e/eph' again)", err_of(c.create, "/e/eph"))
    out("create child of ephemeral", err_of(c.create, "/e/eph/x"))
    out("create seq child of ephemeral",
        err_of(c.create, "/e/eph/x", flags=PERSISTENT_SEQ))
    out("create ephemeral child of ephemeral",
        err_of(c.create, "/e/eph/x", flags=EPHEMERAL))
    out("create child of ephemeral owned by other session",
        err_of(other.create, "/e/eph/x"))
    # parent without CREATE permission, child already exists
    c.create("/e/nocreate")
    c.create("/e/nocreate/kid")
    c.set_acl("/e/nocreate", [(PERM_ALL & ~PERM_CREATE, "world", "anyone")])
    out("create existing child, parent lacks CREATE",
        err_of(c.create, "/e/nocreate/kid"))
    out("create new child, parent lacks CREATE",
        err_of(c.create, "/e/nocreate/new"))
    out("create with bad ACL where parent missing",
        err_of(c.create, "/e/missing/x", acl=[]))
    out("create with empty ACL where node exists",
        err_of(c.create, "/e/full", acl=[]))
    out("create invalid path where parent missing '/e/missing/x/'",
        err_of(c.create, "/e/missing/x/"))
    out("create invalid path, parent exists ('/e/')", err_of(c.create, "/e/"))
    out("create '/e//x'", err_of(c.create, "/e//x"))
    out("create '/e/.'", err_of(c.create, "/e/."))
    out("create '/e/..'", err_of(c.create, "/e/.."))
    out("create '/e/.x'  (dot prefix is fine?)", err_of(c.create, "/e/.x"))
    out("create 'e' (relative)", err_of(c.create, "e"))
    out("create '' (empty path)", err_of(c.create, ""))
    out("create '/e/a\\x00b' (NUL)", err_of(c.create, "/e/a\x00b"))
    out("create '/e/\\u0001' (control char)", err_of(c.create, "/e/\x01"))
    out("create '/e/\\ud800'-like (\\uf000 private use)",
        err_of(c.create, "/e/\uf000"))
    out("create '/e/\\ufff0'", err_of(c.create, "/e/\ufff0"))
    out("create '/e/zookeeper'", err_of(c.create, "/e/zookeeper"))
    out("create '/e/ space'", err_of(c.create, "/e/ space"))
    out("delete non-empty with wrong version",
        err_of(c.delete, "/e/full", 99))
    out("delete non-empty with right version",
        err_of(c.delete, "/e/full", 0))
    out("delete missing node with version 5", err_of(c.delete, "/e/nn", 5))
    out("setData missing node with version 5",
        err_of(c.set, "/e/nn", b"", 5))
    out("setData wrong version", err_of(c.set, "/e/full", b"", 7))
    out("setData version -1", err_of(c.set, "/e/full", b"", -1))
    out("setData version -2", err_of(c.set, "/e/full", b"", -2))
    out("delete '/'", err_of(c.delete, "/"))
    out("delete '/' version 0", err_of(c.delete, "/", 0))
    out("create '/'", err_of(c.create, "/"))
    try:
        r = c.create("/", flags=PERSISTENT_SEQ)[0]
    except ZKError as e:
        r = e.name
    out("create '/' sequential -> created path", r)
    try:
        r = c.create("/e/", flags=PERSISTENT_SEQ)[0]
    except ZKError as e:
        r = e.name
    out("create '/e/' sequential -> created path", r)
    out("create '/zookeeper'", err_of(c.create, "/zookeeper"))
    out("create '/zookeeper/x'", err_of(c.create, "/zookeeper/x"))
    out("create '/zookeeper/quota/x'", err_of(c.create, "/zookeeper/quota/x"))
    out("setData '/zookeeper/quota'",
        err_of(c.set, "/zookeeper/quota", b"x"))
    out("setData '/zookeeper'", err_of(c.set, "/zookeeper", b"x"))
    out("setData '/zookeeper/config'",
        err_of(c.set, "/zookeeper/config", b"x"))
    out("delete '/zookeeper/quota'", err_of(c.delete, "/zookeeper/quota"))
    out("delete '/zookeeper/config'", err_of(c.delete, "/zookeeper/config"))
    out("delete '/zookeeper'", err_of(c.delete, "/zookeeper"))
    out("setData '/'", err_of(c.set, "/", b"rootdata"))
    out("/ after setData", fmt_stat(c.exists("/")))
    out("setACL '/zookeeper'", err_of(c.set_acl, "/zookeeper", OPEN_ACL))
    out("getACL '/zookeeper/config'", c.get_acl("/zookeeper/config")[0])
    c.create("/e/v")
    out("delete with version -1", err_of(c.delete, "/e/v", -1))
    c.create("/e/v")
    out("delete with version -2", err_of(c.delete, "/e/v", -2))
    out("delete path with trailing slash '/e/full/'",
        err_of(c.delete, "/e/full/"))
    out("exists '/e/full/' (trailing slash, read)",
        err_of(lambda: c.call("exists", Enc().str("/e/full/").bool(False).b)))
    out("getChildren '/e/' (trailing slash)", err_of(c.children, "/e/"))
    out("getData '' (empty path)", err_of(c.get, ""))
    out("getData '/e//full'", err_of(c.get, "/e//full"))
    out("getData 'e' (relative)", err_of(c.get, "e"))
    out("create opcode 1 with flags=7 (bad CreateMode)",
        err_of(c.create1, "/e/f7", flags=7))
    out("create opcode 1 with flags=4 (container mode via create)",
        err_of(c.create1, "/e/f4", flags=4))
    out("create2 opcode with flags=5 (TTL mode via plain create2)",
        err_of(lambda: c.call("create2", Enc().str("/e/f5").buf(b"")
                              .acl(OPEN_ACL).int(5).b)))
    out("createContainer opcode with flags=0",
        err_of(lambda: c.call("createContainer", Enc().str("/e/cc").buf(b"")
                              .acl(OPEN_ACL).int(0).b)))
    out("createTTL opcode with flags=0 (non-TTL mode)",
        err_of(lambda: c.call("createTTL", Enc().str("/e/tt").buf(b"")
                              .acl(OPEN_ACL).int(0).long(1000).b)))
    for i, ttl in enumerate((0, -1, 1, 0xFFFFFFFFFF, 0xFFFFFFFFFF + 1, 2**62)):
        out("TTL create ttl=%d (0x%x)" % (ttl, ttl & (2**64 - 1)),
            err_of(c.create, "/e/ttl%d" % i, flags=PERSISTENT_TTL, ttl=ttl))
    out("TTL create where node exists, ttl=0",
        err_of(c.create, "/e/full", flags=PERSISTENT_TTL, ttl=0))
    out("TTL create where parent missing, ttl=0",
        err_of(c.create, "/e/missing/t", flags=PERSISTENT_TTL, ttl=0))
    out("create child of container", err_of(c.create, "/e/cont2",
                                             flags=CONTAINER) + " / " +
        err_of(c.create, "/e/cont2/kid"))
    out("create child of TTL node (ttl=1 node /e/ttl2)",
        err_of(c.create, "/e/ttl2/kid"))
    out("ephemeral create with ttl opcode & flags=1",
        err_of(lambda: c.call("createTTL", Enc().str("/e/et").buf(b"")
                              .acl(OPEN_ACL).int(1).long(1000).b)))
    other.close()
    c.close()


def wait_gone(c, path, timeout=15.0, step=0.05):
    t0 = time.time()
    while time.time() - t0 < timeout:
        if c.exists(path) is None:
            return time.time() - t0
        time.sleep(step)
    return None


def container_reaping(srv):
    c = RawZK(srv.port)
    c.create("/c")
    c.create("/c/used", flags=CONTAINER)
    c.create("/c/used/kid")
    c.create("/c/never", flags=CONTAINER)
    time.sleep(2.5)
    out("container with a child after 2.5s still exists",
        c.exists("/c/used") is not None)
    c.delete("/c/used/kid")
    t = wait_gone(c, "/c/used")
    out("container deleted after its last child deleted after (s)",
        "%.2f (checkIntervalMs=1000)" % t if t is not None else "never (15s)")
    out("never-used container after ~%.0fs still exists" % (2.5 + (t or 15)),
        c.exists("/c/never") is not None)
    # a container created and immediately given+stripped a child in a multi
    c.create("/c/m", flags=CONTAINER)
    c.multi([("create", "/c/m/k", b"", 0), ("delete", "/c/m/k", -1)])
    t = wait_gone(c, "/c/m")
    out("container whose child was created+deleted in one multi reaped after",
        "%.2f s" % t if t is not None else "never")
    # nested: container parent of container
    c.create("/c/outer", flags=CONTAINER)
    c.create("/c/outer/inner", flags=CONTAINER)
    c.create("/c/outer/inner/k")
    c.delete("/c/outer/inner/k")
    t1 = wait_gone(c, "/c/outer/inner")
    t2 = wait_gone(c, "/c/outer")
    out("nested containers: inner gone after, outer gone after (extra)",
        "%s s, %s s" % (t1 and round(t1, 2), t2 and round(t2, 2)))
    # watch on reaped container
    c.create("/c/w", flags=CONTAINER)
    c.create("/c/w/k")
    c.delete("/c/w/k")
    c.exists("/c/w", watch=True)
    ev0 = len(c.events)
    wait_gone(c, "/c/w")
    time.sleep(0.2)
    out("exists watch on reaped container fires", c.events[ev0:])
    # version after reaping: cversion of /c
    c.close()


def ttl_reaping(srv):
    c = RawZK(srv.port)
    c.create("/t")
    t0 = time.time()
    c.create("/t/a", flags=PERSISTENT_TTL, ttl=1500)
    t = wait_gone(c, "/t/a")
    out("TTL 1500ms childless node reaped after (s)",
        round(time.time() - t0, 2) if t is not None else "never")
    c.create("/t/b", flags=PERSISTENT_TTL, ttl=1500)
    c.create("/t/b/kid")
    time.sleep(3.5)
    out("TTL node with a child after 3.5s exists", c.exists("/t/b") is not None)
    c.delete("/t/b/kid")
    t = wait_gone(c, "/t/b")
    out("... after last child deleted, reaped after (s)",
        round(t, 2) if t is not None else "never")
    # setData resets the clock (mtime based)?
    t0 = time.time()
    c.create("/t/c", flags=PERSISTENT_TTL, ttl=2500)
    for _ in range(5):
        time.sleep(1.0)
        c.set("/t/c", b"touch")
    alive = c.exists("/t/c") is not None
    t = wait_gone(c, "/t/c")
    out("TTL 2500 node touched by setData every 1s for 5s: alive at 5s?",
        "%s; gone %.2f s after last setData" % (alive, t or -1))
    # does a child create+delete (cversion/pzxid change, not mtime) reset it?
    c.create("/t/d", flags=PERSISTENT_TTL, ttl=2500)
    t0 = time.time()
    churn = []
    for _ in range(5):
        time.sleep(0.7)
        r = err_of(c.create, "/t/d/k")
        churn.append("%.1fs:%s" % (time.time() - t0, r))
        if r != "OK":
            break
        c.delete("/t/d/k")
    t = wait_gone(c, "/t/d")
    out("TTL 2500 node, child create+delete every 0.7s (create result log)",
        "%s; node gone %.2f s after create"
        % (churn, time.time() - t0 if t is not None else -1))
    # TTL sequential node
    p, _, _ = c.create("/t/s", flags=PERSISTENT_SEQ_TTL, ttl=1000)
    t = wait_gone(c, p)
    out("TTL sequential %s (1000ms) reaped after (s)" % p,
        round(t, 2) if t is not None else "never")
    c.close()


# ============================================================================
# 5. multi
# ============================================================================

def kazoo_client(srv):
    from kazoo.client import KazooClient
    k = KazooClient(hosts="127.0.0.1:%d" % srv.port, timeout=4.0)
    k.start(timeout=10)
    return k


def multi_results(srv):
    c = RawZK(srv.port)
    c.create("/x")
    c.create("/x/exists")
    z0 = srv.zxid()
    err, zxid, res = c.multi([("create", "/x/a", b"", 0),
                              ("create", "/x/exists", b"", 0),
                              ("set", "/x/exists", b"d", -1)])
    out("failed multi [create ok, create NODEEXISTS, setData ok]",
        "reply-header err=%d zxid=%s (srvr before %s) results=%s"
        % (err, hex(zxid), hex(z0), res))
    out("  ... /x/a created?  /x/exists version",
        "%s, %d" % (c.exists("/x/a") is not None,
                    c.exists("/x/exists")["version"]))
    err, zxid, res = c.multi([("set", "/x/exists", b"d", 5),
                              ("create", "/x/b", b"", 0)])
    out("failed multi, first op BADVERSION", "err=%d results=%s" % (err, res))
    err, zxid, res = c.multi([("check", "/x/exists", 3),
                              ("create", "/x/b", b"", 0)])
    out("multi [check wrong version, create]", "err=%d results=%s"
        % (err, res))
    err, zxid, res = c.multi([("check", "/x/exists", 0),
                              ("create", "/x/b", b"", 0)])
    out("multi [check right version, create]", "err=%d results=%s"
        % (err, res))
    err, zxid, res = c.multi([("check", "/x/none", -1)])
    out("multi [check missing node, version -1]", "err=%d results=%s"
        % (err, res))
    err, zxid, res = c.multi([("check", "/x/exists", -1)])
    out("multi [check existing node, version -1]", "err=%d results=%s"
        % (err, res))
    err, zxid, res = c.multi([("create", "/x/p", b"", 0),
                              ("create", "/x/p/c", b"", 0),
                              ("set", "/x/p/c", b"v", 0),
                              ("delete", "/x/p/c", 1),
                              ("create2", "/x/p/d", b"", 0)])
    out("multi sees own earlier ops [create p, create p/c, set p/c v0,"
        " delete p/c v1, create2 p/d]",
        "err=%d results=%s" % (err, res))
    err, zxid, res = c.multi([])
    out("empty multi", "err=%d zxid=%s results=%s" % (err, hex(zxid), res))
    err, zxid, res = c.multi([("create", "/x/q", b"", 0),
                              ("create", "/x/q", b"", 0)])
    out("multi creating the same node twice", "err=%d results=%s"
        % (err, res))
    err, zxid, res = c.multi([("create", "/x/q", b"", 0),
                              ("delete", "/x/q", -1),
                              ("create", "/x/q", b"", 0)])
    out("multi create, delete, create same path", "err=%d results=%s"
        % (err, res))
    err, zxid, res = c.multi([("create", "/x/q2", b"", 0),
                              ("create", "/x/bad/", b"", 0)])
    out("multi with bad path in 2nd op", "err=%d results=%s" % (err, res))
    err, zxid, res = c.multi([("create", "/x/s", b"", PERSISTENT_SEQ),
                              ("create", "/x/missing/s", b"", 0)])
    out("failed multi with sequential create first", "err=%d results=%s"
        % (err, res))
    st = c.exists("/x")
    out("  ... parent cversion after failed multis (seq counter)",
        "cversion=%d, next seq name %s" % (st["cversion"],
                                           c.create("/x/s", flags=2)[0]))
    # ephemeral in multi, watch triggering order on multi
    err, zxid, res = c.multi([("create", "/x/e", b"", EPHEMERAL),
                              ("create", "/x/e/k", b"", 0)])
    out("multi [create ephemeral, create child of it]", "err=%d results=%s"
        % (err, res))
    # watches fire for multi ops; failed multi fires none
    c.exists("/x/w1", watch=True)
    c.get("/x/exists", watch=True)
    n0 = len(c.events)
    c.multi([("create", "/x/w1", b"", 0), ("create", "/x/exists", b"", 0)])
    time.sleep(0.3)
    out("watches triggered by a FAILED multi", c.events[n0:])
    c.multi([("create", "/x/w1", b"", 0), ("set", "/x/exists", b"z", -1)])
    c.wait_events(n0 + 2)
    out("watches triggered by a successful multi",
        [(e[1], e[3]) for e in c.events[n0:]])
    c.close()

    # the same failed multi through kazoo's transaction API
    k = kazoo_client(srv)
    t = k.transaction()
    t.create("/x/ka")
    t.create("/x/exists")
    t.set_data("/x/exists", b"q")
    r = t.commit()
    out("kazoo transaction [create ok, create NODEEXISTS, set_data]",
        [type(x).__name__ if isinstance(x, Exception) else x for x in r])
    t = k.transaction()
    t.create("/x/kb")
    t.check("/x/exists", 1)
    r = t.commit()
    out("kazoo transaction [create, check ok]",
        [type(x).__name__ if isinstance(x, Exception) else x for x in r])
    k.stop()
    k.close()


# ============================================================================
# 6. Watches
# ============================================================================

def _events_after(c, n0, action, settle=0.4):
    action()
    time.sleep(settle)
    return [(e[1], e[3]) for e in c.events[n0:]]


def watch_rules(srv):
    c = RawZK(srv.port)           # watcher
    w = RawZK(srv.port)           # writer (a different session)
    w.create("/w")

    def case(label, setup, action):
        n0 = len(c.events)
        setup()
        evs = _events_after(c, n0, action)
        out(label, evs)

    case("exists watch on missing node, then create",
         lambda: c.exists("/w/a", watch=True), lambda: w.create("/w/a"))
    case("exists watch on existing node, then setData",
         lambda: c.exists("/w/a", watch=True), lambda: w.set("/w/a", b"1"))
    case("exists watch on existing node, then delete",
         lambda: c.exists("/w/a", watch=True), lambda: w.delete("/w/a"))
    w.create("/w/b")
    case("getData watch, then setData",
         lambda: c.get("/w/b", watch=True), lambda: w.set("/w/b", b"1"))
    case("getData watch, then delete",
         lambda: c.get("/w/b", watch=True), lambda: w.delete("/w/b"))
    w.create("/w/c")
    case("getChildren watch, then child create",
         lambda: c.children("/w/c", watch=True),
         lambda: w.create("/w/c/k"))
    case("getChildren watch, then child delete",
         lambda: c.children("/w/c", watch=True),
         lambda: w.delete("/w/c/k"))
    case("getChildren watch, then setData on the node (expect nothing)",
         lambda: c.children("/w/c", watch=True),
         lambda: w.set("/w/c", b"x"))
    case("  ...the still-armed child watch, then node deleted",
         lambda: None, lambda: w.delete("/w/c"))
    case("getChildren watch, then grandchild create (expect nothing)",
         lambda: (w.create("/w/g"), w.create("/w/g/k"),
                  c.children("/w/g", watch=True)),
         lambda: w.create("/w/g/k/gk"))
    case("  ...then child setData (expect nothing)",
         lambda: None, lambda: w.set("/w/g/k", b"1"))
    case("getChildren on missing node: result, then create node",
         lambda: out("  getChildren(/w/m, watch) result",
                     err_of(c.children, "/w/m", True)),
         lambda: w.create("/w/m"))
    case("  ...then create child of it (watch left by NONODE?)",
         lambda: None, lambda: w.create("/w/m/k"))
    case("getData on missing node: result, then create node",
         lambda: out("  getData(/w/n, watch) result",
                     err_of(c.get, "/w/n", True)),
         lambda: w.create("/w/n"))
    case("  ...then setData of it", lambda: None, lambda: w.set("/w/n", b"1"))
    w.create("/w/d")
    case("exists+getData watch same path same session, then setData",
         lambda: (c.exists("/w/d", True), c.get("/w/d", True)),
         lambda: w.set("/w/d", b"1"))
    case("exists+getData watch same path same session, then delete",
         lambda: (c.exists("/w/d", True), c.get("/w/d", True)),
         lambda: w.delete("/w/d"))
    w.create("/w/e")
    case("getData + getChildren watch same node, then delete node",
         lambda: (c.get("/w/e", True), c.children("/w/e", True)),
         lambda: w.delete("/w/e"))
    w.create("/w/f")
    case("exists watch set twice (same session), then setData",
         lambda: (c.exists("/w/f", True), c.exists("/w/f", True)),
         lambda: w.set("/w/f", b"1"))
    case("watch set, own session modifies (self-trigger)",
         lambda: c.exists("/w/f", True), lambda: c.set("/w/f", b"2"))
    case("exists watch on missing node, then a FAILED create elsewhere",
         lambda: c.exists("/w/zz", True),
         lambda: err_of(w.create, "/w/nope/x"))
    case("  ...then setData BADVERSION on a watched node (getData watch)",
         lambda: c.get("/w/f", True), lambda: err_of(w.set, "/w/f", b"", 99))
    # ordering: event vs. reply of the write that triggered it
    w.create("/w/o")
    c.get("/w/o", True)
    n0 = len(c.events)
    t_before = time.time()
    c.set("/w/o", b"self")
    t_reply = time.time()
    time.sleep(0.2)
    out("self-triggered event arrives before the setData reply?",
        "event at +%.4fs, reply at +%.4fs" % (
            c.events[n0][0] - t_before, t_reply - t_before)
        if len(c.events) > n0 else "no event")
    # Multiple children created: one event only (one-shot)
    w.create("/w/h")
    case("getChildren watch, then 3 child creates (one-shot count)",
         lambda: c.children("/w/h", True),
         lambda: [w.create("/w/h/k%d" % i) for i in range(3)])
    # ephemeral removed by session close triggers
    e = RawZK(srv.port)
    e.create("/w/eph", flags=EPHEMERAL)
    case("exists watch on ephemeral + child watch on parent, owner closes",
         lambda: (c.exists("/w/eph", True), c.children("/w", True)),
         lambda: e.close())
    c.close()
    w.close()


def persistent_watches(srv):
    c = RawZK(srv.port)
    w = RawZK(srv.port)
    w.create("/pw")
    out("addWatch PERSISTENT on missing node /pw/a", err_of(c.add_watch,
                                                            "/pw/a", 0))

    def step(label, action):
        n0 = len(c.events)
        evs = _events_after(c, n0, action, 0.3)
        out(label, evs)

    step("  create /pw/a", lambda: w.create("/pw/a"))
    step("  setData /pw/a", lambda: w.set("/pw/a", b"1"))
    step("  setData /pw/a again (survives firing?)",
         lambda: w.set("/pw/a", b"2"))
    step("  create child /pw/a/k", lambda: w.create("/pw/a/k"))
    step("  setData child /pw/a/k", lambda: w.set("/pw/a/k", b"1"))
    step("  delete child /pw/a/k", lambda: w.delete("/pw/a/k"))
    step("  delete /pw/a", lambda: w.delete("/pw/a"))
    step("  re-create /pw/a (still armed after delete?)",
         lambda: w.create("/pw/a"))
    out("addWatch PERSISTENT_RECURSIVE on /pw/r (missing)",
        err_of(c.add_watch, "/pw/r", 1))
    step("  create /pw/r", lambda: w.create("/pw/r"))
    step("  create /pw/r/k", lambda: w.create("/pw/r/k"))
    step("  create /pw/r/k/g", lambda: w.create("/pw/r/k/g"))
    step("  setData /pw/r/k/g", lambda: w.set("/pw/r/k/g", b"1"))
    step("  setData /pw/r", lambda: w.set("/pw/r", b"1"))
    step("  delete /pw/r/k/g", lambda: w.delete("/pw/r/k/g"))
    step("  create /pw/rx (sibling with same prefix, expect nothing)",
         lambda: w.create("/pw/rx"))
    step("  multi creating /pw/r/m1 and /pw/r/m2",
         lambda: w.multi([("create", "/pw/r/m1", b"", 0),
                          ("create", "/pw/r/m2", b"", 0)]))
    # persistent + standard watch on same node
    c.get("/pw/a", True)
    step("standard getData watch + PERSISTENT on /pw/a, then setData",
         lambda: w.set("/pw/a", b"3"))
    c.add_watch("/pw/r/k", 0)
    step("PERSISTENT on /pw/r/k inside RECURSIVE /pw/r, setData /pw/r/k",
         lambda: w.set("/pw/r/k", b"9"))
    # recursive watch on /
    c2 = RawZK(srv.port)
    c2.add_watch("/", 1)
    n0 = len(c2.events)
    w.create("/pw/root-test")
    time.sleep(0.3)
    out("RECURSIVE on '/', create /pw/root-test",
        [(e[1], e[3]) for e in c2.events[n0:]])
    c2.close()
    # removeWatches / checkWatches
    out("removeWatches(any) on path with no watch",
        err_of(c.remove_watches, "/pw/none", 3))
    out("checkWatches(any) on path with no watch",
        err_of(c.check_watches, "/pw/none", 3))
    out("checkWatches(any) on /pw/a (persistent watch)",
        err_of(c.check_watches, "/pw/a", 3))
    out("checkWatches(data) on /pw/a (persistent watch)",
        err_of(c.check_watches, "/pw/a", 2))
    out("checkWatches(children) on /pw/a (persistent watch)",
        err_of(c.check_watches, "/pw/a", 1))
    # Each case on a fresh node: arm watch(es), run one check/remove call,
    # then probe with setData + child create to see what is still armed.
    counter = [0]

    def watch_case(label, arm, calls):
        counter[0] += 1
        path = "/pw/case%d" % counter[0]
        w.create(path)
        arm(path)
        results = [err_of(fn, path, t) for fn, t in calls]
        n0 = len(c.events)
        evs = _events_after(c, n0, lambda: (w.set(path, b"p"),
                                            w.create(path + "/k")), 0.3)
        out(label, "%s; then setData+child create -> %s" % (results, evs))

    PERS = lambda p: c.add_watch(p, 0)
    RECU = lambda p: c.add_watch(p, 1)
    chk, rm = c.check_watches, c.remove_watches
    watch_case("PERSISTENT: no call (control)", PERS, [])
    watch_case("PERSISTENT: checkWatches data,children,any", PERS,
               [(chk, 2), (chk, 1), (chk, 3)])
    watch_case("PERSISTENT: removeWatches(data=2)", PERS, [(rm, 2)])
    watch_case("PERSISTENT: removeWatches(children=1)", PERS, [(rm, 1)])
    watch_case("PERSISTENT: removeWatches(any=3)", PERS, [(rm, 3)])
    watch_case("RECURSIVE: no call (control)", RECU, [])
    watch_case("RECURSIVE: checkWatches data,children,any", RECU,
               [(chk, 2), (chk, 1), (chk, 3)])
    watch_case("RECURSIVE: removeWatches(data=2)", RECU, [(rm, 2)])
    watch_case("RECURSIVE: removeWatches(children=1)", RECU, [(rm, 1)])
    watch_case("RECURSIVE: removeWatches(any=3)", RECU, [(rm, 3)])
    watch_case("PERSISTENT+getData: removeWatches(data=2)",
               lambda p: (PERS(p), c.get(p, True)), [(rm, 2)])
    watch_case("PERSISTENT+getChildren: removeWatches(children=1)",
               lambda p: (PERS(p), c.children(p, True)), [(rm, 1)])
    watch_case("getData+getChildren std: removeWatches(data=2) twice",
               lambda p: (c.get(p, True), c.children(p, True)),
               [(rm, 2), (rm, 2)])
    watch_case("exists only: removeWatches(children=1), checkWatches(data)",
               lambda p: c.exists(p, True), [(rm, 1), (chk, 2)])
    watch_case("exists only: removeWatches(any=3)",
               lambda p: c.exists(p, True), [(rm, 3)])
    c.exists("/pw/missing", True)
    out("removeWatches(data=2) for an exists-watch on a missing node",
        err_of(rm, "/pw/missing", 2))
    # Mixed standard + persistent watch on the same node, same session:
    # after the standard one fires, is the persistent one intact?
    w.create("/pw/mix")
    c.add_watch("/pw/mix", 0)
    c.get("/pw/mix", True)
    seq = []
    for i in range(3):
        n0 = len(c.events)
        seq.append(_events_after(c, n0, lambda: w.set("/pw/mix", b"%d" % i),
                                 0.3))
    out("PERSISTENT + one-shot getData on same node, 3 setData's", seq)
    out("  checkWatches(data) / (children) / (any) afterwards",
        [err_of(chk, "/pw/mix", t) for t in (2, 1, 3)])
    n0 = len(c.events)
    out("  child create afterwards", _events_after(
        c, n0, lambda: w.create("/pw/mix/k")))
    # same, but with a one-shot child watch
    w.create("/pw/mix2")
    c.add_watch("/pw/mix2", 0)
    c.children("/pw/mix2", True)
    seq = []
    for i in range(3):
        n0 = len(c.events)
        seq.append(_events_after(c, n0, lambda: w.create("/pw/mix2/k%d" % i),
                                 0.3))
    out("PERSISTENT + one-shot getChildren, 3 child creates", seq)
    n0 = len(c.events)
    out("  setData afterwards", _events_after(
        c, n0, lambda: w.set("/pw/mix2", b"x")))
    # recursive + one-shot exists on a descendant
    w.create("/pw/mix3")
    w.create("/pw/mix3/k")
    c.add_watch("/pw/mix3", 1)
    c.exists("/pw/mix3/k", True)
    seq = []
    for i in range(3):
        n0 = len(c.events)
        seq.append(_events_after(c, n0, lambda: w.set("/pw/mix3/k",
                                                      b"%d" % i), 0.3))
    out("RECURSIVE on parent + one-shot exists on child, 3 setData child",
        seq)
    c.close()
    w.close()


def kazoo_watch_folding(srv):
    """How many callbacks kazoo delivers when exists+get watch share a path."""
    k = kazoo_client(srv)
    k.create("/kw")
    calls = []
    f = lambda ev: calls.append(("f", ev.type, ev.path))
    g = lambda ev: calls.append(("g", ev.type, ev.path))
    k.exists("/kw", watch=f)
    k.get("/kw", watch=f)
    k.set("/kw", b"1")
    time.sleep(0.5)
    out("kazoo: same callback via exists+get, setData -> callbacks", calls)
    calls.clear()
    k.exists("/kw", watch=f)
    k.get("/kw", watch=g)
    k.delete("/kw")
    time.sleep(0.5)
    out("kazoo: different callbacks via exists+get, delete -> callbacks",
        calls)
    k.stop()
    k.close()


# ============================================================================
# 7. Sessions
# ============================================================================

def session_rules(srv):
    for ask in (1, 100, 399, 400, 401, 1000, 3999, 4000, 4001, 100000):
        c = RawZK(srv.port, timeout_ms=ask)
        out("negotiated timeout when asking %d ms (tick %d)" % (ask, TICK_MS),
            c.negotiated_timeout)
        c.close()
    obs = RawZK(srv.port)
    obs.create("/sess")
    # graceful close
    c = RawZK(srv.port, timeout_ms=1000)
    c.create("/sess/closed", flags=EPHEMERAL)
    obs.exists("/sess/closed", True)
    n0 = len(obs.events)
    t0 = time.time()
    c.close()
    out("ephemeral of a closed session: exists() right after close reply",
        obs.exists("/sess/closed") is not None)
    obs.wait_events(n0 + 1)
    out("  NodeDeleted event delay after close (s)",
        "%.3f" % (obs.events[n0][0] - t0) if len(obs.events) > n0 else "none")
    # expiry: drop the TCP connection, stop pinging
    for ask in (400, 1000, 4000):
        c = RawZK(srv.port, timeout_ms=ask)
        neg = c.negotiated_timeout
        c.create("/sess/exp%d" % ask, flags=EPHEMERAL)
        obs.exists("/sess/exp%d" % ask, True)
        n0 = len(obs.events)
        # time of last traffic from the client = now (create reply)
        t0 = time.time()
        c.drop()
        obs.wait_events(n0 + 1, timeout=neg / 1000.0 * 3 + 2)
        out("ephemeral of expired session (negotiated %d ms) deleted after"
            % neg, "%.3f s after last client packet" % (obs.events[n0][0] - t0)
            if len(obs.events) > n0 else "not within 3x timeout")
    # reconnect to an expired session
    c = RawZK(srv.port, timeout_ms=400)
    sid, pw = c.session_id, c.passwd
    c.drop()
    time.sleep(1.5)
    try:
        RawZK(srv.port, session=(sid, pw))
        out("reconnect with expired session id", "accepted?!")
    except ZKError as e:
        out("reconnect with expired session id", "negotiated timeout 0 => "
            "SESSIONEXPIRED (server sends timeOut=0 and closes)")
    except ConnectionError as e:
        out("reconnect with expired session id", "connection closed: %s" % e)
    # reconnect to a live session with a wrong password
    c = RawZK(srv.port, timeout_ms=4000)
    try:
        RawZK(srv.port, session=(c.session_id, b"x" * 16))
        out("reconnect live session with wrong password", "accepted?!")
    except ZKError:
        out("reconnect live session with wrong password",
            "rejected: timeOut=0 (SESSIONEXPIRED)")
    except ConnectionError as e:
        out("reconnect live session with wrong password", "closed: %s" % e)
    # reconnect to a live session correctly: old connection?
    c2 = RawZK(srv.port, session=(c.session_id, c.passwd))
    out("reconnect live session with right password: same id, timeout",
        "%s, %d" % (c2.session_id == c.session_id, c2.negotiated_timeout))
    time.sleep(0.3)
    r = err_of(c.exists, "/sess")
    out("  old connection after the session moved", r)
    c2.close()
    # session ids
    ids = [RawZK(srv.port) for _ in range(3)]
    out("consecutive session ids", [hex(x.session_id) for x in ids])
    for x in ids:
        x.close()
    obs.close()


# ============================================================================
# 8. Limits
# ============================================================================

def _try_size(srv, op, size, path="/L/a"):
    """Returns 'OK', an error name, or 'CONNECTION-CLOSED'."""
    c = RawZK(srv.port)
    try:
        if op == "create":
            try:
                c.delete(path)
            except ZKError:
                pass
            c.create(path, b"x" * size)
        else:
            c.set(path, b"x" * size)
        r = "OK"
    except ZKError as e:
        r = e.name
    except (ConnectionError, queue.Empty, OSError):
        r = "CONNECTION-CLOSED"
    try:
        c.close()
    except Exception:
        pass
    return r


def _boundary(srv, op, lo, hi, path="/L/a"):
    """Largest size in [lo, hi) that succeeds (lo must succeed)."""
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if _try_size(srv, op, mid, path) == "OK":
            lo = mid
        else:
            hi = mid
    return lo


def limits(srv):
    c = RawZK(srv.port)
    c.create("/L")
    c.create("/L/a")
    c.close()
    for size in (1048576 - 1, 1048576, 1048576 + 1, 2 * 1048576):
        out("create with %d bytes of data" % size,
            _try_size(srv, "create", size))
    b = _boundary(srv, "create", 1000000, 1048577)
    # request packet = xid+type (8) + path (4+4) + data (4+N) +
    # acl vector (4 + 4 + 4+5 + 4+6) + flags (4)
    pkt = 8 + 8 + 4 + b + 27 + 4
    out("largest create data accepted (path '/L/a')",
        "%d bytes -> request length field %d (0x%x)" % (b, pkt, pkt))
    b2 = _boundary(srv, "create", 1000000, 1048577, path="/L/" + "n" * 100)
    out("largest create data accepted (path of 103 chars)",
        "%d bytes (= previous - %d)" % (b2, b - b2))
    c = RawZK(srv.port)
    c.create("/L/a", b"") if c.exists("/L/a") is None else None
    c.close()
    b3 = _boundary(srv, "set", 1000000, 1048577)
    pkt3 = 8 + 8 + 4 + b3 + 4
    out("largest setData data accepted (path '/L/a')",
        "%d bytes -> request length field %d (0x%x)" % (b3, pkt3, pkt3))
    out("what the client sees above the limit",
        _try_size(srv, "set", b3 + 1))
    # does the server survive and is the node unchanged?
    c = RawZK(srv.port)
    d, st = c.get("/L/a")
    out("after oversize setData: node dataLength / version",
        "%d / %d" % (st["dataLength"], st["version"]))
    # reading a node near the limit back
    out("getData of the largest node works", len(d) == b3)
    # long paths
    for n in (1000, 10000, 100000, 1000000, 1048000):
        name = "/L/" + "p" * n
        try:
            c.create(name)
            r = "OK"
        except ZKError as e:
            r = e.name
        except (ConnectionError, queue.Empty, OSError):
            r = "CONNECTION-CLOSED"
            c = RawZK(srv.port)
        out("create node with name of %d chars" % n, r)
    # deep path
    p = ""
    depth = 0
    try:
        for depth in range(1, 1001):
            p += "/d"
            c.create(p)
        r = "OK"
    except ZKError as e:
        r = e.name
    out("create 1000-level deep path", "%s (reached depth %d)" % (r, depth))
    # many children: getChildren reply bigger than 1 MiB?
    c.create("/L/many")
    name = "c" * 2000
    for i in range(600):
        c.create("/L/many/%s%04d" % (name, i))
    try:
        kids = c.children1("/L/many")
        r = "OK, %d names (~%d bytes reply)" % (len(kids), 600 * 2008)
    except ZKError as e:
        r = e.name
    except (ConnectionError, queue.Empty) as e:
        r = "CONNECTION-CLOSED"
    out("getChildren whose reply exceeds 1 MiB (600 x 2004-char names)", r)
    try:
        c.close()
    except Exception:
        pass


def kazoo_path_handling(srv):
    k = kazoo_client(srv)
    k.create("/kp")
    for p in ("/kp/a/", "/kp//b", "kp/c", "/kp/./d", "/kp/e\x00"):
        try:
            r = k.create(p)
        except Exception as e:
            r = "%s: %s" % (type(e).__name__, e)
        out("kazoo create(%r)" % p, r)
    try:
        r = k.create("/kp/s/", sequence=True)
    except Exception as e:
        r = type(e).__name__
    out("kazoo create('/kp/s/', sequence=True)", r)
    try:
        r = k.create("/kp/", sequence=True)
    except Exception as e:
        r = type(e).__name__
    out("kazoo create('/kp/', sequence=True)", r)
    try:
        r = k.create("/kp/emptyval", b"")
        d, _ = k.get(r)
        r = "%s, get -> %r" % (r, d)
    except Exception as e:
        r = type(e).__name__
    out("kazoo create with value b'' then get", r)
    try:
        k.create("/kp/big", b"x" * (1048576 + 10))
        r = "OK"
    except Exception as e:
        r = type(e).__name__
    out("kazoo create with 1 MiB + 10 bytes", r)
    k.stop()
    k.close()


# ============================================================================
# 9. ACLs
# ============================================================================

def acl_rules(srv):
    owner = RawZK(srv.port)
    owner.add_auth("digest", b"alice:secret")
    anon = RawZK(srv.port)
    alice_id = digest_id("alice", "secret")
    out("digest id for alice:secret", alice_id)
    owner.create("/acl")
    out("create with empty ACL list", err_of(owner.create, "/acl/e", acl=[]))
    out("create with unknown scheme", err_of(owner.create, "/acl/u",
                                              acl=[(31, "nosuch", "x")]))
    out("create with perms=0 world:anyone",
        err_of(owner.create, "/acl/p0", acl=[(0, "world", "anyone")]))
    out("create with perms=0xff world:anyone (extra bits)",
        err_of(owner.create, "/acl/pff", acl=[(0xff, "world", "anyone")]))
    out("  stored ACL", owner.get_acl("/acl/pff")[0]
        if owner.exists("/acl/pff") else "-")
    out("create world:nobody", err_of(owner.create, "/acl/wn",
                                       acl=[(31, "world", "nobody")]))
    out("create with malformed digest id 'alice'",
        err_of(owner.create, "/acl/md", acl=[(31, "digest", "alice")]))
    out("create ip ACL 127.0.0.1", err_of(owner.create, "/acl/ip",
                                           acl=[(31, "ip", "127.0.0.1")]))
    out("create ip ACL bad address 'notanip'",
        err_of(owner.create, "/acl/ipbad", acl=[(31, "ip", "notanip")]))
    out("create ip ACL 10.0.0.0/8", err_of(owner.create, "/acl/ip8",
                                            acl=[(31, "ip", "10.0.0.0/8")]))
    out("anon reads ip-127.0.0.1 node", err_of(anon.get, "/acl/ip"))
    out("anon reads ip-10/8 node", err_of(anon.get, "/acl/ip8"))
    # auth scheme
    out("auth-scheme ACL by unauthenticated client",
        err_of(anon.create, "/acl/auth-anon", acl=[(31, "auth", "")]))
    out("auth-scheme ACL by authenticated client",
        err_of(owner.create, "/acl/auth", acl=[(31, "auth", "")]))
    out("  stored ACL of /acl/auth", owner.get_acl("/acl/auth")[0])
    out("auth-scheme ACL with id 'whatever'",
        err_of(owner.create, "/acl/auth2", acl=[(31, "auth", "whatever")]))
    out("  stored ACL of /acl/auth2", owner.get_acl("/acl/auth2")[0]
        if owner.exists("/acl/auth2") else "-")
    out("auth-scheme + world mixed, unauthenticated",
        err_of(anon.create, "/acl/mix",
               acl=[(31, "auth", ""), (1, "world", "anyone")]))
    out("  stored ACL of /acl/mix", owner.get_acl("/acl/mix")[0]
        if owner.exists("/acl/mix") else "-")
    # per-permission matrix: node readable by alice only
    owner.create("/acl/d", b"secret", acl=[(31, "digest", alice_id)])
    owner.create("/acl/d/kid", acl=OPEN_ACL)
    out("anon getData on digest node", err_of(anon.get, "/acl/d"))
    out("anon exists on digest node", err_of(anon.exists, "/acl/d"))
    out("anon exists+watch on digest node", err_of(anon.exists, "/acl/d",
                                                   True))
    out("anon getChildren on digest node", err_of(anon.children, "/acl/d"))
    out("anon getACL on digest node", err_of(anon.get_acl, "/acl/d"))
    out("anon setData on digest node", err_of(anon.set, "/acl/d", b"x"))
    out("anon setACL on digest node", err_of(anon.set_acl, "/acl/d",
                                              OPEN_ACL))
    out("anon create child of digest node", err_of(anon.create, "/acl/d/n"))
    out("anon delete child of digest node", err_of(anon.delete, "/acl/d/kid"))
    out("anon sync on digest node", err_of(anon.sync, "/acl/d"))
    out("anon getData on world child of digest node",
        err_of(anon.get, "/acl/d/kid"))
    out("anon delete digest node itself (needs DELETE on /acl which is open)",
        err_of(anon.delete, "/acl/d/kid") + " then " +
        err_of(anon.delete, "/acl/d"))
    # single-permission nodes, tested by anon
    perms = [("READ", 1), ("WRITE", 2), ("CREATE", 4), ("DELETE", 8),
             ("ADMIN", 16)]
    for pname, bit in perms:
        path = "/acl/only-%s" % pname
        owner.create(path, acl=[(bit, "world", "anyone"),
                                (31, "digest", alice_id)])
        owner.create(path + "/kid", acl=OPEN_ACL)
        res = {
            "get": err_of(anon.get, path),
            "exists": err_of(anon.exists, path),
            "children": err_of(anon.children, path),
            "getACL": err_of(anon.get_acl, path),
            "set": err_of(anon.set, path, b"x"),
            "create-child": err_of(anon.create, path + "/n"),
            "delete-child": err_of(anon.delete, path + "/kid"),
            "setACL": err_of(anon.set_acl, path,
                             [(bit, "world", "anyone"),
                              (31, "digest", alice_id)]),
        }
        out("world:anyone has only %s" % pname,
            " ".join("%s=%s" % (k, v.split("(")[0]) for k, v in res.items()))
    # delete of a node with no permissions at all for anon, parent open
    owner.create("/acl/locked", acl=[(31, "digest", alice_id)])
    out("anon delete node whose own ACL denies everything (parent open)",
        err_of(anon.delete, "/acl/locked"))
    # precedence between NOAUTH and other errors
    owner.create("/acl/ro", acl=[(PERM_READ, "world", "anyone"),
                                 (PERM_ALL, "digest", alice_id)])
    out("setData BADVERSION without WRITE (NOAUTH vs BADVERSION)",
        err_of(anon.set, "/acl/ro", b"", 99))
    out("create grandchild where the child is missing (parent no-CREATE)",
        err_of(anon.create, "/acl/ro/x/y"))
    out("delete missing child of no-DELETE parent",
        err_of(anon.delete, "/acl/ro/none"))
    owner.create("/acl/ro/kid")
    out("delete existing child of no-DELETE parent with wrong version",
        err_of(anon.delete, "/acl/ro/kid", 5))
    out("setACL on read-only node with wrong version",
        err_of(anon.set_acl, "/acl/ro", OPEN_ACL, 5))
    # bad auth
    bad = RawZK(srv.port)
    try:
        bad.add_auth("nosuchscheme", b"x")
        out("addAuth unknown scheme", "OK")
    except ZKError as e:
        out("addAuth unknown scheme", e.name)
    except ConnectionError as e:
        out("addAuth unknown scheme", "connection closed")
    time.sleep(0.3)
    out("  connection state after", err_of(bad.exists, "/acl"))
    # super-ish: the digest id is compared textually
    other = RawZK(srv.port)
    other.add_auth("digest", b"alice:wrong")
    out("client with alice:wrong reads alice node", err_of(other.get,
                                                          "/acl/d"))
    other.add_auth("digest", b"alice:secret")
    out("same client after adding alice:secret too", err_of(other.get,
                                                            "/acl/d"))
    out("getACL of digest node (as alice)", owner.get_acl("/acl/d")[0])
    for x in (owner, anon, bad, other):
        try:
            x.close()
        except Exception:
            pass


# ============================================================================
# Runner
# ============================================================================

AREAS = [
    ("seq", "1. Sequential suffix", [sequential_suffix_format_and_source,
                                     sequential_suffix_collision,
                                     sequential_suffix_vs_visible_cversion,
                                     sequential_suffix_multi]),
    ("stat", "2. Stat fields", [stat_fields]),
    ("zxid", "3. zxid consumption", [zxid_consumption]),
    ("err", "4. Error precedence, containers, TTL",
     [error_precedence, container_reaping, ttl_reaping]),
    ("multi", "5. multi", [multi_results]),
    ("watch", "6. Watches", [watch_rules, persistent_watches,
                             kazoo_watch_folding]),
    ("session", "7. Sessions", [session_rules]),
    ("limits", "8. Limits", [limits, kazoo_path_handling]),
    ("acl", "9. ACLs", [acl_rules]),
]


def main(argv):
    wanted = set(argv[1:])
    for key, title, probes in AREAS:
        if wanted and key not in wanted:
            continue
        print("\n== %s ==" % title)
        with Server() as srv:
            for probe in probes:
                print("[%s]" % probe.__name__)
                try:
                    probe(srv)
                except Exception as e:          # keep going; report the crash
                    import traceback
                    out("PROBE CRASHED", "%r" % e)
                    traceback.print_exc(file=sys.stdout)


if __name__ == "__main__":
    main(sys.argv)
