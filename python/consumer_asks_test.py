#!/usr/bin/env python3
"""How a consumer asks, and what it does with an input that holds no capsule, is judged (the asks
scenario): each planted consumer of planted_consumers.py is caught with its class and rule on the
asks it gets wrong, and on no other; the correct consumer has no finding at all.

Needs $DLCONFORM (the command) and $BRIDGE_PYTHON (the interpreter the bridge is built for)."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import planted_matrix  # noqa: E402
# The old signature's TypeError with copy= or device= asked too.
RETRIES = ("after-type-error,copy=True", "after-type-error,device=cpu")
# Every ask of a producer that exports (the refusing one's after-buffer-error included).
EVERY_ASK = ("plain", "after-type-error", "after-buffer-error", "copy=True", "copy=False",
             "device=cpu") + RETRIES
# planted consumer -> {ask: "class RULE"}; every other ask of ASKS passes with no finding.
EXPECTED = {
    "correct-consumer": {},
    "retry-on-buffer-error": {"after-buffer-error": "retry-after-refusal VER-5"},
    "stream-zero": {ask: "stream-on-cpu STRM-1" for ask in EVERY_ASK},
    "stream-minus-two": {ask: "bad-stream-value STRM-2" for ask in EVERY_ASK},
    "calls-twice": {ask: "second-dlpack-call VER-5" for ask in
                    ("plain", "after-type-error", "copy=True", "copy=False", "device=cpu") +
                    RETRIES},
    "no-max-version": {ask: "no-max-version-asked VER-5" for ask in EVERY_ASK},
    "copy-inverted": {"copy=True": "keyword-not-passed-on STRM-4",
                      "copy=False": "keyword-not-passed-on STRM-4"},
    "takes-any-return": {"bad-input/not-a-capsule": "crash VER-4"},
    "asarray-fallback": {"bad-input/no-dlpack": "no-attribute-error VER-4"},
    "wrong-error-for-none": {"bad-input/no-dlpack": "no-attribute-error VER-4"},
    "no-type-error-fallback": {ask: "no-version-fallback VER-5" for ask in
                               ("after-type-error",) + RETRIES},
    "max-version-as-list": {ask: "malformed-keyword-passed VER-5" for ask in EVERY_ASK},
    "device-as-list": {"device=cpu": "malformed-keyword-passed STRM-3",
                       "after-type-error,device=cpu": "malformed-keyword-passed STRM-3"},
    "device-as-pinned-host": {"device=cpu": "keyword-not-passed-on STRM-3"},
    "any-device-as-cpu": {"device=unknown": "unknown-device-accepted STRM-3"},
    "keeps-keywords-on-retry": {"after-type-error,copy=True": "no-version-fallback VER-5",
                                "after-type-error,device=cpu": "no-version-fallback VER-5"},
    "viewing-consumer": {},
    "ignores-copy": {"copy=True": "keyword-dropped STRM-4", "copy=False": "keyword-dropped STRM-4",
                     "memory/copy=True": "copy-not-made STRM-4"},
    "always-copies": {"memory/default": "import-copied STRM-4",
                      "memory/copy=False": "copy-made STRM-4",
                      "from_capsule/memory/default": "import-copied STRM-4"},
    "copies-by-default": {"memory/default": "buffer-not-reused STRM-4"},
    "heap-used-name": {"used-name": "capsule-misnamed LIFE-1",
                       "from_capsule/used-name": "capsule-misnamed LIFE-1"},
    "clears-destructor-unrenamed": {"used-name": "capsule-not-renamed LIFE-1",
                                    "from_capsule/used-name": "capsule-not-renamed LIFE-1"},
}
# The consumers with a capsule API (from_capsule), and its asks.
CAPSULE_API = ("viewing-consumer", "ignores-copy", "always-copies", "heap-used-name",
               "clears-destructor-unrenamed")
CAPSULE_ASKS = ("from_capsule/memory/default", "from_capsule/bad-input/no-dlpack",
                "from_capsule/bad-input/not-a-capsule", "from_capsule/used-name")
ASKS = ("plain", "after-type-error", "after-type-error,copy=True", "after-type-error,device=cpu",
        "after-buffer-error", "copy=True", "copy=False", "device=cpu", "device=unknown",
        "bad-input/no-dlpack", "bad-input/not-a-capsule", "used-name", "memory/default",
        "memory/copy=True", "memory/copy=False")


def main():
    seen = planted_matrix.run("planted_consumers.py", "asks/*")
    if seen is None:
        return 1
    failures = 0
    for consumer, findings in EXPECTED.items():
        for ask in ASKS + (CAPSULE_ASKS if consumer in CAPSULE_API else ()):
            failures += planted_matrix.checked(f"{consumer} {ask}", findings.get(ask, "none"),
                                               seen.get(f"asks/module/{consumer}@1/{ask}"))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
