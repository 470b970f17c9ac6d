"""What a framework's own __dlpack__, __dlpack_device__ and exporters answer, for
dlconform_frameworks.py (the cases negotiation/ENV/FW/ASK and xapi/ENV/FW/CHECK).

  negotiation/ENV/A@V/ASK     A's __dlpack__(**ASK) of a CPU array, ASK one of NEGOTIATION:
      a capsule of a version the caller supports or BufferError (VER-4); a stream other than None
      refused on the CPU (STRM-1, INFO when taken); a malformed max_version refused (INFO when
      taken); copy=True a copy and copy=False none, judged by the capsule's data pointer against
      the array's own memory (STRM-4) and IS_COPIED (FLAG-2); the capsule dropped unconsumed
      releases the array (LIFE-2).
  negotiation/ENV/A@V/API/bad-input   A's own exporter handed None: it must raise.
  negotiation/ENV/A@V/__dlpack_device__[/0-d|/size-0|/view|/import]   two integers, (1, 0) for
      a CPU array (DEV-1, DEV-2), the same for a 0-d, a size-0 and a transposed array and for
      A's import of a NumPy array (a raise is unexpected-exception DEV-1).
      An importer whose own arrays have no __dlpack__ gets /import alone, where its import
      has __dlpack_device__ (the Array API's from_dlpack: on x's device when device is None).
  negotiation/ENV/A@V/K1,K2   two keywords together (P-49): each does what it does alone.
  negotiation/ENV/A@V/dropped-during-exception   a capsule dropped unconsumed while a RuntimeError
      propagates: the exception kept, the array released (LIFE-2).
  negotiation/ENV/A@V/deleter-off-thread   a capsule taken as a C consumer takes it and its
      deleter called on a thread that holds no GIL, the array dropped first: no Python allocator
      call without the GIL (LIFE-7, python_spec.rst).
  negotiation/ENV/A@V/copy=None/reuse   two copy=None exports held together and a copy=False one:
      where copy=False shares, copy=None must reuse the memory too (STRM-4).
  negotiation/ENV/A@V/[API/]capsule-names   the names of A's versioned and legacy capsules (or
      of those its own exporter API makes) lie in a loaded object, statically allocated (LIFE-1,
      python_spec.rst).
  negotiation/ENV/A@V/read-only/ASK   the same asks of A's read-only array (read_only()), where
      A has read-only arrays beside writable ones: a legacy caller (max_version=none) gets a
      legacy capsule or BufferError (VER-4), never a versioned one.
  xapi/ENV/A@V/CHECK          the C exchange API table on A's type (XAPI-1 to XAPI-5).
  xapi/ENV/A@V/read-only      the table on the type of A's read-only array: from_py_object's
      tensor has READ_ONLY (FLAG-1b, P-63), or the array is refused.
  xapi/ENV/A@V/XAPI-5/unexpressible/NAME   the table's from_py_object handed an array of A's
      that DLPack cannot describe (the unexpressible cases of A's __dlpack__): BufferError, or a
      tensor of the values A says it holds (XAPI-5; another exception is SHOULD)."""
import gc
import sys
import weakref

import _dlconform as bridge
from dlconform_adapter import Unsupported, make_array
from dlconform_imports import expected_of
from dlconform_workers import (HeldCapsule, adapter_raised, ask_capsule, buffer_error_finding,
                               capsule_finding, clean, device_ints, device_of, error_words,
                               export_address, heap_name_finding, is_capsule, keywords_text,
                               outcome, released, signature_finding, wrong_refusal)

