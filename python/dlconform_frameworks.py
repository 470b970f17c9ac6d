#!/usr/bin/env python3
"""Real frameworks in the dlconform matrix: runs every framework of one environment in every role
it has, and prints one record per case for `dlconform matrix --framework ENV`.

  dlconform_frameworks.py --env NAME [--producers DIR] [--timeout S] [--jobs N] [--list]

Needs the _dlconform bridge on PYTHONPATH (the CLI sets it). This driver only runs frameworks and
hands what it observed to the bridge, whose judge (harness/judge, the one the matrix and the
fuzzers use) gives every verdict: a defect has the same class and rule here as anywhere else.
Cases run in forked workers; a framework that crashes yields a crash verdict for that case (named
by the guard arena when it faulted in guarded memory), not the end of the run.

Scenarios (case ids, each after SCENARIO/ENV/):
  framework/F@V/dlconform-consumer@v1.3/T   F exports T (__dlpack__, or its own to_dlpack); the
      bridge imports it as the spec says and checks it against what F says T is (VER-4, VER-1,
      FLAG-1b, FLAG-2, LAY-5, the validator, dtype, shape, every value); F's deleter must release
      the array (LIFE-5: F's reference count is back where it was).
  framework/F@V/dlconform-consumer@v1.3/exported-3-times, .../source-deleted   three capsules of
      one array consumed last first (LIFE-3), or the array deleted before its capsule is read
      (LIFE-6).
  framework/P@H/F@V/T   a mock producer P built against header H hands catalogue tensor T (in
      guarded memory, with the deleter ledger) to F's importer: F must import the right values or
      refuse cleanly, rename the capsule (LIFE-1), call the deleter once when its array dies
      (LIFE-3); an invalid tensor must be refused, a valid one inside F's profile imported.
  pairs/A@V/B@W/T      A's export into B's import: values equal, the deleter runs once (LIFE-3),
      A's array released (LIFE-5). Misaligned NumPy views (8, 4, 2, 1-byte aligned) go to every
      consumer (LAY-9).
  framework/F@V/dlconform-consumer@v1.3/narrow/T, .../unexpressible/T   F's narrow floats (DT-1,
      DT-3), and arrays DLPack cannot express (a BufferError, or read right).
  negotiation/F@V/ASK  what F.__dlpack__ answers for max_version None, 0.8, 1.0, 1.3, 2.0 and a
      bare int, for copy=True/False (judged by memory too), dl_device=(1, 0) and stream None, 1
      and -1 (VER-4, STRM-1, STRM-3, STRM-4); F's own exporters handed None; read-only/ASK, a
      read-only array asked by an older caller.
  xapi/F@V/CHECK       XAPI-1 to XAPI-5 on __dlpack_c_exchange_api__, where F has it; read-only,
      the table of a read-only array's type (FLAG-1b). Both in dlconform_negotiation.py.
  asks/F@V/ASK         how F's from_dlpack calls a recording producer (VER-5, STRM-1, STRM-3,
      STRM-4), whether its import shares memory (memory/*), what it does with inputs that hold no
      capsule (bad-input/*); immutable/A@V/...: FLAG-1b on A's immutable arrays and a write through every
      consumer's import of them (FLAG-1). Both in dlconform_asks.py.
  xapi-consumer/F@V/CHECK  how F's from_dlpack uses the C exchange API of planted arrays: the
      table of the type, each table given its own type's objects, nothing read through a
      borrowed DLTensor once its array is gone (XAPI-1, XAPI-5): dlconform_xapi_consumers.py.

With --module NAME[=PROFILE] or --adapter FILE.py, the libraries named instead of the
environment's frameworks (ModuleAdapter, or the file's adapters), NumPy beside them as a pair
partner. Every framework is an adapter of the interface in dlconform_adapter.py: the built-ins are
the files of adapters/.

Records (tab-separated): `case` id scenario producer producer-header consumer consumer-header
tensor verdict class rule severity detail; `party` label role profile; `note` text; `fatal` text
(nothing can be judged: the command prints it and exits 1)."""
import argparse
import fnmatch
import gc
import os
import sys
import time
import types

import _dlconform as bridge
from dlconform_adapter import DTYPES, PROFILE_NAMES, make_array
from dlconform_asks import has_read_only, may_be_immutable, plan_consumer_calls
from dlconform_device_pairs import plan_device_pairs
from dlconform_devices import on_device, plan_device_cases
from dlconform_imports import (expected_of, framework_imports, late_refusal, logical,
                               used_capsule)
from dlconform_negotiation import (NEGOTIATION, STREAM_ASKS, capsule_names, deleter_off_thread,
                                   device_answer, device_asks, dropped_during_exception,
                                   exporter_bad_input, imported_device_answer, negotiation,
                                   reuses_for_copy_none, xapi, xapi_read_only,
                                   xapi_unexpressible)
from dlconform_parties import environment_frameworks, libraries_under_test
from dlconform_workers import (Case, HeldCapsule, adapter_raised, ask_capsule, capsule_finding,
                               clean, device_finding, outcome, released, run_all, takes_layout)
from dlconform_xapi_consumers import plan_xapi_consumer_cases


# --- the tensors a framework makes ---------------------------------------------------------------

