"""Frameworks whose arrays live on a device other than the host (oneAPI's dpnp here, CUDA on a GPU
machine), for dlconform_frameworks.py. A device array is never read on the host: its export is
judged on metadata alone (the validator's standard level), and its values through the host copy
that __dlpack__(dl_device=(1, 0)) makes.

Cases (after SCENARIO/ENV/), F a framework on a device, B any other of the run:
  framework/F@V/dlconform-consumer@v1.3/T   F's export of T: on F's device, the layout right
      (VER-4, VER-1, the validator), then a host copy asked with dl_device=(1, 0): the values
      right and IS_COPIED set (FLAG-2, STRM-3); F's deleter releases the array (LIFE-5).
  framework/P@v1.3/F@V/MEMORY/T   a mock's tensor that claims F's device with a pointer that is
      no allocation of it (host memory that faults on any touch): F never touches it on the
      host (DEV-3); it refuses it with BufferError, or takes it unread.
  devices/F@V/negotiation/dl_device=D,copy=C   the dl_device x copy table (STRM-3, STRM-4).
  devices/F@V/memory/KIND/f32_2x3   F's array in pinned or managed memory (the adapter's
      memories(): torch's pin_memory(), CuPy's managed allocator): __dlpack_device__() names a
      device type that memory has, device_id 0 (DEV-1, DEV-2), and the export reads right (on
      the host for kDLCPU, else through its host copy).
  devices/F@V/negotiation/streams   stream values by the device's convention: every producer
      exports for None (STRM-1); a CUDA one also for 1, 2 and -1 (STRM-2); 0 is reported.
  devices/F@V/raced/F/dlconform-cuda-consumer@v1.3   F's array, its write still pending on F's
      stream, read at once by the CUDA mock consumer on the stream it passed (STRM-1); .../raced/
      planted-drops-stream/...: the same with the stream dropped, which must read early (the
      canary).
  devices/F@V/dlconform-cuda-producer@v1.3/M/T   the CUDA mock producer's tensor T in real
      CUDA memory M (device, pinned or managed), its write still pending on the producer's
      stream, into F's from_dlpack: F passes the stream it reads on (STRM-1, STRM-2), and the
      judge reads F's values (LAY-4) and the deleter (LIFE-3). The same into F from
      planted-cuda-ignores-stream-producer@v1.3, whose tensor cuda/f32_8x8 makes no stream wait,
      so F must read it early (the canary).
  devices/F@V/C@H/T  every mock consumer (a C plugin of each header, through the bridge) given
      F's tensor: it refuses, calls the deleter once (DEV-3, LIFE-3); .../T/dl_device=cpu: its
      caller asked for a host copy, which it imports, IS_COPIED (FLAG-2).
  pairs/...   the pairs with a device framework on either side: dlconform_device_pairs.py.
  asks/F@V/device=own, asks/F@V/own-device-producer   how F's from_dlpack asks for a transfer
      to its device, and which stream it passes to a producer on its own device.
Verdicts come from the bridge's judge, or are findings of its table (make_finding)."""
import gc
import sys

import _dlconform as bridge
from dlconform_asks import Recorder, calls_text, import_recorded, judged_calls
from dlconform_adapter import make_array
from dlconform_workers import (Case, adapter_raised, buffer_error_finding, clean, device_of,
                               error_words, outcome, wrong_refusal)

HOST = (1, 0)
CUDA_FAMILY = (2, 3, 13)  # CUDA device, pinned host and managed memory
# Which catalogue tensors claim each device (the mocks' host stand-ins for them).
MEMORY_OF = {14: "oneapi", 2: "cuda", 3: "cuda_host", 13: "cuda_managed"}
# The mock consumers, one per header: each gets a device array and must refuse it.
MOCK_CONSUMERS = ([("legacy-consumer", h) for h in ("v0.6", "v0.7", "v0.8", "v1.0", "v1.1", "v1.2",
                                                    "v1.3")] +
                  [("versioned-consumer", h) for h in ("v1.0", "v1.1", "v1.2", "v1.3")] +
                  [("strict-consumer", "v1.3")])


def on_device(fw):
    return tuple(fw.device) != HOST


def not_judged(words):
    """A case whose values nobody could read (a device array with no host copy, a stand-in taken
    unread): it says so in its verdict, a skip of its own, and is never counted as a judged pass."""
    return ("skip", "", "", "", f"not judged: {words}")


