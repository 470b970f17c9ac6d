"""The pairs with a framework on a device other than the host on either side, for
dlconform_frameworks.py (beside dlconform_devices.py, the device frameworks' own cases).

  pairs/F@V/B@W/T[/device=cpu[,copy=False]]   F's array into B (every tensor F makes when both
      are on a device, five when one is on the host): B refuses cleanly (BufferError, DEV-3) or
      imports the right values; asked with device=B's CPU, B passes dl_device=(1, 0) and gets a
      host copy (STRM-3; refusing without asking is host-copy-not-offered, SHOULD); asked with
      copy=False too, B refuses (ValueError or BufferError, the two texts) or passes copy=False
      on to F, which refuses (STRM-4).
  pairs/B@W/F@V/T/device=own   B's host array into F, asked for F's device: the values arrive.
Verdicts come from the bridge's judge, or are findings of its table (make_finding)."""
import sys

import _dlconform as bridge
from dlconform_devices import HOST, flags_finding, not_judged, on_device
from dlconform_workers import (Case, clean, error_words, keywords_text, outcome, takes_layout,
                               wrong_refusal)

# The five tensors a device library and a host one exchange (the CPU main job's rows).
DEVICE_PAIR_TENSORS = ("f32_2x3", "f32_T", "f32_step", "f32_zero_size", "i64_7")


def device_pair(a, build, b, keywords, helpers, rule, tensor):
    """A's array into B's import, across devices. Refusals of a device array are judged for
    their exception (DEV-3); imports for their values; a host copy for IS_COPIED (FLAG-2)."""
    def body():
        value = build()
        want = helpers.logical(a.np, a.to_np(value)).copy()
        proxy = helpers.Proxy(a, value)
        asked = dict(keywords)
        if asked.get("device") in ("cpu", "own"):
            asked["device"] = b.cpu_device() if asked["device"] == "cpu" else b.own_device()
            if asked["device"] is None:
                return ("skip", "", "", "", f"n/a: {b.label} names no such device")
        error = None
        try:
            result = b.import_(proxy, **asked)
        except Exception as e:
            error = error_words(e)
        asks, kinds, handles = proxy.asks, proxy.kinds, proxy.handles
        flags, raised = proxy.flags, proxy.raised
        del proxy
        crossed = kinds[-1] if kinds else "no capsule"
        if error is not None:
            helpers.deleter_calls_settled(handles, wait=False)  # not judged here
            if not asks and error.startswith(("TypeError", "NotImplementedError")) and keywords:
                return ("skip", "", "", "", f"n/a: {b.label}'s from_dlpack takes no "
                        f"{next(iter(keywords))}= ({clean(error)[:100]})")
            words = f"refused ({crossed}; calls: {asks_text(asks)}): {clean(error)[:160]}"
            if on_device(a) and not on_device(b) and keywords.get("copy") is False:
                return outcome(copy_false_refusal(a, b, error, asks), words)
            if on_device(a) and not on_device(b):
                dropped = "device" in keywords and not any(c.get("dl_device") for c in asks)
                # from_dlpack(device=...) it cannot serve "must raise BufferError" (the Array API's
                # from_dlpack, STRM-3); without device= the exception is DEV-3's recommendation.
                finding = wrong_refusal(b.label, error, "STRM-3" if "device" in keywords else
                                        "DEV-3", f"{a.label}'s tensor on device {tuple(a.device)}"
                                        + (f" for device={asked['device']!r}" if "device" in
                                           keywords else ""))
                if finding is None and dropped:  # its caller asked for the host: it never said
                    finding = bridge.make_finding(
                        "host-copy-not-offered", "STRM-3", f"expected {b.label}, asked for "
                        f"device={asked['device']!r}, to ask {a.label} for a host copy "
                        f"(dl_device=(1, 0)) or to copy itself (the Array API's from_dlpack: "
                        f"\"a compliant library should offer a way\") but it asked "
                        f"{asks_text(asks)}, then refused: {clean(error)[:120]}")
                return outcome(finding, words)
            if on_device(b) and raised is not None and \
                    not issubclass(raised[0], (BufferError, TypeError)):  # TypeError: VER-5
                # A's answer to dl_device=B's device: an unsupported device is a BufferError.
                return outcome(bridge.make_finding(
                    "wrong-refusal-exception", "STRM-3", f"expected {a.label} to refuse an export "
                    f"to {tuple(b.device)} with BufferError but found {raised[0].__name__}: "
                    f"{raised[1][:140]} (calls: {asks_text(asks)})"), "")
            if on_device(b) and "device" in keywords and not error.startswith("BufferError") \
                    and takes_layout(b, tensor):
                # Asked to bring a valid host array to its device, it failed on the array itself.
                return outcome(bridge.make_finding(
                    "rejected-valid", rule, f"expected {b.label}, asked for device={keywords['device']}"
                    f", to copy {a.label}'s valid host array to its device (or refuse it with "
                    f"BufferError) but found {clean(error)[:160]} (calls: {asks_text(asks)})"), "")
            return ("pass", "", "", "", words)
        unreadable = None
        try:
            got = helpers.logical(b.np, b.to_np(result))
        except Exception as e:
            unreadable = f"{type(e).__name__}: {clean(e)[:100]}"
        del result
        helpers.deleter_calls_settled(handles, wait=False)  # not judged here
        if unreadable is not None:
            return not_judged(f"imported {crossed} as {b.label}'s own array, which it cannot "
                              f"read on the host ({unreadable}): values not compared")
        if got.shape != want.shape or got.tobytes() != want.tobytes():
            return outcome(helpers.misread_finding(a, b, want, got, crossed), "")
        if on_device(a) and not on_device(b) and keywords.get("copy") is False:
            return outcome(copy_false_import(a, b, asks), "")
        if on_device(a) and any(c.get("dl_device") == HOST for c in asks) and flags:
            finding = flags_finding(crossed, flags[-1], "the host copy dl_device=(1, 0) asked for")
            if finding is not None:
                return outcome(finding, "")
        return ("pass", "", "", "", f"{crossed}: equal values (calls: {asks_text(asks)})")
    return body


