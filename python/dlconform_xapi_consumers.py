"""The consumer's half of the C exchange API (dlpack.h v1.2+), for dlconform_frameworks.py: a
from_dlpack that takes an array through the table its type publishes in
__dlpack_c_exchange_api__ rather than through __dlpack__ (TVM-FFI's does). It is handed the
planted arrays of python/planted_xapi.cpp, whose tables record every call of their
from_py_object slots (which table, which slot, an object of which type: take_calls), and judged
on the sentences of dlpack.h v1.3 that bind the consumer:

  xapi-consumer/ENV/B@W/table-on-type   an array of a subclass of the `correct` type, whose
      instance attribute holds another table (`no_dltensor_from_py_object`'s): "The consumer
      should look up the attribute on the type" (XAPI-1, SHOULD). The instance's table called is
      table-not-on-type.
  xapi-consumer/ENV/B@W/table-per-type  an array of `correct`, then one of
      `no_dltensor_from_py_object`, each type with its own table: the from_py_object argument
      "Must have the same type as the one the DLPackExchangeAPI was discovered from" (XAPI-5,
      MUST). A table called with the other type's array is xapi-consumer-violation.
  xapi-consumer/ENV/B@W/borrowed-dltensor  an array imported, then its last reference dropped
      (its storage scribbled with NaN, as a freed block would be), then B's array read: "The
      liveness of the DLTensor and the data it views is only guaranteed until control is
      returned" (XAPI-5, MUST). A consumer that views what dltensor_from_py_object_no_sync gave
      and reads other values once the array is gone is xapi-consumer-violation; one that took an
      owning tensor (managed_tensor_from_py_object_no_sync) keeps the array alive itself.

Each importer of an adapter's xapi_imports (TVM-FFI's FFI call, whose tensor arguments go through
the table: `ffi-call`) gets the same three, as xapi-consumer/ENV/B@W/API/CHECK, and a fourth:

  xapi-consumer/ENV/B@W/API/work-stream  a CUDA stand-in (a planted array whose tensors say
      kDLCUDA device 0, its data on the host) handed to the call: "The consumer should query
      DLPackCurrentWorkStream to get the current work stream and launch kernels on it" (XAPI-5,
      SHOULD). A call that asks no current_work_stream(2, 0) of the table is
      work-stream-not-queried. A conversion (from_dlpack) launches nothing, so it is not asked.
A consumer whose from_dlpack calls no planted table (it reads none, and the planted arrays have no
__dlpack__) is n/a. A wheel ships the planted module beside the bridge (python/meson.build), so a
library judged by its module name gets these cases too; where it is missing, each is n/a."""
import gc
import sys

import _dlconform as bridge
from dlconform_workers import Case, adapter_raised, clean, error_words, outcome

try:
    import _dlconform_planted_xapi as planted
except ImportError:  # a build without it: its cases are n/a
    planted = None

ATTRIBUTE = "__dlpack_c_exchange_api__"
VALUES = [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]  # every planted array: arange(6) as 2x3
CHECKS = {"table-on-type": "XAPI-1", "table-per-type": "XAPI-5", "borrowed-dltensor": "XAPI-5",
          "work-stream": "XAPI-5"}
# A conversion (from_dlpack) launches nothing on the tensor it makes: the current work stream is
# asked of a call that runs a function on its arguments (an adapter's xapi_imports).
CALL_ONLY = ("work-stream",)
CUDA = 2


def calls_text(calls):
    return "; ".join(f"{table}.{slot.split('_no_sync')[0]}({kind.__name__})"
                     for table, slot, kind in calls) or "no table call"


def imported(fw, importer, obj):
    """importer(obj) (fw's from_dlpack, or one of its xapi_imports): (its array or None, the
    words of what it raised or None)."""
    try:
        return importer(obj), None
    except Exception as e:
        if adapter_raised(e, (fw,)):
            raise
        return None, clean(error_words(e))[:160]


def values_of(fw, value):
    """What fw's array holds, as a list of rows of floats, or the words of why it cannot say. An
    array handed back through the table's to_py_object (an FFI call's result) is a planted one."""
    try:
        array = value if type(value).__module__ == planted.__name__ else fw.to_np(value)
        return [[float(x) for x in row] for row in array.tolist()]
    except Exception as e:
        if adapter_raised(e, (fw,)):
            raise
        return f"{type(e).__name__}: {clean(e)[:120]}"


def consumer_case(fw, check, api=None):
    """The case body of one CHECK for fw's from_dlpack, or its xapi_imports[api]: the record of
    table calls emptied first."""
    def body():
        if planted is None:
            return ("skip", "", "", "", "n/a: the planted exchange-API tables "
                    "(_dlconform_planted_xapi) are not installed beside the bridge")
        planted.take_calls()  # what came before is not this case's
        return CASES[check](fw, fw.xapi_imports[api] if api else fw.import_)
    return body


def none_called(fw, error, calls):
    """The n/a of a consumer that called no planted table, or None when it called one."""
    if calls:
        return None
    why = f"it raised {error}" if error else "it returned without one"
    return ("skip", "", "", "", f"n/a: {fw.label}'s importer called no exchange-API table of a "
            f"planted array ({why}): it reads none")


