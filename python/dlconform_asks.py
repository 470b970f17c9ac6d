"""The consumer's half of the Python protocol, and immutable data, for dlconform_frameworks.py.

  asks/ENV/B@W/ASK          B's from_dlpack is handed a recording producer: every call B makes
      on it is kept in order (__dlpack_device__, each __dlpack__ with its keywords and what it
      returned or raised) and judged (VER-5: max_version first, a second question only after
      TypeError and none after a capsule; STRM-1: no stream on the CPU; STRM-3, STRM-4: device=
      and copy= as B's own caller asked). ASK is one of ASKS below.
  asks/ENV/B@W/device=unknown   B's from_dlpack(mock, device=UNKNOWN_DEVICE), a device name no
      library has: it must raise (any exception); an array returned is unknown-device-accepted
      (STRM-3, MUST: the Array API defines device= as "device on which to place the created
      array", and there is no such device to place it on). NumPy and dpctl test the same.
  asks/ENV/B@W/[API/]bad-input/WHAT   B's from_dlpack (or its capsule API) handed what holds no
      capsule: None (no-dlpack), or an object whose __dlpack__ returns an int (not-a-capsule; a
      capsule API gets the int itself). Any exception passes; a crash fails; an array returned is
      non-dlpack-input-accepted (INFO: no text names the exception), except from_dlpack(None):
      AttributeError, which the Array API requires since 2023.12 (no-attribute-error, MUST).
  asks/ENV/B@W/[API/]used-name   B's from_dlpack (or its capsule API) of a DLPack 1.3 mock: the
      used_* name B renames the capsule to lies in a loaded object, statically allocated
      (LIFE-1, python_spec.rst).
  asks/ENV/B@W/memory/ASK    B's from_dlpack (default, copy=True, copy=False) on a DLPack 1.3 mock:
      whether its array shares the memory that crossed, by its data pointer (its own export) or by
      a write into that memory, and whether its own write reaches it (STRM-4: copy=True must
      copy unless the producer did, copy=False must not; a default copy is INFO).
  asks/ENV/B@W/API/memory/default   the same for each capsule API of B (TensorFlow's, MXNet's,
      Paddle's utils.dlpack.from_dlpack), handed the mock's capsule of __dlpack__().
  immutable/ENV/A@V/dlconform-consumer@v1.3/flag-1b   A's immutable array (JAX's, Arrow's, a
      read-only NumPy view), asked with max_version=(1, 3): a versioned capsule with READ_ONLY
      (FLAG-1b, SHOULD).
  immutable/ENV/A@V/B@W/write-through   A's immutable array into B's import, then a write through
      B's array: refused, copied, imported read-only, or the write changed A's immutable data (a
      finding: FLAG-1 for B when READ_ONLY crossed, FLAG-1b for A when it did not).

The verdicts are the judge's (harness/judge/judge_asks.cpp, through the bridge)."""
import ctypes
import gc
import sys

import _dlconform as bridge
from dlconform_adapter import Framework, Unsupported
from dlconform_workers import (Case, adapter_raised, capsule_finding, clean, error_words,
                               export_address, heap_name_finding, is_capsule, outcome)


class Recorder:
    """A producer as a consumer sees it, keeping every call the consumer makes on it (with what
    crossed: the capsule's kind and flags, read before the consumer takes it). `inner` is the
    real producer (a MockTensor, an array); `refuse` answers every __dlpack__ with BufferError,
    as a producer that cannot export does."""
    def __init__(self, inner, device=(1, 0), refuse=False):
        self.inner, self.device, self.refuse, self.calls = inner, device, refuse, []

    def __dlpack__(self, *args, **kwargs):
        call = {"kind": "dlpack"}
        if args:  # the old positional stream
            call["stream"] = args[0]
        for key in ("stream", "max_version", "dl_device", "copy"):
            if key in kwargs:
                call[key] = kwargs[key]
        unknown = sorted(set(kwargs) - {"stream", "max_version", "dl_device", "copy"})
        self.calls.append(call)
        if unknown:
            call["answer"] = "TypeError"
            raise TypeError(f"__dlpack__() got an unexpected keyword argument '{unknown[0]}'")
        if self.refuse:
            call["answer"] = "BufferError"
            raise BufferError("this producer cannot export the array")
        try:
            capsule = self.inner.__dlpack__(*args, **kwargs)
        except TypeError:
            call["answer"] = "TypeError"
            raise
        except BufferError:
            call["answer"] = "BufferError"
            raise
        except Exception:
            call["answer"] = "error"
            raise
        if not is_capsule(capsule):  # the producer's defect (not-a-capsule), handed on as it is
            call["answer"] = "not a capsule"
            call["returned"] = capsule
            return capsule
        call["answer"] = "capsule"
        call["crossed"] = bridge.capsule_kind(capsule)  # read before the consumer takes it
        call["flags"] = bridge.capsule_flags(capsule)
        call["data"] = bridge.capsule_data(capsule)
        return capsule

    def __dlpack_device__(self):
        self.calls.append({"kind": "device"})
        return self.device