NEGOTIATION = [("max_version=none", ()), ("max_version=0.8", (("max_version", (0, 8)),)),
               ("max_version=1.0", (("max_version", (1, 0)),)),
               ("max_version=1.3", (("max_version", (1, 3)),)),
               ("max_version=2.0", (("max_version", (2, 0)),)),
               # Malformed: a bare int, no 2-tuple (dpctl's test_dlpack_max_version_validation).
               ("max_version=bare-int", (("max_version", 1),)),
               ("copy=True", (("max_version", (1, 3)), ("copy", True))),
               ("copy=False", (("max_version", (1, 3)), ("copy", False))),
               ("dl_device=cpu", (("max_version", (1, 3)), ("dl_device", (1, 0)))),
               # A device a CPU array cannot be exported to on a host without CUDA: BufferError
               # (STRM-3), as the device rows' dl_device=other.
               ("dl_device=cuda", (("max_version", (1, 3)), ("dl_device", (2, 0)))),
               # The keywords together, as the peers' tests ask them (the Array API's test
               # suite, NumPy, dpnp): each must do what it does alone (P-49).
               ("dl_device=cpu,copy=True",
                (("max_version", (1, 3)), ("dl_device", (1, 0)), ("copy", True))),
               ("dl_device=cpu,copy=False",
                (("max_version", (1, 3)), ("dl_device", (1, 0)), ("copy", False))),
               ("max_version=1.0,copy=True", (("max_version", (1, 0)), ("copy", True))),
               ("dl_device=cuda,copy=True",
                (("max_version", (1, 3)), ("dl_device", (2, 0)), ("copy", True))),
               ("stream=None", (("stream", None),)),
               # On the CPU only None is accepted (STRM-1): any other stream is refused.
               ("stream=1", (("stream", 1),)), ("stream=-1", (("stream", -1),))]
STREAM_ASKS = ("stream=1", "stream=-1")


def plain_array(fw, shape, values=None):
    """A float32 array of fw of `shape` (of `values`, else ones) for the protocol's own cases; a
    library that makes none (a narrow surface) gives the sample its probe found instead."""
    try:
        return fw.from_np(fw.np.ones(shape, "float32") if values is None else values)
    except Exception:
        if fw.sample == ("float32", (2,)):  # it makes float32 arrays: the failure is real
            raise
    return fw.from_np(make_array(fw.np, *fw.sample))


def refused_export(fw, method, kwargs, e):
    """fw's __dlpack__(**kwargs), the bound `method`, raised e: a refusal the rules allow, or a
    finding."""
    if isinstance(e, TypeError):
        if not kwargs:
            return outcome(bridge.make_finding(
                "producer-violation", "VER-4", f"expected a capsule for __dlpack__() but "
                f"found TypeError: {e}"), "")
        return outcome(signature_finding(fw.label, method, kwargs, e), "")
    target = kwargs.get("dl_device")
    if (target is not None and tuple(target) == tuple(fw.device) and "copy" in kwargs
            and exports_alone(method, kwargs, "copy")):
        # Its own device with copy=: it exports for the dl_device alone, so the refusal is the
        # copy keyword's, judged as that keyword alone would be.
        alone = {k: v for k, v in kwargs.items() if k != "dl_device"}
        return refused_export(fw, method, alone, e)
    if target is not None and tuple(target) == tuple(fw.device):
        # Its own device, which it exports to without dl_device: no copy, no device it cannot
        # handle, so no refusal, BufferError included (as the device rows' dl_device=own).
        return outcome(bridge.make_finding(
            "producer-violation", "STRM-3", f"expected an export for dl_device={tuple(target)}, "
            f"the tensor's own device, but found {type(e).__name__}: {clean(e)[:160]}"), "")
    if target is not None:  # another device, one this host cannot reach: BufferError only
        return outcome(wrong_refusal(fw.label, error_words(e), "STRM-3",
                                     f"__dlpack__(dl_device={tuple(target)})"),
                       f"refused: {clean(error_words(e))[:160]}")
    if isinstance(e, BufferError):
        return outcome(buffer_error_finding(fw.label, kwargs, error_words(e), fw.device),
                       f"BufferError: {clean(e)[:160]}")
    return outcome(bridge.make_finding(
        "refusal-not-buffer-error", "VER-4", f"{type(e).__name__} for {kwargs}: {e}"), "")


def exports_alone(method, kwargs, left_out):
    """Whether __dlpack__ exports for kwargs without `left_out`: which keyword of a combined ask
    a refusal answers (the capsule made is dropped unconsumed)."""
    try:
        capsule = method(**{k: v for k, v in kwargs.items() if k != left_out})
    except Exception:
        return False
    del capsule
    return True


def read_only_array(fw, shape, values=None):
    """plain_array made read-only by fw.read_only; None when fw has no read-only arrays."""
    try:
        return fw.read_only(plain_array(fw, shape, values))
    except Unsupported:
        return None