def constructions(fw):
    """(tensor id, rule, builder) for every tensor fw can make."""
    np = fw.np
    out = []

    def base(dtype, shape):
        return make_array(np, dtype, shape)

    out.append(("f32_2x3", "LAY-1", lambda: fw.from_np(base("float32", (2, 3)))))
    for kind, shape, rule in (("T", (3, 4), "LAY-4"), ("step", (4, 6), "LAY-4"),
                              ("reversed", (8,), "LAY-8"), ("offset", (16,), "LAY-4"),
                              ("broadcast", (3,), "LAY-8"), ("read_only", (4,), "FLAG-1")):
        if kind not in fw.views:
            continue
        out.append((f"f32_{kind}", rule,
                    lambda kind=kind, shape=shape: fw.view(fw.from_np(base("float32", shape)), kind)))
    out.append(("f32_scalar", "LAY-6", lambda: fw.from_np(base("float32", ()))))
    out.append(("f32_zero_size", "LAY-7", lambda: fw.from_np(np.zeros((0, 4), "float32"))))
    for dtype in fw.dtypes:
        # A party is judged by the header it declares: one from before kDLBool (v0.8), MXNet's
        # 0.2, has no way to say bool, so no bool is asked of it (MXNet's own convention then
        # was a 1-bit unsigned integer).
        if dtype == "bool" and tuple(fw.header()) < (0, 8):
            continue
        if dtype != "float32":
            out.append((f"{PROFILE_NAMES[dtype]}_7", "DT-1",
                        lambda dtype=dtype: fw.from_np(base(dtype, (7,)))))
    if fw.sample != ("float32", (2,)):  # a narrow surface: the array its probe found it makes
        dtype, shape = fw.sample
        out.append((f"sample_{PROFILE_NAMES[dtype]}_{'x'.join(map(str, shape))}", "LAY-1",
                    lambda: fw.from_np(base(dtype, shape))))
    return out


# --- case bodies (run in the worker) -------------------------------------------------------------

SHOULD_REFUSE = ("the Array API's __dlpack__: \"Implementations should raise BufferError when "
                 "the data cannot be exported as DLPack\"")


def framework_exports(fw, build, api, unexpressible=None, known=None):
    """fw exports a tensor; the bridge imports and judges it, then checks fw released it. With
    `unexpressible` (why DLPack cannot express the array, or why fw may not export it), a
    BufferError is the right answer; an export is judged by what a consumer reads of it: `known`
    when given (what the tensor must read as), else what fw says it holds."""
    def body():
        try:
            value = build()
        except Exception as e:
            if unexpressible is None:
                raise
            return ("skip", "", "", "", f"n/a: cannot make it here: {type(e).__name__}: "
                    f"{clean(e)[:120]}")
        try:
            expected = known if known is not None else expected_of(fw, value)
        except Exception:
            if unexpressible is None:
                raise
            expected = None  # no DLPack dtype to compare with
        before = sys.getrefcount(value)
        exporter = fw.legacy_exports[api] if api else None
        try:
            obj = exporter(value) if exporter else fw.export(value)
            seen = bridge.consume(obj, max_version=(1, 3), expected=expected, producer=fw.label)
        except BufferError as e:
            if unexpressible is not None:
                return ("pass", "", "", "", f"BufferError: {clean(e)[:160]} ({unexpressible})")
            return ("skip", "", "", "", f"producer refused: BufferError: {e}")
        except TypeError as e:
            if unexpressible is None:
                return ("skip", "", "", "", f"producer refused: TypeError: {e}")
            return outcome(bridge.make_finding(
                "refusal-not-buffer-error", "VER-4", f"{fw.label} refused to export "
                f"{unexpressible} with TypeError ({SHOULD_REFUSE}): {clean(e)[:160]}"), "")
        except Exception as e:  # a refusal all the same, with another type than the spec's
            what = f" {unexpressible}" if unexpressible else ""
            return outcome(bridge.make_finding("refusal-not-buffer-error", "VER-4",
                                               f"{fw.label} refused to export{what} with "
                                               f"{type(e).__name__} ({SHOULD_REFUSE}): {e}"), "")
        del obj
        if expected is None and not seen.get("finding"):
            return outcome(bridge.make_finding(
                "producer-violation", "DT-1", f"expected {fw.label} to refuse exporting "
                f"{unexpressible}, which no DLPack dtype expresses, but it exported a "
                f"{seen['capsule']} capsule of dtype {tuple(seen['dtype'])}"), "")
        if sys.getrefcount(value) > before:
            gc.collect()
        if seen.get("finding"):
            return outcome(seen["finding"], "")
        if sys.getrefcount(value) > before:
            return outcome(bridge.make_finding(
                "deleter-leaks", "LIFE-5",
                f"expected {fw.label}'s deleter to release the exported array but its reference "
                f"count stayed at {sys.getrefcount(value)} (was {before})"), "")
        how = "legacy capsule after TypeError" if seen["fell_back"] else seen["capsule"]
        if seen["capsule"] == "dltensor_versioned":
            how += f" {seen['version'][0]}.{seen['version'][1]}"
        return ("pass", "", "", "", f"{how}: shape {list(seen['shape'])}, strides "
                f"{'NULL' if seen['strides'] is None else list(seen['strides'])}, byte_offset "
                f"{seen['byte_offset']}, {seen['elements']} values as {fw.label} has them; "
                f"deleter called {seen['deleter_calls']} time(s)")
    return body