def flags_finding(capsule_kind, flags, what):
    """FLAG-2: a host copy of a device array is a copy, and a versioned capsule says so."""
    if capsule_kind.startswith("versioned") and not flags & 2:
        return bridge.make_finding("producer-violation", "FLAG-2",
                                   f"expected IS_COPIED on {what} but found flags {flags:#x}")
    return None


# --- F as a producer -------------------------------------------------------------------------

def device_exports(fw, build, helpers, device=None):
    """F's export on its own device (metadata only), then its host copy (values, IS_COPIED).
    `device`: the device the export must be on, where it is not F's usual one."""
    def body():
        value = build()
        expected = helpers.expected_of(fw, value)
        before = sys.getrefcount(value)
        layout = {"shape": expected["shape"], "dtype": expected["dtype"]}
        try:
            seen = bridge.consume(value, max_version=(1, 3), expected=layout, producer=fw.label,
                                  device=tuple(device or fw.device))
        except (BufferError, TypeError) as e:
            return ("skip", "", "", "", f"producer refused: {error_words(e)}")
        if seen.get("finding"):  # with what was handed over: the layout is all that was read
            cls, rule, severity, words = seen["finding"]
            return outcome((cls, rule, severity, f"{words} (shape {list(seen.get('shape', ()))}, "
                                                  f"strides {seen.get('strides')})"), "")
        try:
            copy = bridge.consume(value, max_version=(1, 3), expected=expected, producer=fw.label,
                                  device=HOST, dl_device=HOST)
        except BufferError as e:  # a producer that cannot copy to the host may say so
            return not_judged(f"{seen['capsule']} on {tuple(seen['device'])}; no host copy "
                              f"(dl_device=(1, 0): {clean(e)[:120]}): values not read")
        except Exception as e:
            return outcome(wrong_refusal(fw.label, error_words(e), "STRM-3",
                                         "a host copy it cannot make (dl_device=(1, 0))"), "")
        if copy.get("finding"):
            cls, rule, severity, words = copy["finding"]
            if rule == "DEV-1" and "as requested" in words:  # dl_device=(1, 0) not honoured
                return outcome(bridge.make_finding(
                    "producer-violation", "STRM-3", f"expected the host copy that "
                    f"__dlpack__(dl_device=(1, 0)) asks for, on device (1, 0), but found a "
                    f"capsule on {tuple(copy.get('device', ()))}"), "")
            return outcome(copy["finding"], "")
        kind = copy["capsule"] + (" %d.%d" % tuple(copy["version"])
                                  if copy["capsule"] == "dltensor_versioned" else "")
        finding = flags_finding("versioned" if copy["capsule"].endswith("versioned") else "legacy",
                                copy["flags"],
                                "the host copy __dlpack__(dl_device=(1, 0)) made")
        if finding is not None:
            return outcome(finding, "")
        if sys.getrefcount(value) > before:
            gc.collect()
        if sys.getrefcount(value) > before:
            return outcome(bridge.make_finding(
                "deleter-leaks", "LIFE-5", f"expected {fw.label}'s deleter to release the exported "
                f"array but its reference count stayed at {sys.getrefcount(value)} (was {before})"),
                "")
        return ("pass", "", "", "", f"{seen['capsule']} on device {tuple(seen['device'])}, shape "
                f"{list(seen['shape'])} (not read on the host); host copy {kind} with IS_COPIED: "
                f"{copy['elements']} values as {fw.label} has them")
    return body


# The device types an array in each kind of memory may answer: pinned host memory is host memory
# (kDLCPU) or kDLCUDAHost; CUDA managed memory kDLCUDA or kDLCUDAManaged.
MEMORY_NAMES = {"pinned": (1, 3), "managed": (2, 13)}
MEMORY_TENSOR = ((2, 3), "f32_2x3")