def negotiation(fw, ask, read_only=False):
    """What __dlpack__ answers, of a plain array or of a read-only one; VER-4, STRM-1, STRM-3,
    STRM-4 judged by the bridge."""
    def body():
        value = read_only_array(fw, (2, 2)) if read_only else plain_array(fw, (2, 2))
        if value is None:
            return ("skip", "", "", "", "n/a: no read-only arrays")
        kwargs = dict(ask)
        before = sys.getrefcount(value)
        stream_on_cpu = kwargs.get("stream") is not None
        malformed_ask = not isinstance(kwargs.get("max_version", ()), tuple)
        try:
            capsule = value.__dlpack__(**kwargs)
        except Exception as e:
            if stream_on_cpu:  # any refusal: the texts name no exception for it
                return ("pass", "", "", "", f"{type(e).__name__}: {clean(e)[:160]} (stream="
                        f"{kwargs['stream']} for a CPU array refused)")
            if malformed_ask:  # any refusal: "other errors" for "incorrect arguments passed"
                return ("pass", "", "", "", f"{type(e).__name__}: {clean(e)[:160]} (max_version="
                        f"{kwargs['max_version']!r} refused)")
            if read_only and not (kwargs and isinstance(e, TypeError)):  # (a keyword's: below)
                # READ_ONLY cannot reach an older caller: a refusal is the data's
                if isinstance(e, BufferError):
                    return ("pass", "", "", "", f"BufferError: {clean(e)[:160]}")
                return outcome(bridge.make_finding(
                    "refusal-not-buffer-error", "VER-4", f"{type(e).__name__} for a read-only "
                    f"array and {kwargs}: {e}"), "")
            return refused_export(fw, value.__dlpack__, kwargs, e)
        malformed = capsule_finding(fw.label, capsule, kwargs)
        if malformed is not None:
            return outcome(malformed, "")
        # The capsule is on the device asked for, else on the array's own (dl_device=None: "the
        # exported capsule should be on the same device as self is"; DLTensor.device says where
        # the data is, DEV-1).
        target = kwargs.get("dl_device")
        want = tuple(target) if target is not None else own_device(value)
        found = tuple(bridge.capsule_device(capsule))
        if want is not None and found != want:
            del capsule
            if target is None:
                return outcome(bridge.make_finding(
                    "producer-violation", "DEV-1", f"expected a capsule on the device the array's "
                    f"__dlpack_device__() answers, {want}, for __dlpack__() without dl_device but "
                    f"found one on {found}"), "")
            return outcome(bridge.make_finding(
                "producer-violation", "STRM-3", f"expected a tensor on {want} for "
                f"__dlpack__(dl_device={want}), or BufferError, but found a capsule on "
                f"{found}"), "")
        if malformed_ask:
            return malformed_ask_answered(fw, value, capsule, kwargs["max_version"])
        if kwargs.get("copy") is not None:
            copied = copy_by_address(fw, value, capsule, kwargs["copy"])
            if copied is not None:
                return outcome(copied, "")
        if kwargs.get("copy") is not True:  # copy=True's shared memory is STRM-4's, above
            flagged = copied_flag_on_own_memory(fw, value, capsule)
            if flagged is not None:
                return outcome(flagged, "")
        if stream_on_cpu:
            del capsule
            return outcome(bridge.make_finding(
                "stream-accepted-on-cpu", "STRM-1", f"expected {fw.label}'s __dlpack__"
                f"(stream={kwargs['stream']}) of a CPU array refused (the Array API's __dlpack__: "
                f"\"On CPU and other device types without streams, only None is accepted\") but "
                f"found a capsule"), "")
        seen = bridge.negotiate(capsule, kwargs.get("max_version"), bool(kwargs.get("copy")),
                                spoken_version(value, capsule, kwargs.get("max_version")))
        if seen["finding"] is not None:
            return outcome(seen["finding"], seen["answer"])
        # The capsule is dropped unconsumed: its destructor must release the array (LIFE-2).
        del capsule
        if not released(value, before):
            return outcome(bridge.make_finding(
                "deleter-leaks", "LIFE-2", f"expected the capsule's destructor to release "
                f"{fw.label}'s array when the capsule was dropped unconsumed but the array kept "
                f"{sys.getrefcount(value) - before} more reference(s) ({seen['answer']})"), "")
        return ("pass", "", "", "", f"{seen['answer']}; dropped unconsumed, the array released")
    return body



