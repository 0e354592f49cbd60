#!/usr/bin/python3
"""kazoo 2.8's recipes (Debian python3-kazoo) on `zksim serve`: concurrent
clients run Lock, Election, Queue, LockingQueue, Barrier, DoubleBarrier and
Counter while faults are injected through the control interface; each
scenario's history is checked by the project's checkers (check_history).

usage: kazoo_recipes.py ZKSIM CHECKER OUTDIR [SCENARIO ...]

Each scenario runs on a fresh `zksim serve` and says what it expects: pass,
or the violation a known flaw of the recipe shows. On an unexpected verdict
the history and the server's trace (as zksim timeline draws it) stay in
OUTDIR. Each scenario prints its seed when it starts and with its verdict;
ZKSIM_SEED=N with that scenario alone replays its faults (the clients'
timing still varies). Exits 77 when kazoo is not installed.
"""

import logging
import os
import random
import sys
import threading
import time

try:
    from kazoo.client import KazooClient
    from kazoo.exceptions import CancelledError, ConnectionLoss, LockTimeout, SessionExpiredError
    from kazoo.protocol.states import KazooState
except ImportError as missing:
    print("skipped: kazoo is not installed for %s (Debian: python3-kazoo): %s" % (sys.executable, missing))
    sys.exit(77)

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from zksim_harness import (CONNECTION_LOSS, NO_NODE, OPERATION_TIMEOUT, SESSION_EXPIRED, SESSION_S, TICK_MS, WAIT_S,
                           History, Nemesis, Serve, check, error_code, parse_args)

RUN_S = 2.5        # how long the clients work in a scenario


class Clients:
    """`n` kazoo clients of one server; each tells the history when its
    connection is suspended and when its session is lost."""

    def __init__(self, serve, history, n):
        self.zks = []
        for i in range(n):
            zk = KazooClient(hosts=serve.hosts, timeout=SESSION_S,
                             connection_retry={"max_tries": -1, "delay": 0.05, "max_delay": 0.2},
                             command_retry={"max_tries": -1, "delay": 0.05, "max_delay": 0.2})
            zk.add_listener(self._listener(history, i))
            zk.start(timeout=WAIT_S)
            self.zks.append(zk)

    @staticmethod
    def _listener(history, i):
        def told(state):
            if state == KazooState.SUSPENDED:
                history.note(i, "suspended")
            elif state == KazooState.LOST:
                history.note(i, "lost")
        return told

    def sessions(self):
        return [zk.client_id[0] if zk.client_id else None for zk in self.zks]

    def stop(self):
        for zk in self.zks:
            zk.stop()
            zk.close()


def ended(history, op, e, value=""):
    """A call ended by an exception: a lost connection leaves it unknown."""
    code = error_code(e)
    if isinstance(e, ConnectionLoss):
        history.info(op, CONNECTION_LOSS, value)
    elif isinstance(e, (LockTimeout, CancelledError)):
        history.fail(op, OPERATION_TIMEOUT)
    elif isinstance(e, SessionExpiredError):
        history.fail(op, SESSION_EXPIRED)
    else:
        history.info(op, code, value)


def run_threads(targets, timeout_s=RUN_S + WAIT_S):
    """Runs each target in a thread until all end or `timeout_s` passed
    (a thread stuck in a recipe's wait: the history shows it); True if all ended."""
    threads = [threading.Thread(target=t, daemon=True) for t in targets]
    for t in threads:
        t.start()
    deadline = time.monotonic() + timeout_s
    for t in threads:
        t.join(timeout=max(0.0, deadline - time.monotonic()))
    return all(not t.is_alive() for t in threads)


# --- scenarios: each returns None, or what reads (left, counter) with a fresh
# client once faults stopped, for the history ---