def memory_export(fw, kind, build, helpers):
    """F's array in pinned or managed memory: its __dlpack_device__() names a device type that
    memory has (DEV-1: the planted wrong-device producer's kDLCUDAHost for malloc()ed memory is
    the same defect), with device_id 0 (DEV-2); its capsule is on that device with the right
    layout, and its values right: read on the host when it answers kDLCPU, else through the host
    copy __dlpack__(dl_device=(1, 0)) makes (as every device export)."""
    def body():
        value = build(make_array(fw.np, "float32", MEMORY_TENSOR[0]))
        answer = device_of(fw.label, value)
        if answer[0] not in MEMORY_NAMES[kind]:
            named = " or ".join(str(t) for t in MEMORY_NAMES[kind])
            return outcome(bridge.make_finding(
                "producer-violation", "DEV-1", f"expected {fw.label}'s __dlpack_device__() of an "
                f"array in {kind} memory to name device type {named} but found {answer}"), "")
        if answer[1] != 0:
            return outcome(bridge.make_finding(
                "producer-violation", "DEV-2", f"expected {fw.label}'s __dlpack_device__() of an "
                f"array in {kind} memory to answer device_id 0 but found {answer}"), "")
        if answer != HOST:
            return device_exports(fw, lambda: value, helpers, device=answer)()
        seen = bridge.consume(value, max_version=(1, 3), expected=helpers.expected_of(fw, value),
                              producer=fw.label)
        if seen.get("finding"):
            return outcome(seen["finding"], "")
        return ("pass", "", "", "", f"{kind} memory as {answer}: {seen['capsule']}, "
                f"{seen['elements']} values as {fw.label} has them, read on the host")
    return body


# The dl_device x copy table: (label, dl_device or "own", copy, what the rules want).
NEGOTIATION = [("dl_device=own,copy=None", "own", None, "capsule"),
               ("dl_device=own,copy=True", "own", True, "copied"),
               ("dl_device=own,copy=False", "own", False, "capsule"),
               ("dl_device=cpu,copy=None", HOST, None, "copied"),
               ("dl_device=cpu,copy=True", HOST, True, "copied"),
               ("dl_device=cpu,copy=False", HOST, False, "BufferError"),
               ("dl_device=other,copy=None", "other", None, "BufferError"),
               ("dl_device=other,copy=False", "other", False, "BufferError")]


def other_device(fw):
    """A device F cannot export to: CUDA for a oneAPI array, oneAPI for a CUDA one."""
    return (14, 0) if fw.device[0] in CUDA_FAMILY else (2, 0)


def refusal_rule(dl_device, copy):
    """The rule a refusal of dl_device and copy rests on: a device the producer cannot export to
    is STRM-3's whatever copy says; only a copy to a device it can reach, refused for copy=False,
    is STRM-4's."""
    return "STRM-3" if dl_device == "other" or copy is not False else "STRM-4"


def device_negotiation(fw, dl_device, copy, want):
    """STRM-3, STRM-4 and FLAG-2 of one ask, judged from the capsule the answer carries."""
    def body():
        value = fw.from_np(fw.np.ones((2, 2), "float32"))
        target = tuple(fw.device) if dl_device == "own" else other_device(fw) \
            if dl_device == "other" else dl_device
        ask = {"max_version": (1, 3), "dl_device": target, "copy": copy}
        shown = f"dl_device={target}, copy={copy}"
        try:
            capsule = value.__dlpack__(**ask)
        except Exception as e:
            words = error_words(e)
            if want == "BufferError":
                return outcome(wrong_refusal(fw.label, words, refusal_rule(dl_device, copy),
                                             f"__dlpack__({shown})"),
                               f"refused: {clean(words)[:160]}")
            if isinstance(e, BufferError):
                finding = buffer_error_finding(fw.label, ask, words, fw.device)
                if finding is not None or target == HOST:  # it may not copy to the host
                    return outcome(finding, f"refused: {clean(words)[:160]}")
            rule = "STRM-4" if copy is not None else "STRM-3"
            return outcome(bridge.make_finding(
                "producer-violation", rule, f"expected a capsule for __dlpack__({shown}) but "
                f"found {clean(words)[:160]}"), "")
        kind, flags = bridge.capsule_kind(capsule), bridge.capsule_flags(capsule)
        seen = bridge.negotiate(capsule, (1, 3), bool(copy))
        answer = f"{kind} flags={flags:#x}"
        if seen["finding"] is not None:
            return outcome(seen["finding"], answer)
        device = bridge.capsule_device(capsule)
        del capsule
        if want == "BufferError":
            return outcome(bridge.make_finding(
                "producer-violation", refusal_rule(dl_device, copy),
                f"expected BufferError for __dlpack__({shown}) but found {answer} on {device}"), "")
        if tuple(device) != target:
            return outcome(bridge.make_finding(
                "producer-violation", "STRM-3", f"expected a tensor on {target} for __dlpack__"
                f"({shown}) but found {answer} on {tuple(device)}"), "")
        if want == "copied":
            finding = flags_finding(kind, flags, f"the answer to __dlpack__({shown})")
            if finding is not None:
                return outcome(finding, "")
        return ("pass", "", "", "", f"{answer} on {tuple(device)}")
    return body


