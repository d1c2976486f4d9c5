"""pyflakes' verdicts on names, one JSON line per file named on stdin (one path a line).

{"file": PATH, "status": "ok" | "syntax" | "unreadable",
 "refused": [[LINE, NAME, KIND], ...]}  with KIND UndefinedName or UndefinedLocal
(pyflakes' undefined-name and referenced-before-assignment messages; the others,
`undefined name in __all__` included, are left out).
"""
import json
import sys

import pyflakes.api
import pyflakes.messages as m

KINDS = (m.UndefinedName, m.UndefinedLocal)


class Collect:
    def __init__(self):
        self.status = "ok"
        self.refused = []

    def unexpectedError(self, filename, msg):
        self.status = "syntax"

    def syntaxError(self, filename, msg, lineno, offset, text):
        self.status = "syntax"

    def flake(self, message):
        if isinstance(message, KINDS):
            kind = type(message).__name__
            self.refused.append([message.lineno, message.message_args[0], kind])


for path in sys.stdin.read().splitlines():
    with open(path, "rb") as f:
        data = f.read()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        print(json.dumps({"file": path, "status": "unreadable", "refused": []}))
        continue
    r = Collect()
    pyflakes.api.check(text, path, r)
    print(json.dumps({"file": path, "status": r.status, "refused": r.refused}))