def calls_text(calls):
    """The calls in order, as the report's table shows them."""
    out = []
    for c in calls:
        if c["kind"] == "device":
            out.append("__dlpack_device__()")
            continue
        keywords = []
        for key in ("max_version", "stream", "dl_device", "copy"):
            if key in c:
                v = c[key]
                keywords.append(f"{key}={v[0]}.{v[1]}" if key == "max_version" and
                                isinstance(v, tuple) and len(v) == 2 else f"{key}={v!r}")
        answer = c.get("answer", "capsule")
        out.append(f"__dlpack__({', '.join(keywords)})" + ("" if answer == "capsule" else
                                                             f" -> {answer}"))
    return "; ".join(out) if out else "no call"


# (ask, producer plugin, header, tensor, rule, what B's caller passes, a refusing producer)
ASKS = [("plain", "versioned-producer", "v1.3", "VER-5", {}, False),
        ("after-type-error", "legacy-producer", "v0.8", "VER-5", {}, False),
        # python_spec.rst: the fallback "is also applicable to handling of the new dl_device and
        # copy keywords": the old signature's TypeError with them asked too.
        ("after-type-error,copy=True", "legacy-producer", "v0.8", "VER-5", {"copy": True}, False),
        ("after-type-error,device=cpu", "legacy-producer", "v0.8", "VER-5", {"device": "cpu"},
         False),
        ("after-buffer-error", "versioned-producer", "v1.3", "VER-5", {}, True),
        ("copy=True", "versioned-producer", "v1.3", "STRM-4", {"copy": True}, False),
        ("copy=False", "versioned-producer", "v1.3", "STRM-4", {"copy": False}, False),
        ("device=cpu", "versioned-producer", "v1.3", "STRM-3", {"device": "cpu"}, False)]
ASK_TENSOR = "f32_8x8"


def asks(fw, producer_path, caller, refuse):
    """B's from_dlpack on a recording producer; the judge reads the calls."""
    def body():
        keywords = dict(caller)
        if "device" in keywords:
            keywords["device"] = fw.cpu_device()
            if keywords["device"] is None:
                return ("skip", "", "", "", "n/a: the library names no CPU device")
        recorder = Recorder(bridge.MockTensor(producer_path, ASK_TENSOR), refuse=refuse)
        error = import_recorded(fw, recorder, keywords)
        if keywords and keyword_refused(recorder, error):
            return ("skip", "", "", "", f"n/a: from_dlpack takes no {next(iter(caller))}= "
                    f"({clean(error)[:120]})")
        return judged_calls(fw, recorder, error, caller.get("copy"),
                            (1, 0) if "device" in caller else None)
    return body


def used_name(fw, producer_path, api=None):
    """The name B's from_dlpack (or its capsule API `api`, handed the capsule of __dlpack__())
    leaves on a capsule it takes (LIFE-1). python_spec.rst: the names "must be statically
    allocated" (a capsule keeps the pointer, not the bytes, so a name in the heap lasts only as
    long as whatever owns it), and the consumer takes the tensor "by renaming the capsule". The
    mock holds the capsule and reads it once the import returns: a consumer may clear the
    capsule's destructor when it takes it, which the import rows never see; one that takes the
    tensor so without the rename is judged here, once."""
    def body():
        mock = bridge.MockTensor(producer_path, ASK_TENSOR)
        mock.hold()
        error = None
        try:
            if api is None:
                value = fw.import_(mock)
            else:
                value = fw.capsule_imports[api](mock.__dlpack__())
            del value
        except Exception as e:
            if adapter_raised(e, (fw,)):
                raise
            error = error_words(e)
        finally:
            held = mock.release_held()  # (name, our destructor kept, name static)
        gc.collect()
        name, destructor_kept, static = held if held is not None else ("", True, True)
        what = "imported" if error is None else f"refused: {clean(error)[:120]}"
        taker = f"{fw.label}'s {api or 'from_dlpack'}"
        if not name.startswith("used_"):
            if error is None and not destructor_kept and mock.deleter_calls() > 0:
                return outcome(bridge.make_finding(
                    "capsule-not-renamed", "LIFE-1", f"expected {taker} to rename the capsule "
                    f"used_{name} when it took the tensor but found {name}: it called the "
                    f"deleter and cleared the capsule's destructor, so whoever else holds the "
                    f"capsule sees an unconsumed one whose struct is freed"), "")
            return ("skip", "", "", "", f"n/a: {name or 'no capsule'} was not renamed used_* "
                    f"({what}; the import rows judge the rename)")
        if not static:
            return outcome(heap_name_finding(
                "capsule-misnamed", f"expected {taker} to rename the capsule to a statically "
                f"allocated {name}"), "")
        return ("pass", "", "", "", f"renamed {name}: statically allocated (in a loaded object)")
    return body