# The stream values a producer is asked with, and the rule that wants an export for each (None:
# none). Every producer exports for stream=None (STRM-1). On CUDA (STRM-2), 1 is the legacy
# default stream, 2 the per-thread default, and -1 asks for no synchronisation; 0 is disallowed
# for the consumer to pass, so a producer may refuse it or take it (CuPy's own test takes it,
# with a warning). The framework's own stream object, and 1 off CUDA, are only reported.
# (label, value, what the rules want): "export" (must export), "optional" (the Array API 2024.12:
# "Support for a stream value other than None is optional and implementation-dependent": an export
# or a BufferError, but no other failure, since the value has a defined meaning), or None (0,
# which a consumer must not pass: any answer).
CUDA_STREAMS = (("None", None, "export"), ("own", "own", None), ("1", 1, "optional"),
                ("2", 2, "optional"), ("-1", -1, "optional"), ("0", 0, None))
OTHER_STREAMS = (("None", None, "export"), ("own", "own", None), ("1", 1, None))


def stream_answers(fw):
    """Stream values by the device's convention: on CUDA, None, the framework's own stream, 1,
    2, -1 and 0; elsewhere None, the framework's own stream and 1. Every producer exports for
    None (STRM-1). On CUDA, 1, 2 and -1 are optional: a BufferError is the refusal the Array API
    allows, and another exception (JAX's CUDA error for -1, used as a stream handle) means the
    producer misread a value whose meaning STRM-2 defines. The detail says what each got."""
    streams = CUDA_STREAMS if fw.device[0] in CUDA_FAMILY else OTHER_STREAMS

    def body():
        value = fw.from_np(fw.np.ones((2, 2), "float32"))
        answers, failed = [], []
        for label, stream, want in streams:
            try:
                passed = fw.stream() if stream == "own" else stream
                answers.append(f"stream={label}: "
                               f"{bridge.capsule_kind(value.__dlpack__(stream=passed))}")
            except Exception as e:
                words = clean(error_words(e))[:100]
                answers.append(f"stream={label}: {words}")
                if want == "export":
                    failed.append(("STRM-1", f"an export for stream=None but found {words}"))
                elif want == "optional" and not isinstance(e, BufferError):
                    failed.append(("STRM-2", f"an export or a BufferError for stream={label} "
                                   f"(support is optional; the value's meaning is defined) but "
                                   f"found {words}"))
        if failed:
            rule, words = failed[0]  # stream=None's STRM-1 first: without it, nothing exports
            return outcome(bridge.make_finding("producer-violation", rule, f"expected {words}"), "")
        return ("pass", "", "", "", "; ".join(answers))
    return body


# --- F as a consumer of a mock's stand-in for its device's memory -----------------------------

def stand_in_import(fw, producer_path, tensor):
    """A tensor that claims F's device over host memory that faults on any touch: F must not
    read it on the host (a touch is a crash the guard names device-pointer-dereferenced). It
    may refuse it (with BufferError, deleting it once) or take it unread: the rules ask no
    importer to check that a device pointer is an allocation of that device, and a runtime
    that does (dpctl's USM lookup) refuses."""
    def body():
        mock = bridge.MockTensor(producer_path, tensor)
        error = import_recorded(fw, mock, {})
        calls = mock.deleter_calls()
        if error is None:
            return not_judged(f"imported unread: {fw.label} does not check that the pointer is "
                              f"an allocation of device {fw.device}, and never touched it on the "
                              f"host (no values to compare)")
        if calls != 1:
            return outcome(bridge.make_finding(
                "deleter-never-called" if calls == 0 else "deleter-called-twice", "LIFE-3",
                f"expected one deleter call after {fw.label} refused the tensor but found {calls}"),
                "")
        finding = wrong_refusal(fw.label, error, "DEV-3", "a pointer that is no allocation of its "
                                "device")
        return outcome(finding, f"refused without touching it: {clean(error)[:160]}")
    return body


# --- the mock consumers given F's tensor -------------------------------------------------------