def lock(serve, history, clients, until):
    def worker(i):
        def run():
            lk = clients.zks[i].Lock("/lock", "c%d" % i)
            while time.monotonic() < until:
                op = history.invoke(i, "acquire")
                try:
                    got = lk.acquire(timeout=3)
                except Exception as e:  # noqa: BLE001 -- every outcome is recorded
                    ended(history, op, e)
                    continue
                if not got:
                    history.fail(op, OPERATION_TIMEOUT)
                    continue
                history.ok(op, lk.node or "")
                time.sleep(0.03)
                op = history.invoke(i, "release")
                try:
                    lk.release()
                    history.ok(op)
                except Exception as e:  # noqa: BLE001
                    ended(history, op, e)
        return run
    run_threads([worker(i) for i in range(len(clients.zks))])
    return None


def lock_pause_after_grant(serve, history, clients, until):
    """kazoo's Lock.acquire returns True once a getChildren shows its node
    first, without looking at the connection again: a client paused (a GC
    pause, or just descheduled) between that read and the return, whose
    session expires meanwhile, has been told SUSPENDED and still gets True,
    when another client holds the lock by then. The pause is put there by
    wrapping c0's get_children; seen without it in about 1 of 25 runs of
    "lock" with expiries (why that scenario leaves them out)."""
    zk0, zk1 = clients.zks
    told = threading.Event()
    zk0.add_listener(lambda state: told.set() if state == KazooState.SUSPENDED else None)
    c1_granted = threading.Event()

    def contender():
        op = history.invoke(1, "acquire")
        lk = zk1.Lock("/lock", "c1")
        try:
            lk.acquire(timeout=WAIT_S)
            history.ok(op, lk.node)
            c1_granted.set()
            time.sleep(0.3)
            op = history.invoke(1, "release")
            lk.release()
            history.ok(op)
        except Exception as e:  # noqa: BLE001
            ended(history, op, e)
    c1 = threading.Thread(target=contender, daemon=True)
    read = zk0.get_children

    def paused_after_read(path, *args, **kwargs):
        children = read(path, *args, **kwargs)
        del zk0.get_children  # once
        c1.start()
        serve.wait_for(lambda: serve.watch_count() == 1, "c1 to wait behind c0")
        asked = history.now()
        serve.command("expire", session=hex(zk0.client_id[0]))
        history.note(0, "expired", at=asked)
        told.wait(WAIT_S)
        c1_granted.wait(WAIT_S)
        return children
    zk0.get_children = paused_after_read
    op = history.invoke(0, "acquire")
    lk = zk0.Lock("/lock", "c0")
    try:
        got = lk.acquire(timeout=WAIT_S)
        history.ok(op, lk.node) if got else history.fail(op, OPERATION_TIMEOUT)
        time.sleep(0.1)
        op = history.invoke(0, "release")
        lk.release()
        history.ok(op)
    except Exception as e:  # noqa: BLE001
        ended(history, op, e)
    c1.join(timeout=WAIT_S)
    return None


def election(serve, history, clients, until):
    elections = [zk.Election("/election", "c%d" % i) for i, zk in enumerate(clients.zks)]

    def worker(i):
        def run():
            while time.monotonic() < until:
                ops = {"campaign": history.invoke(i, "campaign")}

                def lead():
                    history.ok(ops["campaign"], "c%d" % i)
                    ops["campaign"] = None
                    time.sleep(0.05)
                    ops["resign"] = history.invoke(i, "resign")
                try:
                    elections[i].run(lead)
                    if ops.get("resign"):
                        history.ok(ops["resign"])
                    elif ops["campaign"]:  # cancelled before it led
                        history.fail(ops["campaign"], OPERATION_TIMEOUT)
                except Exception as e:  # noqa: BLE001
                    for op in (ops.get("campaign"), ops.get("resign")):
                        if op:
                            ended(history, op, e)
        return run

    def stopper():
        time.sleep(max(0.0, until - time.monotonic()))
        for e in elections:
            e.cancel()
    run_threads([worker(i) for i in range(len(clients.zks))] + [stopper])
    return None


def queue_items(path):
    """What the history's "left" is read with: the items still in a queue."""
    def read(zk):
        return [zk.get(path + "/" + name)[0].decode() for name in sorted(zk.get_children(path))], None
    return read


