"""A framework as the consumer of dlconform's mock producers: a catalogue tensor, in guarded memory
with the deleter ledger, through its from_dlpack or one of its capsule-only importers; the same
capsule handed to it again once it consumed it (LIFE-8); and how a read of the import that fails
is judged (a refusal made late, never wrong data). The cases are planned by
dlconform_frameworks.py and run in its workers."""
import gc

import _dlconform as bridge
from dlconform_adapter import DTYPES, observed_layout
from dlconform_workers import adapter_raised, clean, error_words, outcome, wrong_refusal


def logical(np, array):
    """The values in logical row-major order, the shape kept (0-d stays 0-d)."""
    array = np.asarray(array)
    return np.ascontiguousarray(array).reshape(array.shape)


# How long a struct's deleter may take to come after its array died: JAX's runtime frees a
# buffer on its own thread, after the array is gone (milliseconds).
DELETER_GRACE_MS = 100


def settle(mock):
    """Lets the imported array die: reference counting frees most at once; a framework with
    cycles needs the collector (slow with large frameworks loaded, so only when needed), one
    that frees on its own thread a moment (DELETER_GRACE_MS)."""
    if mock.capsule_renamed() is None or mock.deleter_calls() == 0:
        gc.collect()
    if mock.deleter_calls() == 0:
        mock.await_deleter(DELETER_GRACE_MS)


def expected_of(fw, value):
    """What fw says the tensor is: shape, dtype, the digest of its values in logical order."""
    array = fw.to_np(value)
    other_order = {}
    if not array.dtype.isnative:  # the values a consumer must read, in this machine's order
        # and what it reads when the producer exports the bytes as they are (DT-3, not LAY-4)
        other_order = {"encoding": "in the other byte order (non-native data exported as native)",
                       "encoding_digest": bridge.digest(logical(fw.np, array).tobytes())}
        array = array.astype(array.dtype.newbyteorder("="))
    contiguous = logical(fw.np, array)
    return {"shape": tuple(int(e) for e in array.shape), "dtype": DTYPES.get(array.dtype.name),
            "digest": bridge.digest(contiguous.tobytes()), "elements": int(contiguous.size),
            "read_only": fw.writable(value) is False and fw.writable_concept, **other_order}


def framework_imports(fw, producer_path, entry, profile, api=None, versioned_capsule=False,
                      wrap=None, observe=None):
    """A mock producer's tensor, in guarded memory, to fw's importer; the judge decides. With
    `api`, through that capsule-only importer (a legacy capsule, or with `versioned_capsule` a
    dltensor_versioned one, which it may refuse but must not misread). `wrap(mock)`: what
    from_dlpack is given instead of the mock itself (a Recorder of its calls). `observe()`: more
    facts for the judge of an import, asked once it returned (the CUDA rows' pending write)."""
    tensor = entry["name"]

    def body():
        mock = bridge.MockTensor(producer_path, tensor)
        mock.hold()  # the capsule's name read once the import returns
        error = None
        try:
            if api is None:
                value = fw.import_(mock if wrap is None else wrap(mock))
            elif versioned_capsule:
                value = fw.capsule_imports[api](mock.__dlpack__(max_version=(1, 3)))
            else:
                value = fw.capsule_imports[api](mock.__dlpack__())
        except Exception as e:  # frameworks raise several types for a refusal
            if adapter_raised(e, (fw,)):
                raise  # the adapter's own exception: its plugin-error, never a refusal
            error = error_words(e)
        finally:
            held = mock.release_held()
        header = fw.header()
        observed = {"consumer": fw.label, "consumer_version": header,
                    "must_accept": (bridge.must_accept(tensor, profile, header)
                                    and not versioned_capsule)}
        if held is not None:
            # A consumer that clears the capsule's destructor when it takes it (nanobind's
            # importers) ends the capsule unseen: the judge reads the name the import left.
            observed.update(name_after_import=held[0], destructor_cleared=not held[1])
        if error is not None:  # out of the except block: its traceback may hold the array
            if mock.refused():
                return ("skip", "", "", "", f"producer refused: {error}")
            settle(mock)
            observed.update(imported=False, error=error)
            judged = bridge.judge_import(mock, observed)
            if judged is None and device_refusal(fw, entry):
                # A device it cannot reach: DLPack recommends BufferError (DEV-3), judged as the
                # device rows and the pairs judge the same refusal.
                judged = wrong_refusal(fw.label, error, "DEV-3", f"a tensor on device type "
                                       f"{entry['device']}, which it cannot access")
            return outcome(judged, f"refused cleanly: {error}")
        observed["imported"] = True
        failure = None
        try:
            array = logical(fw.np, fw.to_np(value))
            ndim, shape, dtype = observed_layout(array, entry)
            observed.update(ndim=ndim, shape=shape, dtype=dtype,
                            elements=int(array.size) // max(1, entry["dtype"][2]),
                            digest=bridge.digest(array.tobytes()))
            del array
        except Exception as e:  # numpy has no such dtype, or the framework cannot read it
            if adapter_raised(e, (fw,)):
                raise  # the adapter's own read-back failed: its plugin-error, not the library's
            failure = f"{type(e).__name__}: {clean(e)[:200]}"
        seen = read_through_export(fw, value) if failure is not None else None
        if seen is not None:
            observed.update(ndim=seen["ndim"], shape=tuple(seen["shape"]),
                            dtype=tuple(seen["dtype"]), elements=seen["elements"],
                            digest=seen["digest"])
            observed["read_error"] = f"read back through its own __dlpack__ ({failure})"
        elif failure is not None and entry["valid"]:
            # It read nothing: it took the tensor and raised only when its values were asked
            # for, a refusal made late, judged as a refusal of the same tensor would be.
            del value
            settle(mock)
            return late_refusal(fw.label, entry["rule"], observed["must_accept"], "the valid "
                                "tensor it imported", failure)
        elif failure is not None:
            observed["data_not_read"] = True  # the judge calls it accepted-invalid
            observed["read_error"] = failure
            observed.update(ndim=0, shape=())
        observed["writable"] = fw.writable(value)
        if observe is not None:
            observed.update(observe())
        del value
        settle(mock)
        note = f" ({observed['read_error']})" if "read_error" in observed else ""
        return outcome(bridge.judge_import(mock, observed),
                       f"imported correctly{note}; {lifecycle_words(mock, held)}")
    return body