def dropped_during_exception(fw):
    """A capsule of fw's dropped unconsumed while a RuntimeError propagates (NumPy's
    test_dlpack_destructor_exception): the destructor leaves the exception as it was and
    releases the array (LIFE-2)."""
    def body():
        value = plain_array(fw, (2, 2))
        gc.collect()  # a cycle that still holds the new array would hide a leak when collected
        before = sys.getrefcount(value)
        try:
            kept, pending = bridge.release_while_raising(value)
        except Exception as e:  # the export itself: the max_version rows judge it
            return ("skip", "", "", "", f"n/a: __dlpack__() raised {type(e).__name__}: "
                    f"{clean(e)[:160]}")
        if kept is None:  # no capsule at all: the max_version rows judge that
            return ("skip", "", "", "", f"n/a: {pending}")
        if not kept:
            # The spec's example destructor saves it: SHOULD, derived. A destructor that fails
            # on the pending exception may or may not get to the deleter (Warp's, from one run
            # to the next): the lost exception is the finding, whatever became of the array.
            return outcome(bridge.make_finding(
                "producer-violation", "LIFE-2", f"expected the RuntimeError pending while "
                f"{fw.label}'s unconsumed capsule died to survive its destructor but found "
                f"{clean(pending)[:160]}"), "")
        if not released(value, before):  # the deleter not called: MUST (python_spec.rst)
            return outcome(bridge.make_finding(
                "deleter-leaks", "LIFE-2", f"expected the capsule's destructor to release "
                f"{fw.label}'s array when the capsule died during an exception but the array "
                f"kept {sys.getrefcount(value) - before} more reference(s)"), "")
        return ("pass", "", "", "", "dropped unconsumed during a RuntimeError: the exception "
                "kept, the array released")
    return body


def deleter_off_thread(fw):
    """A capsule of fw's taken as a consumer in C takes it, and its deleter called on a thread
    of its own that holds no GIL, once nothing else holds the array (python_spec.rst: the deleter
    "must ensure that sharing beyond Python boundaries is possible; the GIL must be acquired
    explicitly if it uses Python objects or API"). The bridge counts the deleter's calls into
    Python's allocator made without the GIL (LIFE-7, MUST). A deleter that uses no Python, or takes
    the GIL, or leaves the release to a thread that holds it, passes."""
    def body():
        value = plain_array(fw, (2, 2))
        try:
            capsule = ask_capsule(value)
        except Exception as e:  # a refusal: the max_version rows judge it
            if adapter_raised(e, (fw,)):
                raise
            return ("skip", "", "", "", f"n/a: __dlpack__() raised {type(e).__name__}: "
                    f"{clean(e)[:160]}")
        if not is_capsule(capsule):
            return ("skip", "", "", "", "n/a: __dlpack__() returned no capsule (the max_version "
                    "rows judge that)")
        handle, versioned = bridge.take_for_thread(capsule)
        if handle is None:
            return ("skip", "", "", "", f"n/a: {versioned}")
        try:
            watch = weakref.ref(value)
        except TypeError:  # no weak references to fw's arrays: the release goes unseen
            watch = None
        del value, capsule
        gc.collect()  # the struct's reference is the last one, so its deleter releases the array
        finished, calls, first = bridge.delete_off_thread(handle, versioned)
        if not finished:
            return outcome(bridge.make_finding(
                "producer-violation", "LIFE-7", f"expected {fw.label}'s deleter, called on a "
                "thread that holds no GIL, to return but it had not after 5 s"), "")
        if calls:
            return outcome(bridge.make_finding(
                "producer-violation", "LIFE-7", f"expected {fw.label}'s deleter, called on a "
                f"thread that holds no GIL, to take the GIL before it uses Python but found "
                f"{calls} call(s) of Python's allocator without it (the first: {first})"), "")
        seen = ("the array not watched (no weak reference)" if watch is None else
                "the array released" if watch() is None else "the array still alive after it")
        return ("pass", "", "", "", f"the deleter run on a thread without the GIL: no Python "
                f"allocator call without it; {seen}")
    return body