def counter_value(zk):
    return None, int(zk.get("/counter")[0].decode() or 0)


def putter(history, q, i, per_producer):
    """Client i's producer for queue `q` (Queue or LockingQueue): puts
    per_producer values, each recorded in the history."""
    def run():
        for k in range(per_producer):
            value = "p%d-%d" % (i, k)
            op = history.invoke(i, "put", value)
            try:
                q.put(value.encode())
                history.ok(op, value)
            except Exception as e:  # noqa: BLE001
                ended(history, op, e, value)
            time.sleep(RUN_S / per_producer / 2)
    return run


def queue(serve, history, clients, until, producers=2, per_producer=25):
    queues = [zk.Queue("/queue") for zk in clients.zks]
    done = threading.Event()

    def producer(i):
        return putter(history, queues[i], i, per_producer)

    def consumer(i):
        def run():
            while time.monotonic() < until + 2 and not (done.is_set() and len(queues[i]) == 0):
                op = history.invoke(i, "take")
                try:
                    got = queues[i].get()
                except Exception as e:  # noqa: BLE001
                    ended(history, op, e)
                    continue
                if got is None:
                    history.fail(op, NO_NODE)
                    time.sleep(0.02)
                else:
                    history.ok(op, got.decode())
        return run

    def produce_all():
        run_threads([producer(i) for i in range(producers)])
        done.set()
    run_threads([produce_all] + [consumer(i) for i in range(producers, len(clients.zks))])
    return queue_items("/queue")


def queue_lost_reply(serve, history, clients, until):
    """kazoo's Queue.get deletes the head and retries on a lost connection:
    when the delete was applied and its reply lost, the retry finds the node
    gone and takes the next item; the first is lost (a known flaw: its docs
    say the queue "does not offer reliable consumption"), and as far as
    anyone can tell the second was taken while the first was queued
    (queue-fifo: the puts are a few ms apart, so the first was older)."""
    q = clients.zks[0].Queue("/queue")
    for k in range(3):
        op = history.invoke(0, "put", "v%d" % k)
        q.put(("v%d" % k).encode())
        history.ok(op, "v%d" % k)
        time.sleep(0.005)
    consumer = clients.zks[1].Queue("/queue")
    serve.command("drop", session=hex(clients.zks[1].client_id[0]), when="after", op="delete", path="/queue/")
    op = history.invoke(1, "take")
    try:
        history.ok(op, consumer.get().decode())
    except Exception as e:  # noqa: BLE001
        ended(history, op, e)
    return queue_items("/queue")


def locking_queue(serve, history, clients, until, producers=2, per_producer=20):
    queues = [zk.LockingQueue("/lqueue") for zk in clients.zks]
    done = threading.Event()

    def producer(i):
        return putter(history, queues[i], i, per_producer)

    def consumer(i):
        def run():
            q = queues[i]
            while time.monotonic() < until + 2 and not (done.is_set() and len(q) == 0):
                op = history.invoke(i, "take")
                try:
                    got = q.get(timeout=0.3)
                except Exception as e:  # noqa: BLE001
                    ended(history, op, e)
                    continue
                if got is None:
                    history.fail(op, OPERATION_TIMEOUT)
                    continue
                value = got.decode()
                history.ok(op, value)
                time.sleep(0.02)
                op = history.invoke(i, "ack", value)
                try:
                    if q.consume():
                        history.ok(op, value)
                    else:  # its claim went with its session
                        history.fail(op, SESSION_EXPIRED)
                        q.processing_element = None
                except Exception as e:  # noqa: BLE001
                    ended(history, op, e, value)
                    q.processing_element = None
        return run

    def produce_all():
        run_threads([producer(i) for i in range(producers)])
        done.set()
    run_threads([produce_all] + [consumer(i) for i in range(producers, len(clients.zks))])
    return queue_items("/lqueue/entries")