def keyword_refused(recorder, error):
    """Whether from_dlpack raised TypeError before it called __dlpack__: it takes no keyword the
    case passed."""
    return (error is not None and error.startswith("TypeError")
            and not any(c["kind"] == "dlpack" for c in recorder.calls))


def import_recorded(fw, producer, keywords):
    """fw's from_dlpack(producer, **keywords) (a Recorder, a mock's tensor), the result dropped
    and collected: None, or the words of what it raised."""
    error = None
    try:
        value = fw.import_(producer, **keywords)
        del value
    except Exception as e:
        error = error_words(e)
    gc.collect()
    return error


def judged_calls(fw, recorder, error, caller_copy, caller_device):
    """The judge's verdict on the calls fw made (VER-5, STRM-1, STRM-3, STRM-4), with them."""
    facts = {"consumer": fw.label, "consumer_version": fw.header(), "imported": error is None,
             "caller_copy": caller_copy, "caller_device": caller_device,
             "producer_device": recorder.device}
    finding = bridge.judge_asks(recorder.calls, facts)
    text = calls_text(recorder.calls)
    if finding is not None:
        cls, rule, severity, words = finding
        finding = (cls, rule, severity, f"{words} [calls: {text}]")
    what = "imported" if error is None else f"refused: {clean(error)[:120]}"
    return outcome(finding, f"{what} [calls: {text}]")


UNKNOWN_DEVICE = "dlconform-no-such-device"


def unknown_device(fw, producer_path):
    """B's from_dlpack handed a device it does not have: it must raise, not return an array."""
    def body():
        cpu = fw.cpu_device()
        if cpu is None:
            return ("skip", "", "", "", "n/a: the library names no CPU device (no device= to ask)")
        recorder = Recorder(bridge.MockTensor(producer_path, ASK_TENSOR))
        error = import_recorded(fw, recorder, {"device": UNKNOWN_DEVICE})
        if keyword_refused(recorder, error):  # the device's refusal, or no device= at all?
            known = Recorder(bridge.MockTensor(producer_path, ASK_TENSOR))
            known_error = import_recorded(fw, known, {"device": cpu})
            if keyword_refused(known, known_error):
                return ("skip", "", "", "", f"n/a: from_dlpack takes no device= "
                        f"({clean(known_error)[:120]})")
        text = calls_text(recorder.calls)
        if error is None:
            return outcome(bridge.make_finding(
                "unknown-device-accepted", "STRM-3", f"expected {fw.label}'s from_dlpack(x, "
                f"device={UNKNOWN_DEVICE!r}) to raise (the Array API's from_dlpack, device: "
                f"\"device on which to place the created array\") but found it returned an array "
                f"[calls: {text}]"), "")
        return ("pass", "", "", "", f"refused: {clean(error)[:120]} [calls: {text}]")
    return body


class IntProducer:
    """A producer whose __dlpack__ returns an int, no PyCapsule: an importer that takes whatever
    comes back for a capsule reads the int as a pointer."""
    def __dlpack__(self, **keywords):
        return 16

    def __dlpack_device__(self):
        return (1, 0)


BAD_INPUTS = {"no-dlpack": "None", "not-a-capsule": "what holds no capsule (an int)"}