def reuses_for_copy_none(fw):
    """OB-169 (the Array API 2024.12 __dlpack__ copy: "If None, the function must reuse the
    existing memory buffer if possible and copy otherwise"): two copy=None exports of one array,
    held together, and a copy=False one beside them. Where copy=False hands over memory without
    a copy, reuse is possible, so two copy=None capsules over different memory (each a copy of
    its own) break the sentence (STRM-4). A refused copy=False says a copy was needed: any
    copy=None answer passes."""
    def body():
        value = plain_array(fw, (2, 3))
        held = []
        for ask in ({"max_version": (1, 3)}, {"max_version": (1, 3)},
                    {"max_version": (1, 3), "copy": False}):
            try:
                held.append(value.__dlpack__(**ask))
            except Exception as e:  # a refusal: the other negotiation rows judge it
                if adapter_raised(e, (fw,)):
                    raise
                if isinstance(e, TypeError) and not held:  # no copy keyword to judge
                    return ("skip", "", "", "", f"n/a: the old __dlpack__ signature "
                            f"({clean(error_words(e))[:120]})")
                return ("pass", "", "", "", f"__dlpack__({keywords_text(ask)}) refused: "
                        f"{clean(error_words(e))[:120]}")
        if not all(is_capsule(c) for c in held):
            return ("pass", "", "", "", "no capsule to compare (the other rows judge it)")
        first, second, shared = (bridge.capsule_data(c) for c in held)
        del held
        if None in (first, second, shared):
            return ("pass", "", "", "", "no data pointer to compare")
        if first != second and shared not in (first, second):
            return outcome(bridge.make_finding(
                "producer-violation", "STRM-4", f"expected {fw.label}'s __dlpack__(copy=None) to "
                f"reuse the array's memory where possible (the Array API 2024.12: \"If None, the "
                f"function must reuse the existing memory buffer if possible\") but two copy=None "
                f"capsules held together point at two other buffers, each a copy, while "
                f"copy=False hands over the array's memory without one"), "")
        return ("pass", "", "", "", "copy=None exports " + (
            "the memory copy=False hands over" if shared in (first, second) else
            "one buffer twice") + " (reused)")
    return body


def capsule_names(fw, api=None):
    """Where the names of fw's capsules lie, versioned and legacy, or those of its own exporter
    `api` (python_spec.rst: the names "must be statically allocated"): a capsule keeps the
    pointer, not the bytes, so a name in the heap lasts only as long as whatever owns it
    (LIFE-1). The capsules are dropped unconsumed; what the exports answer is the other
    negotiation rows' to judge."""
    def body():
        value = plain_array(fw, (2, 2))
        if api is None:
            exports = (("__dlpack__(max_version=(1, 3))",
                        lambda: value.__dlpack__(max_version=(1, 3))),
                       ("__dlpack__()", lambda: value.__dlpack__()))
        else:
            exports = ((f"{api}()", lambda: fw.legacy_exports[api](value)),)
        named = []
        for call, export in exports:
            try:
                capsule = export()
            except Exception as e:  # a refusal: the other negotiation rows judge it
                if adapter_raised(e, (fw,)):
                    raise
                continue
            if not is_capsule(capsule):
                continue
            name, static = bridge.capsule_name_storage(capsule)
            del capsule
            if not static:
                return outcome(heap_name_finding(
                    "producer-violation", f"expected the name {name} of the capsule of "
                    f"{fw.label}'s {call} statically allocated"), "")
            named.append(name)
        if not named:
            return ("skip", "", "", "", "n/a: no export gave a capsule (the other negotiation "
                    "rows judge that)")
        return ("pass", "", "", "", f"{' and '.join(dict.fromkeys(named))}: statically "
                "allocated (in a loaded object)")
    return body


def own_device(value):
    """The array's own __dlpack_device__() as two ints; None where it raises or answers no pair
    (the __dlpack_device__ cases judge that)."""
    try:
        return device_ints(value.__dlpack_device__())
    except Exception:
        return None