def barrier(serve, history, clients, until):
    rounds = 0
    while time.monotonic() < until:
        path = "/barrier/r%d" % rounds
        rounds += 1
        op = history.invoke(0, "raise", path)
        try:
            clients.zks[0].Barrier(path).create()
            history.ok(op, path)
        except Exception as e:  # noqa: BLE001
            ended(history, op, e, path)
            continue

        def waiter(i):
            def run():
                op = history.invoke(i, "wait", path)
                try:
                    if clients.zks[i].Barrier(path).wait(timeout=2):
                        history.ok(op, path)
                    else:
                        history.fail(op, OPERATION_TIMEOUT)
                except Exception as e:  # noqa: BLE001
                    ended(history, op, e, path)
            return run

        def lower():
            time.sleep(0.2)
            op = history.invoke(0, "lower", path)
            try:
                clients.zks[0].Barrier(path).remove()
                history.ok(op, path)
            except Exception as e:  # noqa: BLE001
                ended(history, op, e, path)
        run_threads([waiter(i) for i in range(1, len(clients.zks))] + [lower])
    return None


def double_barrier(serve, history, clients, until):
    members = len(clients.zks)
    rounds = 0
    while time.monotonic() < until:
        path = "/dbarrier/r%d" % rounds
        rounds += 1
        # Nobody leaves before every member has entered: a member that lags
        # the others by their hold never enters (double-barrier-slow-member),
        # and a pause, or a loaded machine, can make any hold too short.
        entered = threading.Barrier(members)

        def member(i):
            def run():
                b = clients.zks[i].DoubleBarrier(path, members, "c%d" % i)
                op = history.invoke(i, "enter", path)
                try:
                    b.enter()
                    history.ok(op, path)
                except Exception as e:  # noqa: BLE001
                    ended(history, op, e, path)
                    entered.abort()
                    return
                try:
                    entered.wait(WAIT_S)
                except threading.BrokenBarrierError:
                    pass  # a member did not enter: the history shows which
                op = history.invoke(i, "leave", path)
                try:
                    b.leave()
                    history.ok(op, path)
                except Exception as e:  # noqa: BLE001
                    ended(history, op, e, path)
            return run
        if not run_threads([member(i) for i in range(members)]):
            break
    return None


def double_barrier_slow_member(serve, history, clients, until):
    """kazoo's DoubleBarrier.enter looks for "ready" only after creating its
    node, and the first member to leave deletes "ready": a member slower
    than the others by their hold (here c0, paused after its create) finds
    no "ready", too few nodes, and waits for a "ready" nobody creates; the
    others' leave then waits for its node. Seen by chance with 200 ms
    pauses and a 50 ms hold (why double-barrier lets nobody leave before
    all entered). c1 and c2 do the same with each other: neither leaves
    before both entered, so that c0 alone lags, whatever the machine's load."""
    path = "/dbarrier/slow"
    zk0 = clients.zks[0]
    others_left = threading.Event()
    make = zk0.create

    def paused_after_create(node, *args, **kwargs):
        made = make(node, *args, **kwargs)
        if node.startswith(path + "/"):
            del zk0.create  # once: c0's own node
            others_left.wait(WAIT_S)
        return made
    zk0.create = paused_after_create

    leaving = {1: threading.Event(), 2: threading.Event()}
    entered = threading.Barrier(2)

    def member(i):
        def run():
            b = clients.zks[i].DoubleBarrier(path, 3, "c%d" % i)
            op = history.invoke(i, "enter", path)
            try:
                b.enter()
                history.ok(op, path)
            except Exception as e:  # noqa: BLE001
                ended(history, op, e, path)
                if i in leaving:
                    entered.abort()
                return
            if i in leaving:
                try:
                    entered.wait(WAIT_S)
                except threading.BrokenBarrierError:
                    pass  # the other did not enter: the history shows it
            op = history.invoke(i, "leave", path)
            if i in leaving:
                leaving[i].set()
            try:
                b.leave()
                history.ok(op, path)
            except Exception as e:  # noqa: BLE001
                ended(history, op, e, path)
        return run
    slow = threading.Thread(target=member(0), daemon=True)
    slow.start()
    try:
        serve.wait_for(lambda: clients.zks[1].exists(path) and len(clients.zks[1].get_children(path)) == 1,
                       "c0's node")
        others = [threading.Thread(target=member(i), daemon=True) for i in (1, 2)]
        for t in others:
            t.start()
        # Both entered and are leaving: "ready" is gone, and a node of theirs.
        serve.wait_for(lambda: all(e.is_set() for e in leaving.values())
                       and len(clients.zks[1].get_children(path)) < 3 and not clients.zks[1].exists(path + "/ready"),
                       "c1 and c2 to enter and leave")
    finally:
        others_left.set()
    slow.join(timeout=1)
    return None