def mock_consumer_import(fw, consumer_path, label, host_copy, helpers):
    """A C mock consumer (CPU only) given F's device array: it must refuse, deleting it once; or,
    when its caller asked for a host copy (dl_device=(1, 0)), import that copy's values."""
    def body():
        value = fw.from_np(helpers.make_array(fw.np, "float32", (2, 3)))
        want = helpers.expected_of(fw, value)
        plugin = bridge.PluginConsumer(consumer_path)
        if host_copy:
            try:
                capsule = value.__dlpack__(max_version=(1, 3), dl_device=HOST)
            except Exception as e:  # F's answer: the dl_device x copy rows judge it
                if adapter_raised(e, (fw,)):
                    raise
                plugin.release()
                return not_judged(f"{fw.label} made no host copy (dl_device=(1, 0): "
                                  f"{clean(error_words(e))[:120]}): {label} was handed nothing")
            kind, flags = bridge.capsule_kind(capsule), bridge.capsule_flags(capsule)
            handle, _ = bridge.interpose(capsule)
            seen = plugin.from_dlpack(capsule)
            del capsule
        else:
            proxy = helpers.Proxy(fw, value)
            try:
                seen = plugin.from_dlpack(proxy)
            except Exception:
                if proxy.raised is None:
                    raise
                raised = proxy.raised  # F's own export failed: its negotiation rows judge it
                del proxy
                plugin.release()
                return not_judged(f"{fw.label}'s __dlpack__ raised {raised[0].__name__}: "
                                  f"{raised[1][:120]}; {label} was handed nothing")
            kind, flags = (proxy.kinds or ["no capsule"])[-1], 0
            handle = proxy.handles[-1] if proxy.handles else None
            del proxy
        plugin.release()
        calls = helpers.deleter_calls_settled([handle] if handle is not None else [])
        if calls and calls[-1] != 1:
            return outcome(bridge.make_finding(
                "deleter-never-called" if calls[-1] == 0 else "deleter-called-twice", "LIFE-3",
                f"expected {label} to call {fw.label}'s deleter once but found {calls[-1]}"), "")
        if not host_copy:
            if seen["imported"]:
                return outcome(bridge.make_finding(
                    "accepted-invalid", "DEV-3", f"expected {label}, a CPU consumer, to refuse "
                    f"{fw.label}'s tensor on device {fw.device} but it imported it"), "")
            return ("pass", "", "", "", f"refused {kind} cleanly: {clean(seen['error'])[:160]}")
        finding = flags_finding(kind, flags, "the host copy dl_device=(1, 0) asked for")
        if finding is not None:
            return outcome(finding, "")
        if not seen["imported"]:
            return outcome(bridge.make_finding(
                "rejected-valid", "DEV-3", f"expected {label} to import the host copy "
                f"({kind}) but it refused: {clean(seen['error'])[:160]}"), "")
        if seen["digest"] != want["digest"] or tuple(seen["shape"]) != want["shape"]:
            return outcome(bridge.make_finding(
                "wrong-data", "LAY-4", f"expected {label} to read the values {fw.label} holds from "
                f"its host copy but found other values"), "")
        return ("pass", "", "", "", f"host copy {kind} with IS_COPIED imported: equal values")
    return body


# --- F's pending write raced against the CUDA mock consumer ------------------------------------

RACED_SHAPE = (256, 256)


class DropsStream:
    """A planted producer: F's array behind a __dlpack__ that drops the consumer's stream, so
    nothing makes that stream wait for F's pending write. It is the race's canary."""

    def __init__(self, inner):
        self.inner = inner

    def __dlpack_device__(self):
        return self.inner.__dlpack_device__()

    def __dlpack__(self, **keywords):
        keywords.pop("stream", None)
        return self.inner.__dlpack__(**keywords)


def raced_export(fw, new_consumer, helpers, planted):
    """F's array with its write still pending on F's current stream (the adapter's
    pending_write), into the CUDA mock consumer, which passes its own stream to __dlpack__ and
    reads on it at once: F must have made that stream wait (STRM-1). `planted`: the same array
    behind DropsStream, which must be read before the write lands; were its values right, the
    wait would be too short to judge anything, and the case fails."""
    def body():
        source = helpers.make_array(fw.np, "float32", RACED_SHAPE)
        warm = fw.pending_write(source)
        if warm is None:
            return ("skip", "", "", "", f"n/a: {fw.label}'s adapter cannot leave a write pending")
        # The whole race once before it is judged: the consumer's stream, pinned memory and
        # kernel, and F's kernels, are made at their first use, and CUDA's lazy loading may
        # synchronise the device there, landing the write before the read (the first GPU run's
        # canaries read late).
        consumer = new_consumer()
        consumer.from_dlpack(warm)
        consumer.release()
        del warm
        value = fw.pending_write(source)
        seen = consumer.from_dlpack(DropsStream(value) if planted else value)
        consumer.release()
        want = helpers.expected_of(fw, value)  # the host copy waits for the write: its values
        if not seen["imported"]:
            return outcome(bridge.make_finding(
                "rejected-valid", "DEV-3", f"expected the CUDA mock consumer to import "
                f"{fw.label}'s array but it refused: {clean(seen['error'])[:160]}"), "")
        early = seen["digest"] != want["digest"]
        if planted:
            if early:
                return ("pass", "", "", "", "canary caught: with the stream dropped, the consumer "
                        "read the values from before the pending write")
            return outcome(bridge.make_finding(
                "plugin-error", "", f"expected the planted producer that drops the consumer's "
                f"stream to be read before its pending write landed but its values were right: "
                f"the wait is too short to judge {fw.label}"), "")
        if early:
            return outcome(bridge.make_finding(
                "stream-not-synchronised", "STRM-1", f"expected {fw.label} to make the stream "
                f"the consumer passed wait for its pending write but the consumer read the values "
                f"from before it"), "")
        return ("pass", "", "", "", "read after the pending write: the consumer's stream was made "
                "to wait")
    return body


