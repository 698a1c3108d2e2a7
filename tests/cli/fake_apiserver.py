"""fake_apiserver.py: a stand-in Kubernetes API server on 127.0.0.1 (plain HTTP) for the plugin's
tests without a cluster. It answers GET requests from a dict of path -> object (the query is
ignored; lists come in one page) and 404 with a Status for anything else, and writes the kubeconfig
that points kubectl-dagsched at it.
"""

import json
import os
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def obj_list(kind, items):
    return {"apiVersion": "v1", "kind": kind, "metadata": {"resourceVersion": "1"}, "items": items}


class FakeAPIServer:
    """routes: path (no query) -> JSON-serialisable object. Start with start(), stop with stop()."""

    def __init__(self, routes):
        self.routes = routes
        self.requests = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):
                path = self.path.split("?", 1)[0]
                outer.requests.append(self.path)
                body, status = outer.routes.get(path), 200
                if body is None:
                    status = 404
                    body = {"kind": "Status", "apiVersion": "v1", "status": "Failure",
                            "reason": "NotFound", "code": 404, "message": path + " not found"}
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args):
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    @property
    def url(self):
        return "http://127.0.0.1:%d" % self.httpd.server_address[1]

    def start(self):
        self.thread.start()
        return self

    def stop(self):
        self.httpd.shutdown()
        self.httpd.server_close()

    def kubeconfig(self, directory, namespace="default"):
        path = os.path.join(directory, "kubeconfig")
        with open(path, "w") as f:
            f.write("apiVersion: v1\nkind: Config\ncurrent-context: fake\n"
                    "clusters:\n- name: fake\n  cluster:\n    server: %s\n"
                    "contexts:\n- name: fake\n  context:\n    cluster: fake\n    user: fake\n"
                    "    namespace: %s\nusers:\n- name: fake\n  user: {}\n" % (self.url, namespace))
        return path