def waiter_loses_its_watch(serve, clients, waiter, watches, wake):
    """kazoo 2.8 sends no setWatches after a reconnect: on a connection
    loss it fires its waiting watchers with a NONE event and forgets them
    (client.py, _session_callback), and the server drops a connection's
    watches with it. A recipe that waits for one event type only misses
    the change it waits for, whatever the server (measured on Debian's
    too). Runs `waiter` (client 0) until the server holds `watches`
    watches, closes c0's connection, and once c0 is back on its session
    runs `wake`, the change it waits for; gives the waiter 1 s more."""
    waiting = threading.Thread(target=waiter, daemon=True)
    waiting.start()
    serve.wait_for(lambda: serve.watch_count() == watches, "c0's %d watches" % watches)
    serve.command("close", session=hex(clients.zks[0].client_id[0]))
    serve.wait_for(lambda: clients.zks[0].connected, "c0 to reconnect")
    wake()
    waiting.join(timeout=1)


def double_barrier_connection_loss(serve, history, clients, until):
    """DoubleBarrier.enter waits for a CREATED event of "ready" only."""
    path = "/dbarrier/lost"
    barriers = [zk.DoubleBarrier(path, 3, "c%d" % i) for i, zk in enumerate(clients.zks)]

    def member(i):
        def run():
            op = history.invoke(i, "enter", path)
            try:
                barriers[i].enter()
                history.ok(op, path)
            except Exception as e:  # noqa: BLE001
                ended(history, op, e, path)
        return run
    waiter_loses_its_watch(serve, clients, member(0), 1, lambda: run_threads([member(1), member(2)]))
    return None


def barrier_connection_loss(serve, history, clients, until):
    """Barrier.wait (without a timeout) waits for a DELETED event only."""
    path = "/barrier/lost"
    op = history.invoke(1, "raise", path)
    clients.zks[1].Barrier(path).create()
    history.ok(op, path)

    def wait():
        op = history.invoke(0, "wait", path)
        try:
            clients.zks[0].Barrier(path).wait()
            history.ok(op, path)
        except Exception as e:  # noqa: BLE001
            ended(history, op, e, path)

    def lower():
        op = history.invoke(1, "lower", path)
        clients.zks[1].Barrier(path).remove()
        history.ok(op, path)
    waiter_loses_its_watch(serve, clients, wait, 1, lower)
    return None


def locking_queue_lost_claim_reply(serve, history, clients, until):
    """LockingQueue._take creates the item's claim without a retry, in the
    watch callback that saw the item arrive: when that create is applied
    and its reply lost, the callback ends in ConnectionLoss (kazoo's event
    thread logs it) and the claim stays, made in the consumer's own
    session. The get() times out; the next one skips the item as taken by
    someone else and takes the next (queue-fifo), and the first is stuck
    until that session ends. Seen at random under drop-after faults in the
    locking-queue scenario (seed 216663448), shown here on purpose."""
    q = clients.zks[0].LockingQueue("/lqueue")
    producer = clients.zks[1].LockingQueue("/lqueue")
    serve.command("drop", session=hex(clients.zks[0].client_id[0]), when="after", op="create",
                  path="/lqueue/taken/")

    def take(timeout):
        op = history.invoke(0, "take")
        try:
            got = q.get(timeout=timeout)
        except Exception as e:  # noqa: BLE001
            ended(history, op, e)
            return None
        if got is None:
            history.fail(op, OPERATION_TIMEOUT)
            return None
        history.ok(op, got.decode())
        return got.decode()

    def put(value):
        op = history.invoke(1, "put", value)
        producer.put(value.encode())
        history.ok(op, value)

    # The get() outlasts the claim's loss (kazoo forgets its watchers on
    # the connection's loss, so it then waits out its timeout).
    waiting = threading.Thread(target=take, args=(SESSION_S,))
    waiting.start()
    serve.wait_for(lambda: serve.watch_count() == 2, "c0's watches on entries/ and taken/")
    put("x0")
    waiting.join()
    # Apart from the timed-out take in the history: a claim of it would be
    # an excuse only while it ran.
    time.sleep(0.05)
    put("x1")
    value = take(WAIT_S)
    if value is not None:
        op = history.invoke(0, "ack", value)
        history.ok(op, value) if q.consume() else history.fail(op, SESSION_EXPIRED)
    return queue_items("/lqueue/entries")