def spoken_version(value, capsule, asked):
    """For a legacy answer to a caller of DLPack 1.x: the newest version value's versioned
    answers carry when asked for (1, 3) or (1, 0), the only sign that the producer speaks 1.x
    (the Array API's producer logic returns its own version to any caller of its major or newer;
    a legacy answer there is a downgrade). None where no ask gives a versioned capsule."""
    if asked is None or asked[0] < 1 or bridge.capsule_kind(capsule) != "legacy":
        return None
    spoken = []
    for probe in ((1, 3), (1, 0)):
        try:
            answer = value.__dlpack__(max_version=probe)
        except Exception:
            continue
        kind = bridge.capsule_kind(answer) if is_capsule(answer) else ""
        if kind.startswith("versioned "):
            spoken.append(tuple(int(n) for n in kind.split()[1].split(".")))
    return max(spoken) if spoken else None


def on_own_memory(value, capsule):
    """Whether the capsule points at the array's own memory, what two plain exports held
    together agree on (one after the other, two copies could reuse one freed block); None where
    nothing compares (a producer whose exports each copy, no data pointer)."""
    try:
        held = [ask_capsule(value), ask_capsule(value)]
    except Exception:
        return None
    own = {export_address(c) if is_capsule(c) else None for c in held}
    crossed = bridge.capsule_data(capsule)
    del held
    if len(own) != 1 or None in own or crossed is None:
        return None
    return crossed == own.pop()


def copy_by_address(fw, value, capsule, copy):
    """STRM-4 judged by memory: __dlpack__(copy=True) hands over other memory than the array's
    own, copy=False the array's own (None: not judged here)."""
    same = on_own_memory(value, capsule)
    if same is None:
        return None
    if copy and same:
        return bridge.make_finding(
            "producer-violation", "STRM-4", f"expected {fw.label}'s __dlpack__(copy=True) to hand "
            f"over a copy (the Array API: \"If True, the function must always copy\") but its "
            f"capsule points at the array's own memory")
    if not copy and not same:
        return bridge.make_finding(
            "producer-violation", "STRM-4", f"expected {fw.label}'s __dlpack__(copy=False) to hand "
            f"over the array's own memory (\"If False, the function must never copy\") but its "
            f"capsule points elsewhere, where two plain exports agree on the array's memory")
    return None


IS_COPIED = 1 << 1


def copied_flag_on_own_memory(fw, value, capsule):
    """FLAG-2 (OB-058): IS_COPIED says the tensor is "solely owned ... by the consumer", so a
    capsule that sets it over the array's own memory (what two plain exports agree on) hands the
    consumer memory the array still uses. None where the flag is unset or nothing compares."""
    if not bridge.capsule_flags(capsule) & IS_COPIED or not on_own_memory(value, capsule):
        return None
    return bridge.make_finding(
        "producer-violation", "FLAG-2", f"expected {fw.label}'s capsule with IS_COPIED set to hold "
        f"a copy (dlpack.h: \"the tensor is considered solely owned throughout its lifetime by the "
        f"consumer\") but it points at the array's own memory")


def malformed_ask_answered(fw, value, capsule, asked):
    """fw exported for a max_version that is no 2-tuple: what it handed over is read as a DLPack
    1.3 consumer would (a malformed struct is the producer's finding), and the export itself is
    malformed-keyword-accepted (INFO: no text requires the refusal dpctl's test asserts)."""
    expected = expected_of(fw, value)
    seen = bridge.consume(HeldCapsule(capsule), max_version=(1, 3), expected=expected,
                          producer=fw.label)
    if seen.get("finding"):
        return outcome(seen["finding"], "")
    return outcome(bridge.make_finding(
        "malformed-keyword-accepted", "VER-4", f"expected {fw.label}'s __dlpack__(max_version="
        f"{asked!r}) to raise (the Array API's max_version is a 2-tuple (major, minor), and "
        f"\"other errors are raised when export fails for other reasons (e.g., incorrect "
        f"arguments passed ...)\"; dpctl's test asserts TypeError) but found a {seen['capsule']} "
        f"capsule, read right"), "")


def exporter_bad_input(fw, api):
    """fw's own exporter `api` (to_dlpack) handed None, no array of its: it must raise (Paddle's
    and TensorFlow's tests want TypeError; any exception passes), never crash or export."""
    def body():
        try:
            answer = fw.legacy_exports[api](None)
        except Exception as e:
            if adapter_raised(e, (fw,)):
                raise
            return ("pass", "", "", "", f"refused: {clean(error_words(e))[:160]}")
        shown = bridge.capsule_kind(answer) if is_capsule(answer) else type(answer).__name__
        return outcome(bridge.make_finding(
            "producer-violation", "VER-4", f"expected {fw.label}'s {api}(None) to raise but found "
            f"it returned {shown}"), "")
    return body