# from_dlpack(x, device=cpu, copy=False) of a device array: the copy it needs is forbidden. The
# Array API's from_dlpack (2023.12, 2024.12) says ValueError in its `device` paragraph ("If a copy
# must be made to enable this support but copy is set to False, the function must raise
# ValueError") and BufferError in its `copy` one ("raise BufferError in case a copy is deemed
# necessary (e.g. if a cross-device data movement is requested ...)"): either passes.
COPY_FALSE_TEXTS = ("creation_functions.py 2024.12 from_dlpack: 'must raise ValueError' (device) "
                    "or 'raise BufferError' (copy)")


def copy_false_refusal(a, b, error, asks):
    """B refused a device array asked for on the host under copy=False: right with either
    exception the texts name (None). Another one is wrong-refusal-exception: STRM-3's when B
    asked A for no host copy at all (a library that "does not support such cases at all", the
    same defect as its device=cpu pair), else STRM-4's."""
    if error.startswith(("BufferError", "ValueError")):
        return None
    serves = any(c.get("dl_device") == HOST for c in asks)
    return bridge.make_finding(
        "wrong-refusal-exception", "STRM-4" if serves else "STRM-3",
        f"expected {b.label} to refuse from_dlpack(device=cpu, copy=False) of {a.label}'s tensor "
        f"on {tuple(a.device)} with ValueError or BufferError but found {clean(error)[:160]} "
        f"({COPY_FALSE_TEXTS}" + ("" if serves else "; it asked for no host copy: BufferError "
                                  "where a library does not support such cases at all") + ")")


def copy_false_import(a, b, asks):
    """B imported a device array asked for on the host under copy=False: the host copy it got
    is a cross-device copy. B's fault when it asked for the host without passing copy=False on
    (copy-made); A's when it was told copy=False and copied all the same (the negotiation rows
    judge that too); None when no host export was asked (B took A's own tensor)."""
    hosted = [c for c in asks if c.get("dl_device") == HOST]
    if not hosted:
        return None
    if any(c.get("copy") is False for c in hosted):
        return bridge.make_finding(
            "producer-violation", "STRM-4", f"expected {a.label} to refuse __dlpack__(dl_device="
            f"(1, 0), copy=False) of its tensor on {tuple(a.device)} with BufferError but it "
            f"exported a host copy (calls: {asks_text(asks)})")
    return bridge.make_finding(
        "copy-made", "STRM-4", f"expected {b.label}, asked for from_dlpack(device=cpu, copy=False) "
        f"of {a.label}'s tensor on {tuple(a.device)}, to refuse (ValueError or BufferError) or pass "
        f"copy=False on, but it asked {asks_text(hosted)} and imported the host copy "
        f"({COPY_FALSE_TEXTS})")


def asks_text(asks):
    return "; ".join(f"__dlpack__({keywords_text(c)})" for c in asks) or "none"


def plan_device_pairs(frameworks, env, helpers):
    """Every pair of this environment with a device framework on either side."""
    cases = []
    for a in frameworks:
        for b in frameworks:
            if a is b or not a.exports or not b.imports or (a.partner_only and b.partner_only):
                continue
            if not (on_device(a) or on_device(b)):
                continue
            made = {t: (r, build) for t, r, build in helpers.constructions(a)}
            variants = [((), "")]
            if on_device(a) and not on_device(b):
                variants.append(((("device", "cpu"),), "/device=cpu"))
                variants.append(((("device", "cpu"), ("copy", False)), "/device=cpu,copy=False"))
            if on_device(b) and not on_device(a):
                variants = [((("device", "own"),), "/device=own")]  # the plain pairs are the host's
            # Two device libraries (on the GPU) exchange the whole catalogue A makes; a device
            # library and a host one, five tensors (the CPU main job's rows).
            both = on_device(a) and on_device(b)
            for tensor in (list(made) if both else DEVICE_PAIR_TENSORS):
                if tensor not in made:
                    continue
                rule, build = made[tensor]
                for keywords, suffix in variants:
                    cases.append(Case(f"pairs/{env}/{a.label}/{b.label}/{tensor}{suffix}",
                                      "pairs", a.name.split(".")[0], a.label, b.name.split(".")[0],
                                      b.label, tensor + suffix,
                                      device_pair(a, build, b, dict(keywords), helpers, rule,
                                                  tensor),
                                      "STRM-4" if "copy" in dict(keywords) else
                                      "DEV-3" if on_device(a) and not on_device(b) else rule,
                                      (a, b)))
    return cases


if __name__ == "__main__":
    sys.exit("dlconform_device_pairs.py is a part of dlconform_frameworks.py")