def locking_queue_connection_loss(serve, history, clients, until):
    """LockingQueue.get (without a timeout) waits for a CHILD event only
    (its watches on entries/ and taken/)."""
    def take():
        op = history.invoke(0, "take")
        try:
            history.ok(op, clients.zks[0].LockingQueue("/lqueue").get().decode())
        except Exception as e:  # noqa: BLE001
            ended(history, op, e)

    def put():
        op = history.invoke(1, "put", "x")
        clients.zks[1].LockingQueue("/lqueue").put(b"x")
        history.ok(op, "x")
    waiter_loses_its_watch(serve, clients, take, 2, put)
    return queue_items("/lqueue/entries")


def counter(serve, history, clients, until):
    def worker(i):
        def run():
            c = clients.zks[i].Counter("/counter")
            while time.monotonic() < until:
                op = history.invoke(i, "increment")
                try:
                    c += 1
                    history.ok(op, str(c.post_value))
                except Exception as e:  # noqa: BLE001
                    ended(history, op, e)
                time.sleep(0.01)
        return run
    run_threads([worker(i) for i in range(len(clients.zks))])
    return counter_value


def counter_lost_reply(serve, history, clients, until):
    """kazoo's Counter retries its whole read-modify-write on a lost
    connection: when the setData was applied and its reply lost, the retry
    reads the new value and adds again, so one increment counts twice (its
    docs promise atomic changes, but the retry is not idempotent)."""
    c = clients.zks[0].Counter("/counter")
    for _ in range(2):
        op = history.invoke(0, "increment")
        c += 1
        history.ok(op, str(c.post_value))
    serve.command("drop", session=hex(clients.zks[0].client_id[0]), when="after", op="setData")
    op = history.invoke(0, "increment")
    try:
        c += 1
        history.ok(op, str(c.post_value))
    except Exception as e:  # noqa: BLE001
        ended(history, op, e)
    return counter_value


ALL_FAULTS = ["expire", "pause", "close", "drop-before", "drop-after"]
NO_EXPIRY = ["pause", "close", "drop-before", "drop-after"]
# name: (function, clients, faults, the recipe its history is checked as,
# the properties it violates or None)
SCENARIOS = {
    # An expiry may strike between the read that grants and the return
    # (lock-pause-after-grant): two holders, by chance.
    "lock": (lock, 3, NO_EXPIRY, "lock", None),
    "lock-pause-after-grant": (lock_pause_after_grant, 2, [], "lock", "mutual-exclusion"),
    "election": (election, 3, NO_EXPIRY, "election", None),
    "queue": (queue, 4, ["expire", "pause", "close", "drop-before"], "queue", None),
    "queue-lost-reply": (queue_lost_reply, 2, [], "queue", "queue-no-loss,queue-fifo"),
    # A lost reply to a claim's create passes its item over (locking-queue-lost-claim-reply).
    "locking-queue": (locking_queue, 4, ["expire", "pause", "close", "drop-before"], "locking-queue", None),
    "locking-queue-lost-claim-reply": (locking_queue_lost_claim_reply, 2, [], "locking-queue", "queue-fifo"),
    "barrier": (barrier, 3, ALL_FAULTS, "barrier", None),
    # Pauses shorter than kazoo's read timeout: a lost connection loses the
    # barrier's watches (double-barrier-connection-loss).
    "double-barrier": (double_barrier, 3, ["pause"], "double-barrier", None),
    "double-barrier-slow-member": (double_barrier_slow_member, 3, [], "double-barrier", "liveness"),
    "double-barrier-connection-loss": (double_barrier_connection_loss, 3, [], "double-barrier", "liveness"),
    "barrier-connection-loss": (barrier_connection_loss, 2, [], "barrier", "liveness"),
    "locking-queue-connection-loss": (locking_queue_connection_loss, 2, [], "locking-queue", "liveness"),
    # A lost reply to setData counts an increment twice (counter-lost-reply).
    "counter": (counter, 3, ["expire", "pause", "close", "drop-before"], "counter", None),
    "counter-lost-reply": (counter_lost_reply, 1, [], "counter", "counter-no-duplicates"),
}