def bad_input(fw, which, api=None):
    """B's importer handed what holds no DLPack capsule (BAD_INPUTS): it must raise, not crash."""
    def body():
        recorder = Recorder(IntProducer()) if which == "not-a-capsule" and api is None else None
        handed = recorder if recorder is not None else (None if which == "no-dlpack" else 16)
        importer = fw.capsule_imports[api] if api else fw.import_

        def calls():
            return f" [calls: {calls_text(recorder.calls)}]" if recorder is not None else ""
        # from_dlpack itself (no capsule API) is the Array API's: None lacks __dlpack__ and
        # __dlpack_device__, for which it requires AttributeError (2023.12 and 2024.12).
        array_api_none = which == "no-dlpack" and api is None and fw.array_api_import

        def no_attribute_error(found):
            return outcome(bridge.make_finding(
                "no-attribute-error", "VER-4", f"expected {fw.label}'s from_dlpack(None) to raise "
                f"AttributeError (the Array API's from_dlpack, 2023.12: \"If the __dlpack__ and "
                f"__dlpack_device__ methods are not present\") but found {found}"), "")
        try:
            result = importer(handed)
        except Exception as e:
            if adapter_raised(e, (fw,)):
                raise
            if array_api_none and not isinstance(e, AttributeError):
                return no_attribute_error(clean(error_words(e))[:120])
            return ("pass", "", "", "", f"refused: {clean(error_words(e))[:120]}{calls()}")
        returned = type(result).__name__
        del result
        if array_api_none:
            return no_attribute_error(f"it returned a {returned}")
        return outcome(bridge.make_finding(
            "non-dlpack-input-accepted", "VER-4", f"expected {fw.label}'s "
            f"{api or 'from_dlpack'} to raise for {BAD_INPUTS[which]} but found it returned a "
            f"{returned}{calls()}"), "")
    return body


MEMORY_ASKS = {"memory/default": None, "memory/copy=True": True, "memory/copy=False": False}
IS_COPIED = 1 << 1
SENTINEL = 4242.0  # written into the producer's memory; the mock's f32_8x8 holds small integers


def own_address(fw, value):
    """Where fw's array keeps its first element, by fw's own export of it (__dlpack__, or its
    export() capsule); None where it has no export, or its export has no single answer."""
    if not (fw.exports and (fw.dunder or fw.legacy_exports)):
        return None
    try:
        exported = fw.export(value)
    except Exception:  # an array it cannot export (a read-only import, say): no answer
        return None
    return export_address(exported)


def first_value(fw, value):
    """The first element of fw's array, read through fw's own read-back."""
    array = fw.to_np(value)
    return float(array.reshape(-1)[0]) if array.size else None


def memory(fw, producer_path, copy, api=None):
    """B's from_dlpack(mock, copy=...), or its capsule API `api` handed the mock's capsule:
    shared or copied, judged by memory (STRM-4)."""
    def body():
        mock = bridge.MockTensor(producer_path, ASK_TENSOR)
        recorder = Recorder(mock)
        keywords = {} if copy is None else {"copy": copy}
        try:
            if api is None:
                result = fw.import_(recorder, **keywords)
            else:  # the capsule a user hands it: __dlpack__() without keywords
                result = fw.capsule_imports[api](recorder.__dlpack__())
        except Exception as e:
            if adapter_raised(e, (fw,)):
                raise
            error = error_words(e)
            if keywords and error.startswith("TypeError") and not any(
                    c["kind"] == "dlpack" for c in recorder.calls):
                return ("skip", "", "", "", f"n/a: from_dlpack takes no copy= "
                        f"({clean(error)[:120]})")
            return ("pass", "", "", "", f"refused: {clean(error)[:120]} [calls: "
                    f"{calls_text(recorder.calls)}]")
        crossed = [c for c in recorder.calls if c.get("answer") == "capsule"]
        if not crossed or crossed[-1].get("data") is None:
            return ("skip", "", "", "", "n/a: no capsule of this major crossed")
        source = crossed[-1]["data"]
        producer_copied = bool(crossed[-1]["flags"] & IS_COPIED)
        address = own_address(fw, result)
        live = bridge.data_live(source)  # False: it let the producer's memory go, a copy
        try:
            if address is not None:
                shared, how = address == source, "by its data pointer"
            elif not live:
                first_value(fw, result)  # its arrays must read back for a verdict
                shared, how = False, "the producer's memory released at import"
            else:
                ctypes.c_float.from_address(source).value = SENTINEL
                shared, how = first_value(fw, result) == SENTINEL, "by a write into it"
        except Unsupported as e:
            return ("skip", "", "", "", f"n/a: its arrays cannot be read back ({e})")
        words = f"{'shared' if shared else 'copied'} ({how})"
        if shared and live:  # and the other way round, where it writes
            try:
                fw.write(result)
                words += (", its write reaches the producer" if
                          ctypes.c_float.from_address(source).value == 42 else
                          ", its write does not reach the producer")
            except Exception:
                pass
        del result
        words += f" [calls: {calls_text(recorder.calls)}]"
        if copy is True and shared and not producer_copied:
            return outcome(bridge.make_finding(
                "copy-not-made", "STRM-4", f"expected {fw.label}'s from_dlpack(copy=True) to "
                f"copy (the Array API's from_dlpack: \"If True, the function must always copy\") "
                f"but found its array {words}"), "")
        if copy is False and not shared:
            return outcome(bridge.make_finding(
                "copy-made", "STRM-4", f"expected {fw.label}'s from_dlpack(copy=False) to share "
                f"the producer's memory (the Array API's from_dlpack: \"If False, the function "
                f"must never copy\") but found its array {words}"), "")
        if copy is None and not shared and api is None and shares_for_copy_false(
                fw, producer_path):
            return outcome(bridge.make_finding(
                "buffer-not-reused", "STRM-4", f"expected {fw.label}'s from_dlpack() to reuse the "
                f"memory it was handed (copy=None \"must reuse the existing memory buffer if "
                f"possible\", and its from_dlpack(copy=False) of the same tensor shares it) but "
                f"found its array {words}"), "")
        if copy is None and not shared:
            return outcome(bridge.make_finding(
                "import-copied", "STRM-4", f"expected {fw.label}'s {api or 'from_dlpack'}() to "
                f"reuse the memory it was handed (copy=None \"must reuse the existing memory buffer if "
                f"possible\") but found its array {words}"), "")
        if copy is True and shared:
            words = "the producer's copy (IS_COPIED) " + words
        return ("pass", "", "", "", words)
    return body


