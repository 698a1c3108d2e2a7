#!/usr/bin/env python3
"""deep_pipeline.py: a client that pipelines far more requests than an HTTP server of dagsched
buffers, on loopback only (plain HTTP).

It writes BYTES of pipelined GET requests on one connection (GET PATH, and every EVERY-th one GET
/metrics when EVERY is not 0) without reading, until all are written or the connection takes no
more; then it reads and writes as each becomes possible. Every request must get a 200 answer, in
order (a /metrics answer is told from a /healthz one by its body), with no reset and no early
close. Bounded: at most 30 s without progress.

Prints one line: requests, bytes, bytes written before the first read, answers. Exit 0 when every
request was answered in order, 1 when not, 2 when the client could not be run.

Usage: deep_pipeline.py --port P --path /healthz --bytes 262144 --every 100
"""
import argparse
import select
import socket
import sys


def requests(a):
    out, kinds = [], []
    size = i = 0
    while size < a.bytes:
        path = "/metrics" if a.every and i % a.every == a.every - 1 else a.path
        r = f"GET {path} HTTP/1.1\r\nHost: pipeline\r\n\r\n".encode()
        out.append(r)
        kinds.append(path)
        size += len(r)
        i += 1
    return b"".join(out), kinds


def take(buf, kinds, n):
    """Parse complete answers from buf; returns (answers taken, rest, error or None)."""
    taken = 0
    while True:
        end = buf.find(b"\r\n\r\n")
        if end < 0:
            return taken, buf, None
        head = buf[:end].decode("latin-1")
        if not head.startswith("HTTP/1.1 200 "):
            return taken, buf, f"answer {n + taken}: {head.splitlines()[0]!r}"
        length = None
        for line in head.split("\r\n")[1:]:
            k, _, v = line.partition(":")
            if k.strip().lower() == "content-length":
                length = int(v.strip())
        if length is None:
            return taken, buf, f"answer {n + taken} has no Content-Length"
        if len(buf) < end + 4 + length:
            return taken, buf, None
        body = buf[end + 4:end + 4 + length]
        is_metrics = body.startswith(b"# HELP")
        if is_metrics != (kinds[n + taken] == "/metrics"):
            return taken, buf, f"answer {n + taken} is not the answer to {kinds[n + taken]}"
        buf = buf[end + 4 + length:]
        taken += 1


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--path", default="/healthz")
    p.add_argument("--bytes", type=int, default=256 * 1024)
    p.add_argument("--every", type=int, default=0)
    a = p.parse_args()
    data, kinds = requests(a)
    try:
        s = socket.create_connection(("127.0.0.1", a.port), timeout=10)
    except OSError as e:
        print(f"cannot connect: {e}")
        return 2
    s.setblocking(False)
    sent = before_read = answered = 0
    reading = False
    buf = b""
    error = None
    try:
        while answered < len(kinds):
            if sent < len(data):
                try:
                    n = s.send(data[sent:])
                except BlockingIOError:
                    n = 0
                sent += n
                if not reading:
                    before_read = sent
                    if n > 0:
                        continue
            reading = True
            want_w = [s] if sent < len(data) else []
            r, w, _ = select.select([s], want_w, [], 30)
            if not r and not w:
                error = "no progress in 30 s"
                break
            if not r:
                continue
            try:
                chunk = s.recv(1 << 16)
            except BlockingIOError:
                continue
            if not chunk:
                error = "closed by the server"
                break
            buf += chunk
            n, buf, error = take(buf, kinds, answered)
            answered += n
            if error:
                break
    except OSError as e:
        error = str(e)
    finally:
        s.close()
    print(f"{len(kinds)} requests, {len(data)} bytes, {before_read} written before the first "
          f"read, {answered} answered" + (f"; {error}" if error else ""))
    return 0 if answered == len(kinds) and not error else 1


if __name__ == "__main__":
    sys.exit(main())
