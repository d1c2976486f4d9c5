"""Serves a folder over HTTP on 127.0.0.1 for the browser test and benchmark
(scripts/browser-test.sh, scripts/bench-browser.sh): WebAssembly, JavaScript and GGUF
files with their MIME types, no request log.

    python3 scripts/serve-static.py DIR PORT
"""
import functools
import http.server
import sys


class Handler(http.server.SimpleHTTPRequestHandler):
    extensions_map = {**http.server.SimpleHTTPRequestHandler.extensions_map,
                      ".wasm": "application/wasm", ".js": "text/javascript",
                      ".gguf": "application/octet-stream"}

    def log_message(self, *args):
        pass


if __name__ == "__main__":
    directory, port = sys.argv[1], int(sys.argv[2])
    handler = functools.partial(Handler, directory=directory)
    http.server.ThreadingHTTPServer(("127.0.0.1", port), handler).serve_forever()