def observe(serve, read):
    """`read` with a client of its own: the workers' clients may have a drop
    still armed, or be between sessions."""
    zk = KazooClient(hosts=serve.hosts, timeout=SESSION_S)
    zk.start(timeout=WAIT_S)
    try:
        return read(zk)
    finally:
        zk.stop()
        zk.close()


def run_scenario(name, zksim, checker, outdir, seed):
    fn, n, faults, recipe, expect = SCENARIOS[name]
    print("%s: seed %d" % (name, seed), flush=True)
    serve = Serve(zksim, tick_ms=TICK_MS)
    try:
        history = History()
        clients = Clients(serve, history, n)
        # A pause (200 ms) holds a ping's reply far less than kazoo waits
        # for it (SESSION_S), and strikes come 250 ms apart: a pause alone
        # loses no connection.
        nemesis = Nemesis(serve, history, clients.sessions, random.Random(seed), faults, every_s=0.25,
                          pause_ms=200) if faults else None
        if nemesis:
            nemesis.start()
        until = time.monotonic() + RUN_S
        gave_up = None
        try:
            final = fn(serve, history, clients, until)
        except TimeoutError as e:  # a wait of the scenario's: the history says why
            gave_up, final = e, None
        finally:
            if nemesis:
                nemesis.stop()
            clients.stop()
        left, count = observe(serve, final) if final else (None, None)
        # Named by the seed: a later run does not overwrite a failure's.
        path = os.path.join(outdir, "kazoo-%s.seed%d.history.json" % (name, seed))
        history.write(path, recipe, n if recipe == "double-barrier" else 0, left, count)
        ok, out = check(checker, path, expect)
        if gave_up:
            ok, out = False, "gave up: %s\n%s" % (gave_up, out)
        struck = ", ".join("%s c%d" % f for f in nemesis.struck) if nemesis else "none"
        print("%s: %s (expected %s); seed %d; faults: %s\n  %s" % (
            name, "as expected" if ok else "NOT AS EXPECTED", expect or "pass", seed, struck,
            out.strip().replace("\n", "\n  ")), flush=True)
        if ok:
            os.remove(path)
        else:
            print("  rerun: ZKSIM_SEED=%d %s ZKSIM CHECKER OUTDIR %s; history and trace in %s" % (
                seed, sys.argv[0], name, outdir), flush=True)
            serve.save_trace(os.path.join(outdir, "kazoo-%s.seed%d.trace.html" % (name, seed)))
        return ok
    finally:
        serve.stop()


def main():
    args = parse_args(__doc__, SCENARIOS)
    if args is None:
        return 2
    zksim, checker, outdir, names = args
    os.makedirs(outdir, exist_ok=True)
    logging.basicConfig(level=logging.CRITICAL)  # kazoo logs every connection loss
    seed = int(os.environ.get("ZKSIM_SEED", random.randrange(1 << 31)))
    results = [run_scenario(name, zksim, checker, outdir, seed + k) for k, name in enumerate(names)]
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
