#!/usr/bin/env python3
"""handshake_flood.py: the TLS handshake flood on dagsched's HTTPS listeners, on loopback only.

For SECONDS, CLIENTS threads connect to the webhook port (PORT) as fast as they can and close
again, in turn: after a full TLS handshake; after sending only their ClientHello; right after
connecting. SILENT more connections connect and never send a byte; each one the server closes is
opened again, and the time the server held it is noted. Meanwhile three probes measure what
clients of the server get, each every PROBE_INTERVAL seconds and each given PROBE_TIMEOUT
seconds: an AdmissionReview POST /mutate-pods on a new TLS connection (as the API server opens
one), the same on one keep-alive connection that stays established, and POST /filter on a new
TLS connection to the other listener (FILTER_PORT).

Prints one line per probe (count, p50, p99, max in seconds, timeouts, errors) and one line for the
flood (connections, handshakes completed per second, silent connections the server dropped and
the longest it held one). Bounded: at most CLIENTS + SILENT + 3 connections at once, for at most
SECONDS + PROBE_TIMEOUT + 10 seconds in all.

With --check, then one line "violated: ..." per check that failed, and exit 1 if any did:
  - every webhook probe answered 200, none timed out, p99 under WEBHOOK_P99 seconds (5: the API
    server's webhook timeout);
  - every /filter probe answered 200, none timed out, p99 under FILTER_P99 seconds (1);
  - (with SILENT) the server dropped silent connections, and held none longer than SILENT_HELD
    seconds (13: the server's 10 s for a handshake, plus slack).
Exit 0 otherwise.

Usage: handshake_flood.py --port ADM --filter-port API --ca CA [--seconds 20] [--clients 12]
       [--silent 32] [--check [--webhook-p99 5] [--filter-p99 1] [--silent-held 13]]
"""
import argparse
import json
import socket
import ssl
import sys
import threading
import time

REVIEW = json.dumps({
    "apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview",
    "request": {"uid": "flood-probe", "kind": {"group": "", "version": "v1", "kind": "Pod"},
                "namespace": "default", "operation": "CREATE",
                "object": {"metadata": {"name": "probe", "namespace": "default"},
                           "spec": {"schedulerName": "default-scheduler", "containers": []}}}})
FILTER = json.dumps({"Pod": {"metadata": {"name": "probe", "namespace": "default", "uid": "u-probe",
                                          "resourceVersion": "1"},
                             "spec": {"schedulerName": "dagsched"}},
                     "NodeNames": ["n1"]})


def request(path, body, close):
    conn = "Connection: close\r\n" if close else ""
    return (f"POST {path} HTTP/1.1\r\nHost: flood\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(body)}\r\n{conn}\r\n{body}").encode()


def read_answer(s):
    """Read one answer; its status code (int). Raises OSError on a close or a timeout."""
    buf = b""
    while b"\r\n\r\n" not in buf:
        d = s.recv(65536)
        if not d:
            raise OSError("closed")
        buf += d
    head, rest = buf.split(b"\r\n\r\n", 1)
    length = 0
    for line in head.split(b"\r\n")[1:]:
        k, _, v = line.partition(b":")
        if k.strip().lower() == b"content-length":
            length = int(v.strip())
    while len(rest) < length:
        d = s.recv(65536)
        if not d:
            raise OSError("closed")
        rest += d
    return int(head.split(b" ", 2)[1])


class Probe(threading.Thread):
    """POST path every interval, each given timeout seconds; keep-alive or a new connection."""

    def __init__(self, a, ctx, port, path, body, keepalive, stop):
        super().__init__(daemon=True)
        self.a, self.ctx, self.port, self.path, self.body = a, ctx, port, path, body
        self.keepalive, self.stop = keepalive, stop
        self.lat, self.timeouts, self.errors, self.n = [], 0, 0, 0
        self.sock = None

    def connect(self):
        raw = socket.create_connection(("127.0.0.1", self.port), timeout=self.a.probe_timeout)
        return self.ctx.wrap_socket(raw, server_hostname="localhost")

    def once(self):
        self.n += 1
        t0 = time.monotonic()
        deadline = t0 + self.a.probe_timeout
        try:
            if self.sock is None:
                self.sock = self.connect()
            self.sock.settimeout(max(0.01, deadline - time.monotonic()))
            self.sock.sendall(request(self.path, self.body, not self.keepalive))
            self.sock.settimeout(max(0.01, deadline - time.monotonic()))
            code = read_answer(self.sock)
            if code != 200:
                self.errors += 1
            self.lat.append(time.monotonic() - t0)
        except (socket.timeout, TimeoutError):
            self.timeouts += 1
            self.lat.append(time.monotonic() - t0)
            self.drop()
        except (OSError, ssl.SSLError, ValueError, IndexError):
            self.errors += 1
            self.drop()
        if not self.keepalive:
            self.drop()

    def drop(self):
        if self.sock is not None:
            try:
                self.sock.close()
            except OSError:
                pass
            self.sock = None

    def run(self):
        while not self.stop.is_set():
            t0 = time.monotonic()
            self.once()
            self.stop.wait(max(0.0, self.a.probe_interval - (time.monotonic() - t0)))
        self.drop()

    def p99(self):
        v = sorted(self.lat)
        return v[min(len(v) - 1, int(0.99 * len(v)))] if v else 0.0

    def summary(self, name):
        v = sorted(self.lat)

        def q(p):
            return v[min(len(v) - 1, int(p * len(v)))] if v else 0.0
        return (f"{name}: probes={self.n} p50={q(0.5):.3f} p99={q(0.99):.3f} "
                f"max={(v[-1] if v else 0.0):.3f} timeouts={self.timeouts} errors={self.errors}")

    def violations(self, name, bound):
        out = []
        if self.n == 0:
            out.append(f"{name}: no probe was made")
        if self.timeouts:
            out.append(f"{name}: {self.timeouts} of {self.n} probes timed out")
        if self.errors:
            out.append(f"{name}: {self.errors} of {self.n} probes failed or were not answered 200")
        if self.p99() >= bound:
            out.append(f"{name}: p99 {self.p99():.3f} s (bound {bound} s)")
        return out