def shares_for_copy_false(fw, producer_path):
    """Whether fw's from_dlpack(copy=False) of a fresh mock tensor shares its memory: then a
    copy under copy=None was no necessity (OB-197). The memory/copy=False row's own judge, run
    again: its pass says "shared (...)" only when the import kept the producer's memory."""
    verdict = memory(fw, producer_path, False)()
    return verdict[0] == "pass" and verdict[4].startswith("shared (")


def immutable_value(fw):
    """An immutable float32 array of fw holding 0, 1, 2, 3, or None when fw has none."""
    try:
        return fw.read_only(fw.from_np(fw.np.arange(4, dtype="float32")))
    except Unsupported:
        return None


def flag_1b(fw):
    """fw's immutable array asked with max_version=(1, 3): FLAG-1b judged by the bridge."""
    def body():
        value = immutable_value(fw)
        if value is None:
            return ("skip", "", "", "", "n/a: no immutable arrays")
        expected = {"shape": (4,), "dtype": (2, 32, 1), "elements": 4, "read_only": True,
                    "digest": bridge.digest(fw.np.arange(4, dtype="float32").tobytes())}
        try:
            seen = bridge.consume(fw.export(value), max_version=(1, 3), expected=expected,
                                  producer=fw.label)
        except Exception as e:
            return ("pass", "", "", "", f"refused: {error_words(e)[:160]}")
        if seen.get("finding"):
            return outcome(seen["finding"], "")
        flags = "READ_ONLY" if seen.get("flags", 0) & 1 else "no flags"
        return ("pass", "", "", "", f"{seen['capsule']} with {flags}")
    return body


def write_through(a, b):
    """A's immutable array into B's import, then a write through B's array."""
    def body():
        value = immutable_value(a)
        if value is None:
            return ("skip", "", "", "", "n/a: no immutable arrays")
        before = a.to_np(value).tobytes()
        recorder = Recorder(a.export(value), device=(1, 0))
        try:
            result = b.import_(recorder)
        except Exception as e:
            for call in recorder.calls:  # A answered something else than a capsule: A's finding
                if call.get("answer") == "not a capsule":
                    asked = {k: call[k] for k in ("stream", "max_version", "dl_device", "copy")
                             if k in call}
                    return outcome(capsule_finding(a.label, call["returned"], asked), "")
            return ("pass", "", "", "", f"refused: {error_words(e)[:160]}")
        asked = [c for c in recorder.calls if c["kind"] == "dlpack"]
        last = asked[-1] if asked else {}
        crossed = last.get("crossed", "?")
        try:
            b.write(result)
        except Exception as e:  # a read-only import, or an array type with no writes at all
            return ("pass", "", "", "", f"{crossed}: imported read-only "
                    f"({type(e).__name__}: {clean(e)[:120]})")
        changed = a.to_np(value).tobytes() != before
        del result
        if not changed:
            return ("pass", "", "", "", f"{crossed}: copied (the write left the original as it "
                    "was)")
        facts = {"versioned": crossed.startswith("versioned"),
                 "read_only_flag": bool(last.get("flags", 0) & 1),
                 "asked_versioned": bool(last.get("max_version"))
                 and last["max_version"][0] >= 1,
                 "producer_versioned": a.header()[0] >= 1,
                 "consumer_has_read_only": b.writable_concept,
                 "producer": a.label, "consumer": b.label}
        return outcome(bridge.judge_write_through(facts), "")
    return body