# --- the CUDA mock producer's memory, its write pending, into F -----------------------------------

CUDA_MEMORIES = ("cuda/", "cuda_host/", "cuda_managed/")


def cuda_memory_import(fw, producer_path, entry, profile, helpers, planted, warm_path=None,
                       producer_label="the CUDA mock producer"):
    """The CUDA mock producer's tensor, written behind a 50 ms hold on the producer's stream, into
    F's from_dlpack. F must pass the stream it reads on (never 0; STRM-1, STRM-2) and then reads
    the producer's values; the judge of every mock import decides the rest, told that the write
    was left pending (values still the storage's fill pattern are STRM-1's). `planted`: the
    producer ignores the stream it is given, so F reads before the write lands; right values
    would mean the hold is too short to judge F, and the case fails. `warm_path`: the conformant
    CUDA producer, whose same import runs first, unjudged, so that F's kernels and allocator
    exist before the write is left pending (their first use may synchronise the device)."""
    recorders = []

    def record(mock):
        recorders.append(Recorder(mock, device=tuple(mock.__dlpack_device__())))
        return recorders[-1]

    def pending():
        """The judge's facts of the race: the stream F passed last (None when none)."""
        asked = [c for r in recorders for c in r.calls if c["kind"] == "dlpack"]
        stream = asked[-1].get("stream") if asked else None
        return {"pending_write": True, "producer": producer_label,
                "stream": stream if isinstance(stream, int) and not isinstance(stream, bool)
                else None}

    judged = helpers.framework_imports(fw, producer_path, entry, profile, wrap=record,
                                       observe=pending)
    warm = helpers.framework_imports(fw, warm_path, entry, profile) if warm_path else None

    def body():
        current = fw.stream()
        if warm is not None:
            warm()
        result = judged()
        calls = [c for r in recorders for c in r.calls]
        text = calls_text(calls)
        if planted:
            if result[0] == "fail" and result[1] in ("stream-not-synchronised", "wrong-data"):
                return ("pass", "", "", "", "canary caught: from a producer that ignores the "
                        f"stream, {fw.label} read the values from before the pending write")
            return outcome(bridge.make_finding(
                "plugin-error", "", f"expected {fw.label} to read the planted producer's values "
                f"before its pending write landed but found: {result[0]} {result[4][:160]}: the "
                f"hold is too short to judge {fw.label}"), "")
        wrong_stream = streams_judged(fw.label, entry["device"], calls, current)
        if wrong_stream is not None:
            return wrong_stream
        return result[:4] + (f"{result[4]} [calls: {text}]",)
    return body


# --- how F asks ----------------------------------------------------------------------------------

def asks_own_device(fw, producer_path):
    """F's from_dlpack(device=its own) of a host mock: it asks for dl_device=F's device (STRM-3),
    or copies itself after a host export."""
    def body():
        recorder = Recorder(bridge.MockTensor(producer_path, "f32_8x8"), device=HOST)
        error = import_recorded(fw, recorder, {"device": fw.own_device()})
        return judged_calls(fw, recorder, error, None, tuple(fw.device))
    return body


def stream_finding(label, device_type, passed, current):
    """STRM-1 and STRM-2 of the stream a CUDA consumer passed (`passed`: the value, None, or
    "not passed") against its current stream (`current`, 1 for the legacy default): never 0; the
    stream it reads on, which is its current one; -1 (no synchronisation) is its own promise to
    synchronise, noted in the detail. Other devices: the spec leaves the stream open."""
    if device_type not in CUDA_FAMILY:
        return None
    if passed == 0:
        return bridge.make_finding("bad-stream-value", "STRM-2", f"expected {label} to pass a "
                                   f"CUDA stream but it passed 0, which STRM-2 disallows")
    if passed == -1 or current is None:
        return None
    given = 1 if passed in (None, "not passed") else passed  # None: the legacy default stream
    if given != current:
        return bridge.make_finding(
            "wrong-stream-passed", "STRM-1", f"expected {label} to pass its current stream "
            f"({current:#x}) but it passed {'none' if passed in (None, 'not passed') else hex(passed)}")
    return None