# The arrays __dlpack_device__ is asked of: a 2x2 one, and the shapes the peers' tests add
# (Paddle's test_dlpack_device_zero_dim and _zero_size, dpctl's).
DEVICE_SHAPES = (("", (2, 2)), ("/0-d", ()), ("/size-0", (0, 2)))


def device_asks(fw, host):
    """(suffix, build) of each array __dlpack_device__ is asked of: the shapes above, a
    transposed view where fw makes one, and fw's import of a NumPy array where fw imports on the
    host (the peers' P-30: the same answer for views and imports)."""
    asks = [(suffix, lambda shape=shape: plain_array(fw, shape)) for suffix, shape in DEVICE_SHAPES]
    if "T" in fw.views:
        asks.append(("/view", lambda: fw.view(plain_array(fw, (3, 4)), "T")))
    if fw.imports and host:
        asks.append(("/import", lambda: imported_array(fw)))
    return asks


def imported_array(fw):
    """fw's import of a NumPy array (its import is judged elsewhere: a refusal is no case here)."""
    try:
        return fw.import_(fw.np.ones((2, 2), "float32"))
    except Exception as e:
        raise Unsupported(f"its import of a NumPy array failed: {type(e).__name__}") from None


def imported_device_answer(fw):
    """The device of fw's import of a NumPy array, for an importer whose own arrays export
    nothing (the planted importers, MXNet): from_dlpack(x) without device= puts its result on
    x's device (the Array API's from_dlpack: "must be on the same device as x"), the CPU (DEV-1,
    as device_answer). A result without __dlpack_device__ says nothing: n/a."""
    def body():
        value = imported_array(fw)
        if not callable(getattr(value, "__dlpack_device__", None)):
            return ("skip", "", "", "", f"n/a: {type(value).__name__}, {fw.label}'s import of a "
                    "NumPy array, has no __dlpack_device__")
        return device_answer(fw, lambda: value)()
    return body


def device_answer(fw, build=None):
    """__dlpack_device__() of an array (build's, else a 2x2 one): two integers (DEV-1: a device
    type it names at all), the device its arrays live on: (1, 0) for a CPU array (DEV-2: device_id
    0 on the CPU)."""
    def body():
        value = build() if build is not None else plain_array(fw, (2, 2))
        answer = device_of(fw.label, value)
        want = tuple(fw.device)
        if answer != want:
            where = "a CPU array" if want == (1, 0) else "an array on that device"
            # The device type wrong is DEV-1's; only the id wrong on the CPU is DEV-2's.
            return outcome(bridge.make_finding(
                "producer-violation", "DEV-2" if answer[0] == want[0] == 1 else "DEV-1",
                f"expected __dlpack_device__() to answer {want} for {where} but found "
                f"{answer!r}"), "")
        return ("pass", "", "", "", f"{answer}")
    return body


def xapi(fw, check):
    def body():
        value = plain_array(fw, (2, 3), fw.np.arange(6, dtype="float32").reshape(2, 3))
        results = bridge.check_exchange_api(value)
        mine = [r for r in results if r[0] == check]
        failed = [r for r in mine if not r[1]]
        if failed:
            return outcome(bridge.make_finding("xapi-violation", check, failed[0][2]), "")
        return ("pass", "", "", "", "; ".join(r[2] for r in mine))
    return body


def from_py_object(value):
    """The table of value's type asked for its tensor (bridge.xapi_from_py_object): None without a
    major-1 table, else (rc, capsule, the first line of the error's words, whether it is a
    BufferError); a C++ backtrace may follow the message (c10::Error)."""
    answer = bridge.xapi_from_py_object(value)
    if answer is None:
        return None
    rc, capsule, error, buffer_error = answer
    return rc, capsule, error.split("\n")[0], buffer_error