def table_on_type(fw, importer):
    class WithInstanceTable(planted.correct):  # a subclass: its instances have a __dict__
        pass
    obj = WithInstanceTable()
    setattr(obj, ATTRIBUTE, planted.table_capsule("no_dltensor_from_py_object"))
    value, error = imported(fw, importer, obj)
    calls = planted.take_calls()
    del value, obj
    skipped = none_called(fw, error, calls)
    if skipped:
        return skipped
    if any(table != "correct" for table, _, _ in calls):
        return outcome(bridge.make_finding(
            "table-not-on-type", "XAPI-1", f"expected {fw.label} to take the exchange-API table "
            f"of type(obj), `correct`'s, but found it called the table of obj's instance "
            f"attribute [calls: {calls_text(calls)}] (dlpack.h v1.3: \"The consumer should look "
            f"up the attribute on the type\")"), "")
    return ("pass", "", "", "", f"the type's table [calls: {calls_text(calls)}]"
            + (f"; raised {error}" if error else ""))


def table_per_type(fw, importer):
    first, second = planted.correct(), planted.no_dltensor_from_py_object()
    results = [imported(fw, importer, first), imported(fw, importer, second)]
    calls = planted.take_calls()
    errors = [e for _, e in results if e]
    del results, first, second
    skipped = none_called(fw, errors[0] if errors else None, calls)
    if skipped:
        return skipped
    wrong = [(table, kind.__name__) for table, _, kind in calls if kind.__name__ != table]
    if wrong:
        table, kind = wrong[0]
        return outcome(bridge.make_finding(
            "xapi-consumer-violation", "XAPI-5", f"expected each table called with an array of "
            f"its own type but found {fw.label} handing `{table}`'s table a {kind} [calls: "
            f"{calls_text(calls)}] (dlpack.h v1.3, py_object: \"Must have the same type as the "
            f"one the DLPackExchangeAPI was discovered from\")"), "")
    return ("pass", "", "", "", f"each array to its own type's table [calls: "
            f"{calls_text(calls)}]" + (f"; raised {errors[0]}" if errors else ""))


def borrowed_dltensor(fw, importer):
    obj = planted.correct()
    value, error = imported(fw, importer, obj)
    calls = planted.take_calls()
    skipped = none_called(fw, error, calls)
    if skipped or value is None:
        del value, obj
        return skipped or ("pass", "", "", "", f"refused: {error} [calls: {calls_text(calls)}]")
    before = values_of(fw, value)
    del obj
    gc.collect()  # the planted array's block is scribbled with NaN once nothing holds it
    after = values_of(fw, value)
    del value
    slots = sorted({slot for _, slot, _ in calls})
    if before == VALUES and after != VALUES:
        return outcome(bridge.make_finding(
            "xapi-consumer-violation", "XAPI-5", f"expected {fw.label}'s array to keep reading "
            f"{VALUES} after the planted array it came from was gone but found {after} [calls: "
            f"{calls_text(calls)}] (dlpack.h v1.3, dltensor_from_py_object_no_sync: \"The "
            f"liveness of the DLTensor and the data it views is only guaranteed until control "
            f"is returned\")"), "")
    if before != VALUES:
        return outcome(bridge.make_finding(
            "wrong-data", "LAY-4", f"expected {fw.label} to read {VALUES} from a planted array "
            f"but found {before} [calls: {calls_text(calls)}]"), "")
    return ("pass", "", "", "", f"read right before and after the array was gone, through "
            f"{', '.join(slots)}")


def work_stream(fw, importer):
    obj = planted.cuda_stand_in(planted.correct())
    planted.take_stream_queries()  # what came before is not this case's
    value, error = imported(fw, importer, obj)
    calls = planted.take_calls()
    queries = planted.take_stream_queries()
    del value, obj
    skipped = none_called(fw, error, calls)
    if skipped:
        return skipped
    asked = "; ".join(f"{table}.current_work_stream({device_type}, {device_id})"
                      for table, device_type, device_id in queries) or "no query"
    if not any(device_type == CUDA and device_id == 0 for _, device_type, device_id in queries):
        return outcome(bridge.make_finding(
            "work-stream-not-queried", "XAPI-5", f"expected {fw.label} to ask the table's "
            f"current_work_stream(2, 0) for the CUDA tensor it was handed, to run on that stream, "
            f"but found {asked} [calls: {calls_text(calls)}] (dlpack.h v1.3: \"The consumer should "
            f"query DLPackCurrentWorkStream to get the current work stream and launch kernels on "
            f"it\")"), "")
    return ("pass", "", "", "", f"{asked} [calls: {calls_text(calls)}]"
            + (f"; raised {error}" if error else ""))


CASES = {"table-on-type": table_on_type, "table-per-type": table_per_type,
         "borrowed-dltensor": borrowed_dltensor, "work-stream": work_stream}


def plan_xapi_consumer_cases(frameworks, env):
    """The exchange-API consumer cases of one environment's frameworks: every from_dlpack that
    takes objects (a capsule-only importer cannot read a table), and every importer of
    xapi_imports (xapi-consumer/ENV/B@W/API/CHECK)."""
    cases = []
    for fw in frameworks:
        if fw.partner_only:
            continue
        apis = ([None] if fw.imports and fw.asks else []) + sorted(fw.xapi_imports)
        for api in apis:
            for check, rule in CHECKS.items():
                if api is None and check in CALL_ONLY:
                    continue
                name = check if api is None else f"{api}/{check}"
                cases.append(Case(f"xapi-consumer/{env}/{fw.label}/{name}", "xapi-consumer",
                                  "dlconform-xapi-producer", "dlconform-xapi-producer@v1.3",
                                  fw.name.split(".")[0], fw.label, name,
                                  consumer_case(fw, check, api), rule, (fw,)))
    return cases


if __name__ == "__main__":
    sys.exit("dlconform_xapi_consumers.py is a part of dlconform_frameworks.py")