def streams_judged(label, device_type, calls, current):
    """The first stream_finding among the streams of the __dlpack__ calls a consumer made (a
    Recorder's), as a case's outcome with the calls; None when every stream passed is right."""
    for call in calls:
        if call["kind"] != "dlpack":
            continue
        finding = stream_finding(label, device_type, call.get("stream", "not passed"), current)
        if finding is not None:
            cls, rule, severity, words = finding
            return outcome((cls, rule, severity, f"{words} [calls: {calls_text(calls)}]"), "")
    return None


def asks_on_own_device(fw):
    """F's from_dlpack of a producer on F's own device: which stream it passes (STRM-1, STRM-2
    on CUDA; the Array API leaves other devices' streams open, so what F passes is reported)."""
    def body():
        inner = fw.from_np(fw.np.arange(4, dtype="float32"))
        recorder = Recorder(inner, device=tuple(fw.device))
        current = fw.stream() if fw.device[0] in CUDA_FAMILY else None
        result = fw.import_(recorder)
        got = fw.to_np(result)
        del result
        streams = [c.get("stream", "not passed") for c in recorder.calls if c["kind"] == "dlpack"]
        if got.tolist() != [0.0, 1.0, 2.0, 3.0]:
            return outcome(bridge.make_finding(
                "wrong-data", "LAY-4", f"expected {fw.label} to import its own device's values "
                f"but found {got.tolist()}"), "")
        wrong_stream = streams_judged(fw.label, fw.device[0], recorder.calls, current)
        if wrong_stream is not None:
            return wrong_stream
        text = calls_text(recorder.calls)
        shown = ", ".join(hex(s) if isinstance(s, int) and not isinstance(s, bool) else
                          (type(s).__name__ if s not in ("not passed", None) else str(s))
                          for s in streams)
        note = " (-1: it synchronises itself)" if -1 in streams else ""
        return ("pass", "", "", "", f"stream passed: {shown or 'no call'}{note} [calls: {text}]")
    return body


def xapi_work_stream(fw):
    """XAPI-5 on a device: current_work_stream of the type's exchange API is the stream the
    framework itself works on (the one its consumers pass, STRM-1)."""
    def body():
        value = fw.from_np(fw.np.ones((2,), "float32"))
        answer = bridge.xapi_current_work_stream(value, fw.device[0], fw.device[1])
        if answer is None:
            return ("skip", "", "", "", f"n/a: {fw.label}'s type has no exchange API")
        rc, stream = answer
        want = fw.stream()
        if rc != 0:
            return outcome(bridge.make_finding(
                "xapi-violation", "XAPI-5", f"expected current_work_stream{tuple(fw.device)} to "
                f"succeed but it returned {rc}"), "")
        given = 1 if stream == 0 else stream
        if want is not None and given != want:
            return outcome(bridge.make_finding(
                "xapi-violation", "XAPI-5", f"expected current_work_stream{tuple(fw.device)} to "
                f"give {fw.label}'s current stream {want:#x} but it gave {stream:#x}"), "")
        return ("pass", "", "", "", f"current_work_stream{tuple(fw.device)} = {stream:#x}")
    return body


# --- the plan ------------------------------------------------------------------------------------