def narrow_float_codes(np, dtype):
    """Eight bit patterns of a narrow float dtype (code, bits, lanes), one element each, and the
    expectation of a tensor holding them: sub-byte elements packed lowest bits first (DT-3)."""
    width = dtype[1] * dtype[2]
    codes = (np.arange(8) % (1 << min(width, 8))).astype("uint8")
    if width >= 8:
        stored = codes.tobytes()
    else:
        bits = 0
        for i, c in enumerate(codes):
            bits |= int(c) << (i * width)
        stored = bits.to_bytes((8 * width + 7) // 8, "little")
    expected = {"shape": (8,), "dtype": dtype, "digest": bridge.digest(stored),
                "elements": 8 if width >= 8 else len(stored), "read_only": False}
    if width < 8:  # what a consumer reads of elements stored one per byte (DT-3, not LAY-4)
        expected.update(encoding="one element per byte, not packed",
                        encoding_digest=bridge.digest(codes.tobytes()[:len(stored)]))
    return codes, expected


EXPORT_LIFETIMES = {"exported-3-times": "LIFE-3", "source-deleted": "LIFE-6"}


def export_lifetime(fw, build, how):
    """fw's array exported out of the usual order. exported-3-times: three capsules of one array
    at once, consumed last first: each imports on its own and is deleted once (LIFE-3), and the
    array is released after the last (LIFE-5). source-deleted: the array is deleted before its
    capsule is consumed: the data stays valid until the deleter runs (LIFE-6). An array on a
    device is consumed on its device, its layout and deleter judged, its values not read."""
    def body():
        value = build()
        expected = expected_of(fw, value)
        device = tuple(fw.device)
        if on_device(fw):
            expected = {"shape": expected["shape"], "dtype": expected["dtype"]}
        before = sys.getrefcount(value)
        try:
            capsules = [ask_capsule(fw.export(value))
                        for _ in range(3 if how == "exported-3-times" else 1)]
        except Exception as e:
            return ("skip", "", "", "", f"producer refused: {type(e).__name__}: {clean(e)[:160]}")
        if how == "source-deleted":
            del value
            gc.collect()
        for capsule in reversed(capsules):
            seen = bridge.consume(HeldCapsule(capsule), max_version=(1, 3), expected=expected,
                                  producer=fw.label, device=device)
            finding = seen.get("finding")
            if finding and how == "source-deleted" and finding[0] == "wrong-data":
                finding = bridge.make_finding(
                    "producer-violation", "LIFE-6", f"expected {fw.label}'s data to stay valid "
                    f"until the deleter runs, with the source array deleted first, but found: "
                    f"{finding[3]}")
            if finding:
                return outcome(finding, "")
        del capsules, capsule
        read = "read right" if not on_device(fw) else f"taken on {device}, its layout right"
        if how == "source-deleted":
            count = (f"{seen['elements']} values" if not on_device(fw) else
                     "values not read on the host")
            return ("pass", "", "", "", f"the source array deleted first; its capsule {read} "
                    f"({count}), deleter called {seen['deleter_calls']} time(s)")
        if not released(value, before):
            return outcome(bridge.make_finding(
                "deleter-leaks", "LIFE-5", f"expected {fw.label}'s array released after its three "
                f"capsules were consumed but it kept {sys.getrefcount(value) - before} more "
                f"reference(s)"), "")
        return ("pass", "", "", "", f"three capsules of one array, consumed last first, each "
                f"{read} and deleted once; the array released")
    return body


class CapsuleHolder:
    """A capsule from a capsule-only exporter (MXNet's to_dlpack_for_read) in the object form
    from_dlpack takes: the old __dlpack__ signature, so a consumer falls back (VER-5)."""
    def __init__(self, capsule):
        self.capsule = capsule

    def __dlpack__(self, stream=None):
        capsule, self.capsule = self.capsule, None
        return capsule

    def __dlpack_device__(self):
        return (1, 0)


class Proxy:
    """A's array as B sees it: every capsule B asks for has its deleter interposed."""
    def __init__(self, fw, value):
        self.fw, self.value, self.handles, self.kinds, self.flags = fw, value, [], [], []
        self.asks, self.raised = [], None  # what B asked; what A raised, if it did
        self.fault = None  # A's own call failed B: it raised, or answered no capsule
        self.device_note = ""  # A's malformed device answer, which B may or may not mind

    def __dlpack__(self, **kwargs):
        self.asks.append(kwargs)
        try:
            capsule = self.value.__dlpack__(**kwargs)
        except Exception as e:
            self.raised = (type(e), clean(e)[:200])  # not e: its traceback holds this proxy
            raise
        self.fault = self.fault or capsule_finding(self.fw.label, capsule, kwargs)
        if self.fault is not None:
            return capsule  # what B does with it is B's; the finding is A's
        self.kinds.append(bridge.capsule_kind(capsule))
        self.flags.append(bridge.capsule_flags(capsule))
        handle, _ = bridge.interpose(capsule)
        self.handles.append(handle)
        return capsule

    def __dlpack_device__(self):
        try:
            answer = self.value.__dlpack_device__()
        except Exception as e:
            self.fault = self.fault or device_finding(self.fw.label, error=e)
            raise
        malformed = device_finding(self.fw.label, answer)
        if malformed is not None:  # B's failure need not be for it (warp on a 0-d array)
            self.device_note = f" ({self.fw.label}'s __dlpack_device__() answered {answer!r})"
        return answer


def misread_finding(a, b, want, got, crossed):
    """B read other values than A holds: wrong-data, LAY-5 when they are row-major memory read
    in column-major order (NULL strides misread, as the judge names the same reading of a mock's
    tensor), else LAY-4. The host pairs and the device pairs name it so alike."""
    column_major = want.reshape(-1).reshape(want.shape, order="F")
    if want.ndim > 1 and got.shape == want.shape and \
            got.tobytes() == a.np.ascontiguousarray(column_major).tobytes():
        return bridge.make_finding(
            "wrong-data", "LAY-5", f"expected {b.label} to read the values {a.label} holds (shape "
            f"{want.shape}) but found them read in column-major order, as if NULL strides were "
            f"not compact row-major ({crossed})")
    return bridge.make_finding(
        "wrong-data", "LAY-4", f"expected {b.label} to read the values {a.label} holds (shape "
        f"{want.shape}) but found shape {got.shape} with other values ({crossed})")


def pair(a, build, b, rule, tensor):
    """A's export into B's import: values equal, deleter once, A's array released. The detail
    says what crossed (legacy or versioned M.m) and, for NumPy's arrays, whether B copied."""
    def body():
        value = build()
        want = logical(a.np, a.to_np(value)).copy()
        before = sys.getrefcount(value)
        proxy = Proxy(a, value) if a.dunder else None
        error, handles, kinds = None, [], []
        if proxy is not None:
            handles, kinds = proxy.handles, proxy.kinds
        try:
            if proxy is None:  # a capsule-only exporter: its capsule, as a user would wrap it
                capsule = a.export(value)
                kinds.append(bridge.capsule_kind(capsule))
                handles.append(bridge.interpose(capsule)[0])
                result = b.import_(CapsuleHolder(capsule))
                del capsule
            else:
                result = b.import_(proxy)
        except Exception as e:
            if adapter_raised(e, (b,)):
                raise  # the adapter's own exception: its plugin-error, never a refusal
            error = f"{type(e).__name__}: {clean(e)[:200]}"
        if error is not None:
            raised, asks, fault = ((proxy.raised, proxy.asks, proxy.fault) if proxy is not None
                                   else (None, [], None))
            error += proxy.device_note if proxy is not None else ""
            del proxy  # it holds A's array
            # Dropped unconsumed, the capsule goes through A's destructor, which may bypass the
            # struct's deleter (JAX's does): A's array released is the check, not the count.
            deleter_calls_settled(handles, wait=False)
            leaked = 0 if released(value, before) else sys.getrefcount(value) - before
            return pair_refused(a, b, leaked, kinds, error, raised, asks, fault)
        crossed = kinds[-1] if kinds else "no capsule"
        try:
            got = logical(b.np, b.to_np(result))
        except Exception as e:  # it imported what it cannot read back itself
            if adapter_raised(e, (b,)):
                raise
            return late_refusal(b.label, rule, takes_layout(b, tensor), f"what it imported from "
                                f"{a.label} ({crossed})", f"{type(e).__name__}: {clean(e)[:200]}")
        if got.shape != want.shape or DTYPES.get(got.dtype.name) != DTYPES.get(want.dtype.name):
            return outcome(bridge.make_finding(
                "wrong-metadata", "LAY-1", f"expected {b.label} to see shape {want.shape} and "
                f"dtype {want.dtype} as {a.label} has them but found {got.shape} and {got.dtype} "
                f"({crossed})"), "")
        if got.tobytes() != want.tobytes():
            return outcome(misread_finding(a, b, want, got, crossed), "")
        sharing = ""
        if (a.name == "numpy" and isinstance(value, a.np.ndarray) and value.flags.writeable
                and value.size > 0):
            before_change = got.tobytes()  # got may be a view of A's memory itself
            value.flat[0] = not value.flat[0] if value.dtype == bool else value.flat[0] + 1
            again = logical(b.np, b.to_np(result)).tobytes()
            sharing = ", zero-copy" if again != before_change else ", copied"
        del result, got
        calls = deleter_calls_settled(handles)
        if calls and calls[-1] != 1:
            return outcome(bridge.make_finding(
                "deleter-never-called" if calls[-1] == 0 else "deleter-called-twice", "LIFE-3",
                f"expected {b.label} to call {a.label}'s deleter once when its array died but "
                f"found {calls[-1]} call(s)"), "")
        if proxy is not None:
            del proxy
        if not released(value, before):
            return outcome(bridge.make_finding(
                "deleter-leaks", "LIFE-5", f"expected {a.label}'s array released once {b.label}'s "
                f"array died but its reference count stayed at {sys.getrefcount(value)}"), "")
        return ("pass", "", "", "", f"{crossed}: equal values{sharing}, deleter called once")
    return body


def pair_refused(a, b, leaked, kinds, error, raised, asks, fault=None):
    """Who refused, and whether the rules allow it. A capsule B dropped unconsumed is deleted by
    A's capsule destructor, which may bypass the struct's deleter field (JAX's does), so the
    check is that A's array was released (`leaked`: references it still has too many). `fault`:
    A's own call failed B (it raised in __dlpack_device__, or __dlpack__ gave no capsule)."""
    if leaked > 0:
        return outcome(bridge.make_finding(
            "deleter-leaks", "LIFE-5", f"expected {a.label}'s array released after {b.label} "
            f"refused it ({error}) but it kept {leaked} more reference(s)"), "")
    if fault is not None:
        cls, rule, severity, words = fault
        return outcome((cls, rule, severity, f"{words}; {b.label} failed on it: {error}"), "")
    last = asks[-1] if asks else {}
    if raised is not None and last.get("stream") is not None and tuple(a.device)[0] == 1:
        # B asked what no CPU producer may serve (STRM-1: only None on the CPU): A may refuse it
        # with any exception ("incorrect arguments"), and the failure is B's.
        return outcome(bridge.make_finding(
            "stream-on-cpu", "STRM-1", f"expected {b.label} to pass stream=None to {a.label}, a "
            f"CPU producer, but it passed stream={last['stream']!r}, which {a.label} refused: "
            f"{error}"), "")
    if raised is not None and issubclass(raised[0], TypeError):
        if "stream" in last and ("max_version" not in last or "stream" in raised[1]):
            # VER-4, Signature: B passed the stream every exporter takes; A's signature lacks it
            return outcome(bridge.make_finding(
                "no-stream-keyword", "VER-4", f"expected {a.label}'s __dlpack__ to take the "
                f"stream={last['stream']!r} {b.label} passed (a keyword since the Array API "
                f"2021.12) but found TypeError: {raised[1]}"), "")
        if asks and asks[-1].get("max_version") is not None:  # VER-5: ask again without it
            return outcome(bridge.make_finding(
                "no-version-fallback", "VER-5", f"expected {b.label} to call __dlpack__() again "
                f"without max_version after {a.label}'s TypeError but it gave up: {error}"), "")
        cause = (f" (the cause: {a.label}'s __dlpack__ takes no stream keyword, its "
                 f"negotiation's no-stream-keyword)" if "stream" in raised[1] else "")
        return ("pass", "", "", "", f"{a.label} raised TypeError: {error}{cause}")
    if raised is not None and not issubclass(raised[0], BufferError):
        return outcome(bridge.make_finding(
            "refusal-not-buffer-error", "VER-4", f"{a.label} refused to export with "
            f"{raised[0].__name__} (the spec asks for BufferError): {raised[1]}"), "")
    if raised is not None:
        return ("pass", "", "", "", f"{a.label} refused to export: {error}")
    if kinds and kinds[-1] == "legacy" and asks and asks[-1].get("max_version") is not None:
        # VER-4: a legacy producer answers a versioned ask with a legacy capsule; the consumer
        # must check what it got back and take it.
        return outcome(bridge.make_finding(
            "rejected-valid", "VER-4", f"expected {b.label}, which asked for max_version "
            f"{asks[-1]['max_version']}, to take the legacy capsule {a.label} answered with, but it "
            f"refused it: {error}"), "")
    return ("pass", "", "", "", f"{b.label} refused it ({kinds[-1] if kinds else 'no capsule'}): "
            f"{error}")


def deleter_calls_settled(handles, wait=True):
    """The deleter calls of each interposed struct once the garbage is collected; forgets them.
    wait=False: no half second for a late deleter, where the count is not judged."""
    calls = [bridge.deleter_calls(h) for h in handles]
    if calls and calls[-1] == 0:
        gc.collect()
        calls = [bridge.deleter_calls(h) for h in handles]
    # Some runtimes (JAX's) release an imported buffer on a thread of their own, a moment after
    # the array dies: a deleter that comes within half a second is not a missing one.
    deadline = time.monotonic() + (0.5 if wait else 0)
    while calls and calls[-1] == 0 and time.monotonic() < deadline:
        time.sleep(0.01)
        calls = [bridge.deleter_calls(h) for h in handles]
    for h in handles:
        bridge.forget(h)
    return calls


# --- the plan -----------------------------------------------------------------------------------

MOCK_PRODUCERS = [("legacy-producer", "v0.6"), ("legacy-producer", "v0.8"),
                  ("versioned-producer", "v1.0"), ("versioned-producer", "v1.3"),
                  ("future-major-producer", "v1.3")]
VIEW_PRODUCERS = {("legacy-producer", "v0.6"), ("versioned-producer", "v1.3")}
PAIR_TENSORS = ("f32_2x3", "f32_T", "f32_step", "f32_reversed", "f32_offset", "f32_broadcast",
                "f32_read_only", "f32_scalar", "f32_zero_size", "i64_7", "bool_7")
DEVICE_TENSORS = ("device_cuda", "device_opencl")
# Asked of a read-only array, where a framework has writable ones too (P-59): READ_ONLY lives in
# the versioned struct only, so a caller of an older major gets a legacy capsule or BufferError.
READ_ONLY_ASKS = ("max_version=none", "max_version=0.8")
VERSIONED_CAPSULE_TENSORS = ("f32_8x8", "f64_8x4_transposed", "i16_128_byte_offset")


def odd_offset(np, dtype):
    """A view one element into a fresh array: its data pointer is only itemsize-aligned."""
    return make_array(np, dtype, (9,))[1:]


def misaligned(np, alignment):
    """A uint8 buffer viewed as float32 at an offset: only `alignment`-byte aligned (LAY-9)."""
    raw = np.zeros(80, "uint8")
    base = raw.ctypes.data
    start = (-base) % 16 + alignment  # 16-aligned, then off by `alignment`
    view = raw[start:start + 32].view("float32")
    view[:] = np.arange(8, dtype="float32")
    return view


def plan(frameworks, producers_dir, env):
    cases = []
    catalogue = bridge.tensor_names()

    def producer_path_of(producer, header):  # a mock producer plugin, None when not built
        path = os.path.join(producers_dir, f"dlc-{producer}-{header.replace('.', '_')}.so")
        return path if os.path.exists(path) else None

    def plugin_path_of(plugin, header):  # beside the producers (installed), consumers/ or cuda/
        stem = f"dlc-{plugin}-{header.replace('.', '_')}.so"
        for folder in (producers_dir, os.path.join(os.path.dirname(producers_dir), "consumers"),
                       os.path.join(os.path.dirname(producers_dir), "cuda")):
            if os.path.exists(os.path.join(folder, stem)):
                return os.path.join(folder, stem)
        return None

    for fw in frameworks:
        if fw.partner_only:
            continue
        own = fw.label
        # 1. As producer: every tensor it can make, through __dlpack__ and its own exporters
        #    (a device framework's exports are dlconform_devices.py's).
        for tensor, rule, build in ([] if on_device(fw) else constructions(fw)):
            apis = ([None] if fw.dunder else []) + sorted(fw.legacy_exports)
            for api in apis:
                name = tensor if api is None else f"{api}/{tensor}"
                cases.append(Case(f"framework/{env}/{own}/dlconform-consumer@v1.3/{name}", "framework",
                                  fw.name.split(".")[0], own, "dlconform-consumer", "v1.3", name,
                                  framework_exports(fw, build, api), rule, (fw,)))
        # Arrays DLPack cannot express: refused with BufferError, or read right.
        if fw.dunder and not on_device(fw):
            for name, (why, build) in sorted(fw.unexpressible().items()):
                cases.append(Case(f"framework/{env}/{own}/dlconform-consumer@v1.3/unexpressible/{name}",
                                  "framework", fw.name.split(".")[0], own, "dlconform-consumer",
                                  "v1.3", f"unexpressible/{name}",
                                  framework_exports(fw, build, None, why), "DT-1", (fw,)))
        # Narrow floats (DLPack 1.1's float8, float6, float4) it makes: exported with their code
        # and bits, or refused with BufferError (its DLPack may predate them).
        if not on_device(fw):
            apis = ([None] if fw.dunder else []) + sorted(fw.legacy_exports)
            for name, (dtype, build) in (sorted(fw.narrow_floats().items()) if apis else ()):
                codes, known = narrow_float_codes(fw.np, dtype)
                why = f"a {name} array, DLPack 1.1's code {dtype[0]}"
                cases.append(Case(f"framework/{env}/{own}/dlconform-consumer@v1.3/narrow/{name}",
                                  "framework", fw.name.split(".")[0], own, "dlconform-consumer",
                                  "v1.3", f"narrow/{name}",
                                  framework_exports(fw, lambda build=build, codes=codes:
                                                    build(codes), apis[0], why, known),
                                  "DT-1", (fw,)))
        # Out of the usual order: several capsules of one array, the source deleted first.
        if fw.dunder:
            build = next(b for t, _, b in constructions(fw) if t == "f32_2x3")
            for how, rule in EXPORT_LIFETIMES.items():
                cases.append(Case(f"framework/{env}/{own}/dlconform-consumer@v1.3/{how}",
                                  "framework", fw.name.split(".")[0], own, "dlconform-consumer",
                                  "v1.3", how, export_lifetime(fw, build, how), rule, (fw,)))
        # 2. As consumer: the mock producers' tensors through the catalogue.
        profile = fw.profile()
        for producer, header in (MOCK_PRODUCERS if fw.imports else ()):
            path = producer_path_of(producer, header)
            if path is None:
                continue
            # A dtype the producer's header has no code for is never asked of it (kDLBool before
            # 0.8), as the matrix's plan leaves it out; the test layouts are made on purpose.
            major, minor = (int(n) for n in header[1:].split("."))
            known_code = bridge.max_known_code(major, minor)
            for t in catalogue:
                if t["dtype"][0] > known_code and not t["test_layout"]:
                    continue
                # Host tensors, and CUDA and OpenCL tensors no CPU build can place: refused
                # without a read of their data (DEV-3) and with the capsule left to its producer
                # (LIFE-1).
                device_case = t["name"] in DEVICE_TENSORS and fw.device_tensor_cases
                if (t["device"] != 1 and not device_case) or \
                        (t["generated"] and (producer, header) not in VIEW_PRODUCERS):
                    continue
                cases.append(Case(f"framework/{env}/{producer}@{header}/{own}/{t['name']}", "framework",
                                  producer, header, fw.name.split(".")[0], own, t["name"],
                                  framework_imports(fw, path, t, profile), t["rule"],
                                  (fw,)))
                if t["generated"]:
                    continue
                # Its capsule-only importers: legacy capsules (where from_dlpack is another path:
                # a library whose arrays export, or whose from_dlpack asks an object; MXNet's
                # only importer is its capsule API), and what each does with a versioned capsule.
                for api in sorted(fw.capsule_imports):
                    if (fw.dunder or fw.asks) and header in ("v0.6", "v0.8"):
                        cases.append(Case(f"framework/{env}/{producer}@{header}/{own}/{api}/{t['name']}",
                                          "framework", producer, header, fw.name.split(".")[0],
                                          own, f"{api}/{t['name']}",
                                          framework_imports(fw, path, t, profile, api), t["rule"],
                                          (fw,)))
                    if header == "v1.3" and producer == "versioned-producer" and \
                            t["name"] in VERSIONED_CAPSULE_TENSORS:
                        name = f"{api}/versioned-capsule/{t['name']}"
                        cases.append(Case(f"framework/{env}/{producer}@{header}/{own}/{name}",
                                          "framework", producer, header, fw.name.split(".")[0],
                                          own, name,
                                          framework_imports(fw, path, t, profile, api, True),
                                          "LAY-3", (fw,)))
        # A capsule consumed once, handed again: through from_dlpack and each capsule API.
        path = producer_path_of("versioned-producer", "v1.3")
        if fw.imports and path is not None and not on_device(fw):
            for api in [None] + sorted(fw.capsule_imports):
                for kind in ("legacy", "versioned"):
                    name = f"used-capsule/{kind}" if api is None else f"{api}/used-capsule/{kind}"
                    cases.append(Case(f"framework/{env}/versioned-producer@v1.3/{own}/{name}",
                                      "framework", "versioned-producer", "v1.3",
                                      fw.name.split(".")[0], own, name,
                                      used_capsule(fw, path, kind == "versioned", api), "LIFE-8",
                                      (fw,)))
        # 3. Negotiation, and the C exchange API where the type has one (a device framework's
        #    dl_device asks are dlconform_devices.py's).
        if fw.dunder:
            for label, ask in NEGOTIATION:
                if on_device(fw) and (label.startswith("dl_device=cpu") or label in STREAM_ASKS
                                      or "," in label):
                    continue  # a device framework's are dlconform_devices.py's (STRM-2)
                cases.append(Case(f"negotiation/{env}/{own}/{label}", "negotiation",
                                  fw.name.split(".")[0], own, "dlconform-caller", "v1.3", label,
                                  negotiation(fw, ask), "VER-4", (fw,)))
            if may_be_immutable(fw) and not fw.immutable and not on_device(fw):
                for label in READ_ONLY_ASKS:  # a legacy caller asking for read-only data
                    cases.append(Case(f"negotiation/{env}/{own}/read-only/{label}",
                                      "negotiation", fw.name.split(".")[0], own,
                                      "dlconform-caller", "v1.3", f"read-only/{label}",
                                      negotiation(fw, dict(NEGOTIATION)[label], read_only=True),
                                      "VER-4", (fw,)))
            cases.append(Case(f"negotiation/{env}/{own}/dropped-during-exception", "negotiation",
                              fw.name.split(".")[0], own, "dlconform-caller", "v1.3",
                              "dropped-during-exception", dropped_during_exception(fw), "LIFE-2",
                              (fw,)))
            cases.append(Case(f"negotiation/{env}/{own}/deleter-off-thread", "negotiation",
                              fw.name.split(".")[0], own, "dlconform-caller", "v1.3",
                              "deleter-off-thread", deleter_off_thread(fw), "LIFE-7", (fw,)))
            cases.append(Case(f"negotiation/{env}/{own}/capsule-names", "negotiation",
                              fw.name.split(".")[0], own, "dlconform-caller", "v1.3",
                              "capsule-names", capsule_names(fw), "LIFE-1", (fw,)))
            cases.append(Case(f"negotiation/{env}/{own}/copy=None/reuse", "negotiation",
                              fw.name.split(".")[0], own, "dlconform-caller", "v1.3",
                              "copy=None/reuse", reuses_for_copy_none(fw), "STRM-4", (fw,)))
            for suffix, build in device_asks(fw, not on_device(fw)):
                cases.append(Case(f"negotiation/{env}/{own}/__dlpack_device__{suffix}",
                                  "negotiation", fw.name.split(".")[0], own, "dlconform-caller",
                                  "v1.3", f"__dlpack_device__{suffix}", device_answer(fw, build),
                                  "DEV-1" if on_device(fw) else "DEV-2", (fw,)))
        elif fw.imports and not on_device(fw):  # an importer whose arrays export nothing
            cases.append(Case(f"negotiation/{env}/{own}/__dlpack_device__/import", "negotiation",
                              fw.name.split(".")[0], own, "dlconform-caller", "v1.3",
                              "__dlpack_device__/import", imported_device_answer(fw), "DEV-2",
                              (fw,)))
        for api in sorted(fw.legacy_exports):  # its own exporters, handed no array of its
            cases.append(Case(f"negotiation/{env}/{own}/{api}/bad-input", "negotiation",
                              fw.name.split(".")[0], own, "dlconform-caller", "v1.3",
                              f"{api}/bad-input", exporter_bad_input(fw, api), "VER-4", (fw,)))
            cases.append(Case(f"negotiation/{env}/{own}/{api}/capsule-names", "negotiation",
                              fw.name.split(".")[0], own, "dlconform-caller", "v1.3",
                              f"{api}/capsule-names", capsule_names(fw, api), "LIFE-1", (fw,)))
        if fw.has_xapi:
            for check in ("XAPI-1", "XAPI-2", "XAPI-3", "XAPI-4", "XAPI-5"):
                cases.append(Case(f"xapi/{env}/{own}/{check}", "xapi", fw.name.split(".")[0], own,
                                  "dlconform-caller", "v1.3", check, xapi(fw, check), check,
                                  (fw,)))
            if not on_device(fw):
                if has_read_only(fw):
                    cases.append(Case(f"xapi/{env}/{own}/read-only", "xapi",
                                      fw.name.split(".")[0], own, "dlconform-caller", "v1.3",
                                      "read-only", xapi_read_only(fw), "FLAG-1b", (fw,)))
                for name, (why, build) in sorted(fw.unexpressible().items()):
                    check = f"XAPI-5/unexpressible/{name}"
                    cases.append(Case(f"xapi/{env}/{own}/{check}", "xapi", fw.name.split(".")[0],
                                      own, "dlconform-caller", "v1.3", check,
                                      xapi_unexpressible(fw, why, build), "XAPI-5", (fw,)))
    # 4. Every ordered pair that shares this process.
    for a in frameworks:
        made = {tensor: (rule, build) for tensor, rule, build in constructions(a)}
        if a.name == "numpy":  # the alignment checks: every consumer gets under-aligned data
            for alignment in (8, 4, 2, 1):
                made[f"f32_misaligned_{alignment}"] = (
                    "LAY-9", lambda alignment=alignment: misaligned(a.np, alignment))
            for dtype in ("float64", "float32", "int16", "uint8"):
                made[f"{PROFILE_NAMES[dtype]}_odd_offset"] = (
                    "LAY-9", lambda dtype=dtype: odd_offset(a.np, dtype))
        for b in frameworks:
            if not a.exports or not b.imports or (a.partner_only and b.partner_only):
                continue
            if on_device(a):  # from a device: dlconform_device_pairs.py
                continue
            for tensor, (rule, build) in made.items():
                if tensor not in PAIR_TENSORS and rule != "LAY-9" and \
                        not tensor.startswith("sample_"):
                    continue
                cases.append(Case(f"pairs/{env}/{a.label}/{b.label}/{tensor}", "pairs",
                                  a.name.split(".")[0], a.label, b.name.split(".")[0], b.label,
                                  tensor, pair(a, build, b, rule, tensor), rule, (a, b)))

    # 5. How each consumer asks, and immutable data (dlconform_asks.py); how it uses the C
    # exchange API (dlconform_xapi_consumers.py).
    cases += plan_consumer_calls(frameworks, producer_path_of, env)
    cases += plan_xapi_consumer_cases(frameworks, env)
    # 6. Frameworks on a device other than the host (dlconform_devices.py), and their pairs
    #    (dlconform_device_pairs.py).
    helpers = types.SimpleNamespace(expected_of=expected_of, logical=logical, Proxy=Proxy,
                                    deleter_calls_settled=deleter_calls_settled,
                                    constructions=constructions, make_array=make_array,
                                    framework_imports=framework_imports,
                                    misread_finding=misread_finding)
    cases += plan_device_cases(frameworks, producer_path_of, plugin_path_of, env, helpers)
    cases += plan_device_pairs(frameworks, env, helpers)
    return cases


def id_matches(pattern, case_id):
    """The command's --filter: a glob when it has one of * ? [, else a substring."""
    if not pattern:
        return True
    if any(ch in pattern for ch in "*?["):
        return fnmatch.fnmatchcase(case_id, pattern)
    return pattern in case_id


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--env", required=True, help="the framework environment's name")
    parser.add_argument("--producers", default="", help="the folder of the mock producer plugins")
    parser.add_argument("--timeout", type=float, default=60)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--list", action="store_true")
    parser.add_argument("--filter", default="",
                        help="run only the cases whose id matches (a glob, else a substring)")
    parser.add_argument("--module", action="append", default=[],
                        help="NAME[=PROFILE]: judge this module by its Array API surface")
    parser.add_argument("--adapter", action="append", default=[],
                        help="a Python file defining Framework subclasses to judge")
    args = parser.parse_args()
    # Records go to the real stdout; anything a framework prints (banners, warnings) to stderr.
    records = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(2, 1)
    started = time.monotonic()
    if args.module or args.adapter:
        usable = libraries_under_test(args, records)
    else:
        usable = environment_frameworks(args, records)
    for fw in usable:
        roles = "+".join(r for r, has in (("producer", fw.exports), ("consumer", fw.imports)) if has)
        if fw.partner_only:
            roles = "pair partner"
        print(f"party\t{fw.label}\t{roles}\t"
              f"{clean(fw.profile().replace(chr(10), ' · '))} (declared by the driver) · "
              f"environment {args.env}", file=records)
    cases = [c for c in plan(usable, args.producers, args.env) if id_matches(args.filter, c.fields[0])]
    if args.list:
        for case in cases:
            print(case.fields[0], file=records)
        return 0
    # The workers fork from here: a frozen heap makes their collections scan only what the
    # cases make (the frameworks' own objects are many), and keeps the pages shared.
    gc.collect()
    gc.freeze()

    def emit(case, result):
        print("case\t" + "\t".join(case.fields + [clean(x) for x in result]), file=records)

    last = [started]

    def progress(done, total):
        now = time.monotonic()
        if now - last[0] >= 15 or done == total:
            last[0] = now
            print(f"[frameworks {args.env}] {done}/{total} cases, {now - started:.0f} s",
                  file=sys.stderr, flush=True)

    run_all(cases, args.timeout, args.jobs, emit, progress)
    records.flush()
    # Not the frameworks' exit handlers: their teardown is not under test (Paddle's trips ASan
    # when the sanitized bridge is loaded).
    os._exit(0)


if __name__ == "__main__":
    sys.exit(main())