class Flooder(threading.Thread):
    """Connect and close in turn: full handshake, ClientHello only, nothing sent."""

    def __init__(self, a, ctx, n, stop):
        super().__init__(daemon=True)
        self.a, self.ctx, self.n, self.stop = a, ctx, n, stop
        self.conns = self.handshakes = 0

    def client_hello(self):
        obj = self.ctx.wrap_bio(ssl.MemoryBIO(), out := ssl.MemoryBIO(),
                                server_hostname="localhost")
        try:
            obj.do_handshake()
        except ssl.SSLWantReadError:
            pass
        return out.read()

    def run(self):
        kind = self.n
        while not self.stop.is_set():
            kind += 1
            try:
                raw = socket.create_connection(("127.0.0.1", self.a.port), timeout=5)
            except OSError:
                time.sleep(0.01)
                continue
            self.conns += 1
            try:
                if kind % 3 == 0:
                    s = self.ctx.wrap_socket(raw, server_hostname="localhost")
                    self.handshakes += 1
                    s.close()
                elif kind % 3 == 1:
                    raw.sendall(self.client_hello())
            except (OSError, ssl.SSLError):
                pass
            finally:
                raw.close()


class Silent(threading.Thread):
    """Connections that never send a byte; reopened when the server closes them."""

    def __init__(self, a, stop):
        super().__init__(daemon=True)
        self.a, self.stop = a, stop
        self.dropped, self.longest, self.opened = 0, 0.0, 0

    def run(self):
        socks = {}
        while not self.stop.is_set():
            while len(socks) < self.a.silent:
                try:
                    s = socket.create_connection(("127.0.0.1", self.a.port), timeout=5)
                except OSError:
                    break
                s.setblocking(False)
                socks[s] = time.monotonic()
                self.opened += 1
            for s in list(socks):
                try:
                    d = s.recv(4096)
                except BlockingIOError:
                    continue
                except OSError:
                    d = b""
                if not d:
                    held = time.monotonic() - socks.pop(s)
                    self.dropped += 1
                    self.longest = max(self.longest, held)
                    s.close()
            self.stop.wait(0.05)
        for s, t in socks.items():
            self.longest = max(self.longest, time.monotonic() - t)
            s.close()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--filter-port", type=int, required=True)
    ap.add_argument("--ca", required=True)
    ap.add_argument("--seconds", type=float, default=20)
    ap.add_argument("--clients", type=int, default=12)
    ap.add_argument("--silent", type=int, default=32)
    ap.add_argument("--probe-interval", type=float, default=0.2)
    ap.add_argument("--probe-timeout", type=float, default=15)
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--webhook-p99", type=float, default=5)
    ap.add_argument("--filter-p99", type=float, default=1)
    ap.add_argument("--silent-held", type=float, default=13)
    a = ap.parse_args()
    ctx = ssl.create_default_context(cafile=a.ca)
    ctx.set_alpn_protocols(["http/1.1"])
    stop = threading.Event()
    probes = {
        "mutate-pods (new connection)": Probe(a, ctx, a.port, "/mutate-pods", REVIEW, False, stop),
        "mutate-pods (keep-alive)": Probe(a, ctx, a.port, "/mutate-pods", REVIEW, True, stop),
        "filter (new connection)": Probe(a, ctx, a.filter_port, "/filter", FILTER, False, stop),
    }
    flooders = [Flooder(a, ctx, i, stop) for i in range(a.clients)]
    silent = Silent(a, stop)
    t0 = time.monotonic()
    for t in [*probes.values(), *flooders, silent]:
        t.start()
    time.sleep(a.seconds)
    stop.set()
    for t in [*probes.values(), *flooders, silent]:
        t.join(a.probe_timeout + 10)
    secs = time.monotonic() - t0
    for name, p in probes.items():
        print(p.summary(name))
    conns = sum(f.conns for f in flooders)
    hs = sum(f.handshakes for f in flooders)
    print(f"flood: {conns} connections in {secs:.1f} s, {hs / secs:.0f} handshakes/s completed; "
          f"silent: {silent.opened} opened, {silent.dropped} dropped by the server, "
          f"longest held {silent.longest:.1f} s")
    if not a.check:
        return 0
    bad = []
    for name, p in probes.items():
        bad += p.violations(name, a.filter_p99 if name.startswith("filter") else a.webhook_p99)
    if a.silent and silent.dropped == 0:
        bad.append("silent: the server dropped no connection that never sent a byte")
    if a.silent and silent.longest >= a.silent_held:
        bad.append(f"silent: a connection that never sent a byte was held {silent.longest:.1f} s "
                   f"(bound {a.silent_held} s)")
    for b in bad:
        print(f"violated: {b}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