def lifecycle_words(mock, held):
    """What became of the capsule and its struct, as the bridge saw it, for a passing import."""
    renamed = mock.capsule_renamed()  # None while the capsule lives, or when its end was unseen
    if renamed is None and held is not None and not held[1]:
        renamed = held[0].startswith("used_")
        capsule = f"capsule {'renamed' if renamed else 'left'} {held[0]} (its destructor cleared)"
    elif renamed is None:
        capsule = "capsule still alive"
    else:
        capsule = "capsule renamed" if renamed else "capsule not renamed"
    calls = mock.deleter_calls()
    deleter = ("deleter called once when the array died" if calls == 1 else
               f"deleter called {calls} times")
    return f"{capsule}; {deleter}"


def device_refusal(fw, entry):
    """Whether a refusal of `entry` by fw is one of a valid tensor on a device fw does not take:
    the catalogue's DEV-3 stand-ins for CUDA and OpenCL memory on a host framework, and the CUDA
    mock producer's pinned and managed memory on a CUDA one (CuPy refuses pinned memory with the
    TypeError it gives OpenCL: one refusal, one verdict)."""
    return entry["valid"] and entry["device"] not in (1, fw.device[0])


def late_refusal(label, rule, must_accept, what, failure):
    """A consumer that imported without error and raised only when its result was read (a
    StridedMemoryView whose .dtype raises, an array whose storage cannot be allocated): it read
    nothing, so this is no wrong data but a refusal made late, at the severity a refusal of the
    same tensor has (a finding only where it must be imported)."""
    if not must_accept:
        return ("pass", "", "", "", f"refused late, outside its profile: reading {what} raised "
                f"{failure}")
    return outcome(bridge.make_finding(
        "late-refusal", rule, f"expected {label} to give the values of {what} but it took the "
        f"tensor and raised only when they were read: {failure}"), "")


def read_through_export(fw, value):
    """What fw's array holds, read through its own __dlpack__ by the strict consumer (for dtypes
    numpy cannot show); None when that export is refused or invalid."""
    if not fw.dunder:
        return None
    try:
        seen = bridge.consume(value, max_version=(1, 3))
    except Exception:
        return None
    return seen if seen.get("accepted") else None


class UsedCapsuleHolder:
    """One capsule behind __dlpack__, handed out at every call: once a first import has consumed
    it, a second from_dlpack meets the used capsule."""
    def __init__(self, capsule):
        self.capsule = capsule

    def __dlpack__(self, **keywords):
        return self.capsule

    def __dlpack_device__(self):
        return (1, 0)


def used_capsule(fw, producer_path, versioned, api=None):
    """A capsule fw consumed once, handed to it again (its from_dlpack, or its capsule API
    `api`): it must refuse it, without a crash and without a second deleter call (LIFE-8; CuPy
    tests it "to prevent a segfault")."""
    def body():
        mock = bridge.MockTensor(producer_path, "f32_8x8")
        capsule = mock.__dlpack__(max_version=(1, 3)) if versioned else mock.__dlpack__()
        holder = UsedCapsuleHolder(capsule)

        def take():
            return fw.capsule_imports[api](capsule) if api else fw.import_(holder)
        try:
            first = take()
        except Exception as e:
            if adapter_raised(e, (fw,)):
                raise
            return ("skip", "", "", "", f"n/a: {fw.label} refused the capsule the first time: "
                    f"{clean(error_words(e))[:160]}")
        error = None
        try:
            again = take()
        except Exception as e:
            if adapter_raised(e, (fw,)):
                raise
            error = error_words(e)
        else:
            del again
        del first, holder, capsule
        settle(mock)
        calls = mock.deleter_calls()
        # The first import owes the one call; any more is the second's (the matrix's judge).
        finding = bridge.judge_used_capsule({
            "used_name": "used_dltensor_versioned" if versioned else "used_dltensor",
            "imported": error is None, "error": clean(error or "")[:160],
            "consumer_calls": max(calls - 1, 0), "consumer": fw.label})
        if finding is not None:
            return outcome(finding, "")
        if calls == 0:
            return outcome(bridge.make_finding(
                "deleter-never-called", "LIFE-3",
                f"expected one deleter call after {fw.label} took a capsule once and refused it "
                f"the second time but found 0"), "")
        return ("pass", "", "", "", f"refused the used capsule: {clean(error)[:160]}; deleter "
                f"called once")
    return body