def xapi_read_only(fw):
    """The exchange API of a read-only array's type (torch's ReadOnlyTensorWrapper publishes a
    const table, P-63): from_py_object exports it with READ_ONLY, as __dlpack__ must (FLAG-1b), or
    refuses it."""
    def body():
        values = fw.np.arange(6, dtype="float32").reshape(2, 3)
        value = read_only_array(fw, (2, 3), values)
        if value is None:
            return ("skip", "", "", "", "n/a: no read-only arrays")
        answer = from_py_object(value)
        if answer is None:
            return ("pass", "", "", "", f"{type(value).__name__} (read-only) has no major-1 "
                    f"exchange-API table with a from_py_object on its type")
        rc, capsule, error, _ = answer
        if rc != 0 or capsule is None:  # XAPI-3 and XAPI-5 judge how a table refuses
            return ("pass", "", "", "", f"from_py_object refused the read-only array (rc {rc}): "
                    f"{clean(error)[:160]}")
        expected = {"shape": (2, 3), "dtype": (2, 32, 1), "elements": 6, "read_only": True,
                    "digest": bridge.digest(values.tobytes())}
        seen = bridge.consume(HeldCapsule(capsule), max_version=(1, 3), expected=expected,
                              producer=fw.label)
        finding = seen.get("finding")
        if finding and finding[1] != "FLAG-1b":  # the tensor itself is wrong: as XAPI-5's check
            return outcome(bridge.make_finding(
                "xapi-violation", "XAPI-5", f"expected from_py_object of a read-only array to hand "
                f"over its values, or refuse it, but: {finding[3]}"), "")
        if finding:
            return outcome(finding, "")
        return ("pass", "", "", "", f"{type(value).__name__}'s table: READ_ONLY set")
    return body


def xapi_unexpressible(fw, why, build):
    """The table's from_py_object on an array DLPack cannot express (`why`): refused with
    BufferError ("should be a BufferError if possible"), or a tensor that reads as the values fw
    says the array holds, judged by the reference consumer as an export is."""
    def body():
        try:
            value = build()
        except Exception as e:
            return ("skip", "", "", "", f"n/a: cannot make it here: {type(e).__name__}: "
                    f"{clean(e)[:120]}")
        answer = from_py_object(value)
        if answer is None:
            return ("skip", "", "", "", f"n/a: {type(value).__name__} has no major-1 exchange-API "
                    f"table with a from_py_object on its type")
        rc, capsule, error, buffer_error = answer
        if rc == -1 and buffer_error:
            return ("pass", "", "", "", f"from_py_object refused {why}: {clean(error)[:160]}")
        if rc == -1 and not error:
            return outcome(bridge.make_finding(
                "xapi-violation", "XAPI-5", f"expected managed_tensor_from_py_object_no_sync of "
                f"{why} to return 0, or -1 with a Python exception set, but found -1 without a "
                f"Python exception"), "")
        if rc == -1:
            return outcome(wrong_refusal(f"{fw.label}'s from_py_object", clean(error)[:200],
                                         "XAPI-5", why), "")
        if rc != 0 or capsule is None:
            return outcome(bridge.make_finding(
                "xapi-violation", "XAPI-3" if rc < -1 else "XAPI-5",
                f"expected managed_tensor_from_py_object_no_sync of {why} to return 0 with a tensor "
                f"or -1 with BufferError but found rc {rc}" +
                (" (a C++ exception escaped)" if rc < -1 else "")), "")
        try:
            expected = expected_of(fw, value)
        except Exception:
            expected = None  # no DLPack dtype to compare with
        if expected is None:
            return outcome(bridge.make_finding(
                "xapi-violation", "XAPI-5", f"expected from_py_object to refuse {why}, whose "
                f"values {fw.label} gives as no DLPack dtype, with BufferError but it handed over a "
                f"tensor"), "")
        seen = bridge.consume(HeldCapsule(capsule), max_version=(1, 3), expected=expected,
                              producer=fw.label)
        if seen.get("finding"):
            cls, rule, severity, words = seen["finding"]
            return outcome(bridge.make_finding(
                "xapi-violation", "XAPI-5", f"expected from_py_object of {why} to hand over the "
                f"values {fw.label} says it holds, or refuse with BufferError, but: {words}"), "")
        return ("pass", "", "", "", f"from_py_object described {why}: its tensor reads as "
                f"{fw.label} says it holds")
    return body


if __name__ == "__main__":
    sys.exit("dlconform_negotiation.py is a part of dlconform_frameworks.py")