def has_read_only(fw):
    """fw has, or may have, immutable arrays (a module judged by name finds out in the case: its
    read_only probes a write)."""
    return fw.immutable or (type(fw).read_only is not Framework.read_only and fw.read_only_arrays)


def may_be_immutable(fw):
    """fw exports through __dlpack__ and has, or may have, immutable arrays."""
    return fw.exports and fw.dunder and has_read_only(fw)


def plan_consumer_calls(frameworks, producer_path_of, env):
    """The asks and immutable cases of one environment's frameworks."""
    cases = []
    for fw in frameworks:
        if fw.partner_only:
            continue
        own, short = fw.label, fw.name.split(".")[0]
        if fw.imports and fw.asks:
            for ask, producer, header, rule, caller, refuse in ASKS:
                path = producer_path_of(producer, header)
                if path is None:
                    continue
                shown = "refusing-producer" if refuse else producer
                cases.append(Case(f"asks/{env}/{own}/{ask}", "asks", shown, f"{shown}@{header}",
                                  short, own, ask, asks(fw, path, caller, refuse), rule, (fw,)))
        path = producer_path_of("versioned-producer", "v1.3")
        if fw.imports and fw.asks and path is not None:
            cases.append(Case(f"asks/{env}/{own}/used-name", "asks", "versioned-producer",
                              "versioned-producer@v1.3", short, own, "used-name",
                              used_name(fw, path), "LIFE-1", (fw,)))
            cases.append(Case(f"asks/{env}/{own}/device=unknown", "asks", "versioned-producer",
                              "versioned-producer@v1.3", short, own, "device=unknown",
                              unknown_device(fw, path), "STRM-3", (fw,)))
            for name, copy in MEMORY_ASKS.items():
                cases.append(Case(f"asks/{env}/{own}/{name}", "asks", "versioned-producer",
                                  "versioned-producer@v1.3", short, own, name,
                                  memory(fw, path, copy), "STRM-4", (fw,)))
        if fw.imports and path is not None:  # a capsule API has no copy keyword: default only
            for api in sorted(fw.capsule_imports):
                cases.append(Case(f"asks/{env}/{own}/{api}/used-name", "asks",
                                  "versioned-producer", "versioned-producer@v1.3", short, own,
                                  f"{api}/used-name", used_name(fw, path, api), "LIFE-1", (fw,)))
                name = f"{api}/memory/default"
                cases.append(Case(f"asks/{env}/{own}/{name}", "asks", "versioned-producer",
                                  "versioned-producer@v1.3", short, own, name,
                                  memory(fw, path, None, api), "STRM-4", (fw,)))
        if fw.imports:
            for api in ([None] if fw.asks else []) + sorted(fw.capsule_imports):
                for which in BAD_INPUTS:
                    name = f"bad-input/{which}" if api is None else f"{api}/bad-input/{which}"
                    cases.append(Case(f"asks/{env}/{own}/{name}", "asks", "dlconform-bad-input",
                                      "dlconform-bad-input@v1.3", short, own, name,
                                      bad_input(fw, which, api), "VER-4", (fw,)))
        if may_be_immutable(fw):
            cases.append(Case(f"immutable/{env}/{own}/dlconform-consumer@v1.3/flag-1b", "immutable",
                              short, own, "dlconform-consumer", "v1.3", "flag-1b", flag_1b(fw),
                              "FLAG-1b", (fw,)))
    for a in frameworks:
        if not may_be_immutable(a):
            continue
        for b in frameworks:
            if not b.imports or (a.partner_only and b.partner_only):
                continue
            cases.append(Case(f"immutable/{env}/{a.label}/{b.label}/write-through", "immutable",
                              a.name.split(".")[0], a.label, b.name.split(".")[0], b.label,
                              "write-through", write_through(a, b), "FLAG-1", (a, b)))
    return cases


if __name__ == "__main__":
    sys.exit("dlconform_asks.py is a part of dlconform_frameworks.py")