def plan_device_cases(frameworks, producer_path_of, plugin_path_of, env, helpers):
    """Every device case of this environment's frameworks (see the module's docstring)."""
    cases = []
    catalogue = bridge.tensor_names()
    cuda_consumer = plugin_path_of("cuda-consumer", "v1.3")
    for fw in frameworks:
        if fw.partner_only or not on_device(fw):
            continue
        own, short = fw.label, fw.name.split(".")[0]
        exporting = fw.exports and fw.dunder
        for tensor, rule, build in (helpers.constructions(fw) if exporting else []):
            cases.append(Case(f"framework/{env}/{own}/dlconform-consumer@v1.3/{tensor}",
                              "framework", short, own, "dlconform-consumer", "v1.3", tensor,
                              device_exports(fw, build, helpers), rule, (fw,)))
        memory = MEMORY_OF.get(fw.device[0])
        path = producer_path_of("versioned-producer", "v1.3")
        for t in catalogue:
            if path is None or not memory or not t["name"].startswith(memory + "/") or \
                    not fw.imports:
                continue
            cases.append(Case(f"framework/{env}/versioned-producer@v1.3/{own}/{t['name']}",
                              "framework", "versioned-producer", "v1.3", short, own, t["name"],
                              stand_in_import(fw, path, t["name"]), "DEV-3", (fw,)))
        for label, target, copy, want in (NEGOTIATION if exporting else []):
            cases.append(Case(f"devices/{env}/{own}/negotiation/{label}", "devices", short, own,
                              "dlconform-caller", "v1.3", label,
                              device_negotiation(fw, target, copy, want), "STRM-3", (fw,)))
        if exporting:
            cases.append(Case(f"devices/{env}/{own}/negotiation/streams", "devices", short, own,
                              "dlconform-caller", "v1.3", "streams", stream_answers(fw), "STRM-2",
                              (fw,)))
        for kind, build in (sorted(fw.memories().items()) if exporting else []):
            name = f"memory/{kind}/{MEMORY_TENSOR[1]}"
            cases.append(Case(f"devices/{env}/{own}/{name}", "devices", short, own,
                              "dlconform-consumer", "v1.3", name,
                              memory_export(fw, kind, build, helpers), "DEV-1", (fw,)))
        if exporting and fw.device[0] == 2 and cuda_consumer is not None:
            for planted, producer in ((False, short), (True, "planted-drops-stream")):
                cases.append(Case(
                    f"devices/{env}/{own}/raced/{producer}/dlconform-cuda-consumer@v1.3",
                    "devices", producer, own, "dlconform-cuda-consumer", "v1.3", "raced_f32_256x256",
                    raced_export(fw, lambda path=cuda_consumer: bridge.PluginConsumer(path),
                                 helpers, planted), "STRM-1", (fw,)))
        for consumer, header in (MOCK_CONSUMERS if exporting else []):
            cpath = plugin_path_of(consumer, header)
            if cpath is None:
                continue
            label = f"{consumer}@{header}"
            for host_copy in ((False, True) if consumer != "legacy-consumer" else (False,)):
                name = "f32_2x3" + ("/dl_device=cpu" if host_copy else "")
                cases.append(Case(f"devices/{env}/{own}/{label}/{name}", "devices", short, own,
                                  consumer, header, name,
                                  mock_consumer_import(fw, cpath, label, host_copy, helpers),
                                  "DEV-3", (fw,)))
        cuda_importer = fw.imports and fw.device[0] == 2
        profile = fw.profile() if cuda_importer else None
        warm_path = plugin_path_of("cuda-producer", "v1.3") if cuda_importer else None
        for producer, planted in (("cuda-producer", False),
                                  ("planted-cuda-ignores-stream-producer", True)):
            cpath = plugin_path_of(producer, "v1.3") if cuda_importer else None
            label = "dlconform-cuda-producer" if not planted else producer
            for t in (catalogue if cpath is not None else []):
                if not t["name"].startswith(CUDA_MEMORIES) or \
                        (planted and t["name"] != "cuda/f32_8x8"):
                    continue
                cases.append(Case(
                    f"devices/{env}/{own}/{label}@v1.3/{t['name']}", "devices", label, "v1.3",
                    short, own, t["name"],
                    cuda_memory_import(fw, cpath, t, profile, helpers, planted, warm_path,
                                       f"{label}@v1.3"),
                    "STRM-1" if planted else t["rule"], (fw,)))
        if path is not None and fw.imports:
            cases.append(Case(f"asks/{env}/{own}/device=own", "asks", "versioned-producer",
                              "versioned-producer@v1.3", short, own, "device=own",
                              asks_own_device(fw, path), "STRM-3", (fw,)))
        if fw.exports and fw.imports:
            cases.append(Case(f"asks/{env}/{own}/own-device-producer", "asks", short, own, short,
                              own, "own-device-producer", asks_on_own_device(fw), "STRM-1",
                              (fw,)))
        if fw.has_xapi:
            cases.append(Case(f"xapi/{env}/{own}/current-work-stream", "xapi", short, own,
                              "dlconform-caller", "v1.3", "current-work-stream",
                              xapi_work_stream(fw), "XAPI-5", (fw,)))
    return cases


if __name__ == "__main__":
    sys.exit("dlconform_devices.py is a part of dlconform_frameworks.py")
