"""The Python half of the python-importer fuzz plugin (python_importer_body.cpp): which library's
importer a fuzzed tensor goes to, the exporter object that hands it over, and how the result is
read back. The C++ half wraps the fuzz target's struct in a capsule, calls take(), digests the
bytes it returns and gives the harness's judge what the library saw.

The library is chosen by the environment the plugin reads (docs/fuzzing.md, "Python importers"):
  DLCONFORM_PYTHON_MODULE=NAME     a built-in adapter when NAME has one (numpy, torch, jax, ...),
                                   else any module with from_dlpack (ModuleAdapter)
  DLCONFORM_PYTHON_ADAPTER=FILE    the first Framework subclass of an adapter file instead
  DLCONFORM_PYTHON_IMPORTER=API    which importer: "from_dlpack" (the adapter's import_, which
                                   calls __dlpack__), or one of its capsule_imports (the capsule
                                   itself, as TensorFlow's and Paddle's capsule APIs take it)
"""
import os
import sys

import dlconform_adapter as dlc

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(dlc.__file__)), "reproducers"))
import dlconform_capsule  # noqa: E402  (python/reproducers: reads and makes capsules)

# Libraries whose importer another module's may be, or call: (party, module, function). A module
# whose from_dlpack reaches one of them meets that library's bugs under its own name; the
# harness routes them as that party's known bugs ($DLCONFORM_KNOWN_VIA).
REACHABLE = (("python:numpy", "numpy", "from_dlpack"),)

# The most bytes of a result read back: what the fuzz targets digest at most (tensor_input.hpp's
# kMaxDigestedBytes).
READ_BACK_LIMIT = 4 << 20
# The devices whose results are read back: host memory, and CUDA where the fuzzed tensors have
# device memory behind them (DLCONFORM_FUZZ_DEVICE_MEMORY=cuda: fuzz/device_memory.hpp), which
# the adapter's to_np copies to the host.
READABLE_DEVICES = (1, 3, 2) if os.environ.get("DLCONFORM_FUZZ_DEVICE_MEMORY") == "cuda" else (1, 3)
# NumPy dtype name -> DLPack (code, bits, lanes), for what a library's result holds.
CODES = dlc.DTYPES
# Profile words (docs/matrix.md) -> DLCProfile bits (include/dlconform/plugin.h).
STRIDE_BITS = {"positive": 1, "negative": 2, "zero": 4, "overlapping": 8}
FEATURE_BITS = {"read-only": 1, "zero-dim": 2, "zero-size": 4, "copy": 8, "misaligned": 16}
LEGACY_STRUCT_ONLY = 16384  # DLC_FEATURE_LEGACY_STRUCT_ONLY


def refuse_legacy_ask(versioned, max_version):
    """BufferError for a legacy ask (no max_version, or one below 1.0) of an exporter that holds a
    versioned struct, as a producer that cannot make the legacy struct refuses: handing it the
    versioned one would be the exporter's fault, not the importer's."""
    if versioned and (max_version is None or tuple(max_version)[0] < 1):
        raise BufferError("this exporter holds a DLManagedTensorVersioned only")


class Exporter:
    """What the importer is handed: __dlpack__ answers with the fuzzed capsule, as a producer
    that holds one tensor would, and refuses a legacy ask of a versioned one
    (refuse_legacy_ask)."""
    __slots__ = ("capsule", "versioned", "device", "asks")

    def __init__(self, capsule, versioned, device):
        self.capsule = capsule
        self.versioned = versioned
        self.device = device
        self.asks = []

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        self.asks.append((stream, max_version, dl_device, copy))
        refuse_legacy_ask(self.versioned, max_version)
        return self.capsule

    def __dlpack_device__(self):
        return self.device


class RefusingExporter:
    """An exporter that refuses every __dlpack__ call with BufferError and records its keywords:
    what an importer asks, and what it calls, seen without a capsule reaching it."""

    def __init__(self):
        self.asks = []

    def __dlpack__(self, **keywords):
        self.asks.append(keywords)
        raise BufferError("dlconform probe: refused")

    def __dlpack_device__(self):
        return (1, 0)


class _BadStr(Exception):
    """An exception whose words cannot be had: str() of it raises."""

    def __str__(self):
        raise RuntimeError("dlconform: this exception has no words")


class _BufferErrorKind(BufferError):
    """A subclass of BufferError, which a caller catching BufferError must still catch."""


# The protocol around the capsule, for the python_protocol_fuzzer target: what the exporter object
# answers the importer. Each row is (words, the rule an answer out of the protocol breaks, or "" for
# a conformant answer, how). A fuzz input picks one row of each table (python_protocol_fuzzer.cpp,
# taken modulo the table's length); ProtocolPlan.rule() names a crash of the importer.
SIGNATURES = [  # which keywords __dlpack__ takes; TypeError for any other, as Python says it
    ("__dlpack__ takes stream, max_version, dl_device and copy", "",
     ("stream", "max_version", "dl_device", "copy")),
    ("__dlpack__ takes stream alone (before DLPack 1.0: TypeError for max_version)", "VER-5",
     ("stream",)),
    ("__dlpack__ takes stream and max_version (TypeError for dl_device and copy)", "VER-5",
     ("stream", "max_version")),
    ("__dlpack__ takes no keyword (TypeError for stream too)", "VER-4", ()),
    ("__dlpack__ is no method (an int)", "VER-4", "not-callable"),
    ("the exporter has no __dlpack__", "VER-4", "missing"),
]
# What __dlpack__ returns. Rows 1 to 3 hand the capsule itself under another name (the C++ half
# makes it so: NAME_MODES); the rest never hand it.
CAPSULE_ANSWERS = [
    ("__dlpack__ returns the capsule", ""),
    ("__dlpack__ returns the capsule named used_<its name> (consumed already)", "LIFE-8"),
    ("__dlpack__ returns the capsule named DLTensor", "LIFE-1"),
    ("__dlpack__ returns the capsule with no name", "LIFE-1"),
    ("__dlpack__ returns None", "VER-4"),
    ("__dlpack__ returns an int", "VER-4"),
    ("__dlpack__ returns bytes", "VER-4"),
    ("__dlpack__ returns a tuple holding the capsule", "VER-4"),
    ("__dlpack__ returns the exporter itself", "VER-4"),
    ("__dlpack__ raises", "VER-4"),
]
NAME_MODES = {1: 1, 2: 2, 3: 3}  # CAPSULE_ANSWERS row -> DLC_PROTOCOL_NAME_* of python_protocol.h
WHEN = [  # for the answers that hand no capsule
    ("on every call", False),
    ("on the first call only, the capsule after", True),
]
EXCEPTIONS = [BufferError, TypeError, ValueError, RuntimeError, NotImplementedError,
              AttributeError, KeyError, OverflowError, MemoryError, RecursionError, _BadStr,
              _BufferErrorKind]
_HUGE = 1 << 64
DEVICE_ANSWERS = [  # what __dlpack_device__ returns: a function of the tensor's (type, id)
    ("__dlpack_device__ returns the tensor's device", "", lambda d: d),
    ("__dlpack_device__ returns a list", "DEV-1", lambda d: list(d)),
    ("__dlpack_device__ returns None", "DEV-1", lambda d: None),
    ("__dlpack_device__ returns an int", "DEV-1", lambda d: d[0]),
    ("__dlpack_device__ returns a str", "DEV-1", lambda d: "cpu"),
    ("__dlpack_device__ returns ()", "DEV-1", lambda d: ()),
    ("__dlpack_device__ returns (type,)", "DEV-1", lambda d: d[:1]),
    ("__dlpack_device__ returns (type, id, 0)", "DEV-1", lambda d: d + (0,)),
    ("__dlpack_device__ returns floats", "DEV-1", lambda d: (float(d[0]), float(d[1]))),
    ("__dlpack_device__ returns strings", "DEV-1", lambda d: (str(d[0]), str(d[1]))),
    ("__dlpack_device__ returns a type of 2**64", "DEV-1", lambda d: (_HUGE, d[1])),
    ("__dlpack_device__ returns an id of 2**64", "DEV-1", lambda d: (d[0], _HUGE)),
    ("__dlpack_device__ returns a type of -1", "DEV-1", lambda d: (-1, d[1])),
    ("__dlpack_device__ returns an id of -1", "DEV-1", lambda d: (d[0], -1)),
    ("__dlpack_device__ returns CUDA (2, 0) for a host tensor", "DEV-1", lambda d: (2, 0)),
    ("__dlpack_device__ returns oneAPI (14, 0) for a host tensor", "DEV-1", lambda d: (14, 0)),
    ("__dlpack_device__ returns the tensor's type with id 7", "DEV-1", lambda d: (d[0], 7)),
    ("__dlpack_device__ raises", "DEV-1", None),
    ("__dlpack_device__ is no method (a tuple)", "DEV-1", "not-callable"),
    ("the exporter has no __dlpack_device__", "DEV-1", "missing"),
]
# The keywords a consumer asks again without after a TypeError (VER-5); stream is older (VER-4).
VERSION_KEYWORDS = {"max_version", "dl_device", "copy"}
PROTOCOL_TABLES = (SIGNATURES, CAPSULE_ANSWERS, WHEN, EXCEPTIONS, DEVICE_ANSWERS)


class ProtocolPlan:
    """One pick of each table, from a fuzz input's bytes (each taken modulo its table)."""

    def __init__(self, choices):
        picks = [(choices[i] if i < len(choices) else 0) % len(t)
                 for i, t in enumerate(PROTOCOL_TABLES)]
        self.signature, self.answer, self.when, self.exception, self.device = picks

    def words(self):
        parts = [SIGNATURES[self.signature][0], CAPSULE_ANSWERS[self.answer][0]]
        raises = self.answer == 9
        if self.answer >= 4:
            parts[-1] += " " + WHEN[self.when][0]
        parts.append(DEVICE_ANSWERS[self.device][0])
        if raises or self.device == 17:
            parts.append("the exception: " + EXCEPTIONS[self.exception].__name__)
        return "; ".join(parts)

    def rule(self):
        """The rule of the first answer out of the protocol, in the order a from_dlpack asks:
        the device (__dlpack_device__ first, as the Array API's from_dlpack does), then the
        keywords of __dlpack__, then what it returns."""
        for rule in (DEVICE_ANSWERS[self.device][1], SIGNATURES[self.signature][1],
                     CAPSULE_ANSWERS[self.answer][1]):
            if rule:
                return rule
        return ""

    def name_mode(self):
        return NAME_MODES.get(self.answer, 0)

    def legacy_only(self):
        """An exporter whose __dlpack__ takes no max_version is from before DLPack 1.0: it can
        only make the legacy struct."""
        accepted = SIGNATURES[self.signature][2]
        return isinstance(accepted, tuple) and "max_version" not in accepted

    def raise_one(self):
        kind = EXCEPTIONS[self.exception]
        raise kind("dlconform protocol fuzz: " + kind.__name__)


class _ProtocolExporterBase:
    """The exporter of a protocol input: its __dlpack__ and __dlpack_device__ answer as the plan
    says, and it records what the importer asked: the capsule handed or not, the calls, and
    whether a TypeError for a keyword was followed by a call without it (VER-5's fallback). The
    two methods are set on the class (protocol_exporter()), where the importers look them up:
    NumPy asks the type, not the instance."""

    def __init__(self, plan, capsule, versioned, device):
        self.plan, self.capsule, self.device = plan, capsule, tuple(device)
        self.versioned = versioned
        self.calls, self.handed = 0, False
        self.refused_keywords = set()  # of VER-5's keywords, refused with TypeError
        self.asked = []  # the keywords of each call

    def _dlpack(self, *args, **keywords):
        self.calls += 1
        self.asked.append(set(keywords))
        accepted = SIGNATURES[self.plan.signature][2]
        if args:
            raise TypeError(f"__dlpack__() takes 1 positional argument but {len(args) + 1} "
                            "were given")
        unexpected = sorted(set(keywords) - set(accepted))
        if unexpected:
            self.refused_keywords |= set(unexpected) & VERSION_KEYWORDS
            raise TypeError(f"__dlpack__() got an unexpected keyword argument '{unexpected[0]}'")
        plan = self.plan
        refuse_legacy_ask(self.versioned, keywords.get("max_version"))
        if plan.answer < 4 or (WHEN[plan.when][1] and self.calls > 1):
            self.handed = True
            return self.capsule
        if plan.answer == 9:
            plan.raise_one()
        return [None, 7, b"dltensor", (self.capsule,), self][plan.answer - 4]

    def _dlpack_device(self):
        where = DEVICE_ANSWERS[self.plan.device][2]
        if where is None:
            self.plan.raise_one()
        return where(self.device)

    def facts(self):
        """(capsule handed, __dlpack__ calls, VER-5 fallback missed)."""
        # Missed: no call at all went without the keywords refused (one before the refusal, as
        # MLX asks first without max_version, counts too).
        missed = (bool(self.refused_keywords) and not self.handed and
                  all(self.refused_keywords & asked for asked in self.asked))
        return self.handed, self.calls, missed


def _exporter_class(dlpack, device):
    """A subclass whose __dlpack__ and __dlpack_device__ are methods, no methods (an int, a
    tuple) or missing, as SIGNATURES' and DEVICE_ANSWERS' last column say."""
    members = {}
    if dlpack == "not-callable":
        members["__dlpack__"] = 42
    elif dlpack != "missing":
        members["__dlpack__"] = _ProtocolExporterBase._dlpack
    if device == "not-callable":
        members["__dlpack_device__"] = (1, 0)  # the tensors of the protocol target are host ones
    elif device != "missing":
        members["__dlpack_device__"] = _ProtocolExporterBase._dlpack_device
    return type("ProtocolExporter", (_ProtocolExporterBase,), members)


_EXPORTER_CLASSES = {(a, b): _exporter_class(a, b)
                     for a in ("method", "not-callable", "missing")
                     for b in ("method", "not-callable", "missing")}


def protocol_exporter(plan, capsule, versioned, device):
    """The exporter object of a protocol input."""
    def kind(how):
        return how if how in ("not-callable", "missing") else "method"
    cls = _EXPORTER_CLASSES[(kind(SIGNATURES[plan.signature][2]),
                             kind(DEVICE_ANSWERS[plan.device][2]))]
    return cls(plan, capsule, versioned, device)


class LineCoverage:
    """Lines of the library's own Python code run by each import, as libFuzzer's extra counters
    (DLCONFORM_PYTHON_COVERAGE=PACKAGE[,PACKAGE]): a line sets the counter its file and number
    hash to, in a table the C++ half registered with libFuzzer, as atheris does. sys.settrace
    traces only frames of the packages' files, so other Python code costs one call event per
    call. With DLCONFORM_PYTHON_COVERAGE_REPORT=FILE each line is appended there the first
    time a process runs it: the distinct lines of the file measure what a corpus covers."""

    def __init__(self, address, size, packages, report=""):
        import ctypes
        import importlib.util
        import zlib
        self._crc = zlib.crc32
        self.counters = (ctypes.c_uint8 * size).from_address(address) if address else None
        self.size = size
        roots = []
        for package in packages:
            spec = importlib.util.find_spec(package)
            if spec is None or not spec.origin:
                raise ValueError(f"expected an importable package but found {package!r}")
            roots.append(os.path.dirname(os.path.abspath(spec.origin)) + os.sep)
        self.roots = tuple(roots)
        self.seen = set()
        self.report = report
        self._wanted = {}  # co_filename -> whether it lies under a root
        sys.settrace(self._call)

    def _call(self, frame, event, arg):
        name = frame.f_code.co_filename
        wanted = self._wanted.get(name)
        if wanted is None:
            wanted = self._wanted[name] = os.path.abspath(name).startswith(self.roots)
        return self._line if wanted else None

    def _line(self, frame, event, arg):
        if event == "line":
            key = (frame.f_code.co_filename, frame.f_lineno)
            if self.counters is not None:
                self.counters[self._crc(f"{key[0]}:{key[1]}".encode()) % self.size] = 1
            if key not in self.seen:
                self.seen.add(key)
                if self.report:  # appended: the children that run known bugs add theirs
                    with open(self.report, "a") as out:
                        out.write(f"{key[0]}:{key[1]}\n")
        return self._line


def choose_adapter():
    """The Framework instance of the library named by the environment, started."""
    path = os.environ.get("DLCONFORM_PYTHON_ADAPTER", "")
    name = os.environ.get("DLCONFORM_PYTHON_MODULE", "")
    if path:
        file_name, _, class_name = path.partition(":")
        classes = dlc.load_adapters(file_name)
        if class_name:
            classes = [c for c in classes if c.__name__ == class_name]
            if not classes:
                raise ValueError(f"expected a class {class_name} in {file_name} but found none")
        fw = classes[0]()
    elif name:
        builtin = dict(dlc.ORDER_FILES)
        if name in builtin:
            fw = dlc.builtin_adapter(name, builtin[name])()
        else:
            fw = dlc.ModuleAdapter(name)
    else:
        raise ValueError("expected DLCONFORM_PYTHON_MODULE or DLCONFORM_PYTHON_ADAPTER but "
                         "found neither set")
    fw.start()
    return fw


# take()'s answer for an import that is not read back: device memory, or what the adapter
# cannot express.
NOT_READ = (255, 0, 0, (), False, b"")


class Importer:
    """One library's importer, fed one capsule at a time; holds the last result until drop()."""

    def __init__(self):
        self.fw = choose_adapter()
        wanted = os.environ.get("DLCONFORM_PYTHON_IMPORTER", "")
        capsule_apis = dict(getattr(self.fw, "capsule_imports", {}) or {})
        if wanted and wanted != "from_dlpack":
            if wanted not in capsule_apis:
                raise ValueError(f"DLCONFORM_PYTHON_IMPORTER: expected from_dlpack or one of "
                                 f"{sorted(capsule_apis)} but found {wanted}")
            self.api, self.capsule_api = wanted, capsule_apis[wanted]
        elif getattr(self.fw, "asks", True) or not capsule_apis:
            self.api, self.capsule_api = "from_dlpack", None
        else:  # a library whose only importer takes capsules (TensorFlow, MXNet)
            self.api, self.capsule_api = next(iter(capsule_apis.items()))
        self.held = None
        self.protocol = None  # a ProtocolPlan for the next take(), set by set_protocol()
        self.exporter = None  # the ProtocolExporter of the last protocol take()
        self.np = self.fw.np
        self.asks_versioned = (self._takes_versioned_capsules() if self.capsule_api is not None
                               else self._asks_versioned())

    def _asks_versioned(self):
        """Whether from_dlpack asks __dlpack__ for a versioned struct (a max_version of major 1
        or more), tried once on an exporter that refuses. One that never does (JAX 0.10 asks
        with stream alone) takes only legacy capsules through the protocol."""
        asks = self._probe_import()
        return not asks or any((k.get("max_version") or (0,))[0] >= 1 for k in asks)

    def _probe_import(self, profile=None):
        """The keywords of each __dlpack__ call of one import of a RefusingExporter, made under
        sys.setprofile(profile) where one is given."""
        probe = RefusingExporter()
        before = sys.getprofile()
        if profile is not None:
            sys.setprofile(profile)
        try:
            self.fw.import_(probe)
        except Exception:  # the probe's refusal, or the library's own words about it
            pass
        finally:
            if profile is not None:
                sys.setprofile(before)
        return probe.asks

    def _takes_versioned_capsules(self):
        """Whether the capsule API takes a dltensor_versioned capsule, tried once with a valid
        one. TensorFlow's from_dlpack reads dltensor capsules only, and so gets no other."""
        try:
            self.capsule_api(dlconform_capsule.capsule("f32", (2,), versioned=True))
        except Exception:  # refused: the library reads legacy capsules only
            return False
        return True

    def describe(self):
        """(party, description): the name findings and suppression entries give the importer
        ("python:" and the module, or the adapter's class), and the library, its version and the
        importer's API."""
        chosen = os.environ.get("DLCONFORM_PYTHON_MODULE", "") or type(self.fw).__name__
        legacy = "" if self.asks_versioned else " (takes legacy capsules only)"
        return f"python:{chosen}", f"{self.fw.label} {self.api}{legacy}"

    def reaches(self):
        """(party, how) of a library of REACHABLE whose importer this one's is, or calls from
        Python, seen on one import of an exporter that refuses (no capsule reaches the importer
        under test, whatever its bugs); ("", "") when none. A C importer that calls NumPy's from
        C is not seen."""
        own = self.describe()[0]
        if self.capsule_api is not None:
            return "", ""
        for party, module_name, function in REACHABLE:
            target = getattr(sys.modules.get(module_name), function, None)
            if party == own or not callable(target):
                continue
            calls_module = type(self.fw).import_ is dlc.Framework.import_
            if calls_module and getattr(self.fw.module, "from_dlpack", None) is target:
                return party, f"{self.fw.label}'s from_dlpack is {module_name}.{function}"
            calls = []

            def profile(frame, event, arg, target=target):
                if event == "c_call" and arg is target:
                    calls.append(frame.f_code.co_name)
            self._probe_import(profile)
            if calls:
                return party, f"{self.fw.label}'s from_dlpack calls {module_name}.{function}"
        return "", ""

    def header(self):
        major, minor = self.fw.header()
        return int(major), int(minor)

    def profile(self):
        """(dtypes, strides bits, feature bits, max_ndim, device types) of the adapter's profile:
        what the differential target holds a refusal against. The host's, and a CUDA library's
        own device where the fuzzed CUDA tensors have device memory behind them."""
        dtypes = tuple(CODES[d] for d in self.fw.dtypes if d in CODES)
        strides = sum(STRIDE_BITS.get(w, 0) for w in set(self.fw.strides.split()))
        features = sum(FEATURE_BITS.get(w, 0) for w in set(self.fw.features.split()))
        if not self.asks_versioned:
            features |= LEGACY_STRUCT_ONLY
        devices = (1,) if self.fw.imports_host else ()
        own = int(self.fw.device[0])
        if own != 1 and own in READABLE_DEVICES:
            devices += (own,)
        return dtypes, strides, features, int(self.fw.max_ndim), devices or (1,)

    def cover_lines(self, address, size):
        """Starts LineCoverage over the packages DLCONFORM_PYTHON_COVERAGE names, writing into
        the counters at `address` (0: counted, not guiding). Returns the packages' folders."""
        packages = [p for p in os.environ.get("DLCONFORM_PYTHON_COVERAGE", "").split(",") if p]
        self.coverage = LineCoverage(address, size, packages,
                                     os.environ.get("DLCONFORM_PYTHON_COVERAGE_REPORT", ""))
        return " ".join(self.coverage.roots)

    def set_protocol(self, choices):
        """The protocol answers of the next take(), from a fuzz input's bytes: returns (words,
        rule id, name mode of the capsule, whether __dlpack__ takes no max_version). A capsule API takes the capsule itself, so no
        protocol stands between: that is a ValueError."""
        if self.capsule_api is not None:
            raise ValueError(f"expected an importer that calls __dlpack__ (from_dlpack) but "
                             f"found the capsule API {self.api}")
        self.protocol = ProtocolPlan(bytes(choices))
        plan = self.protocol
        return plan.words(), plan.rule(), plan.name_mode(), plan.legacy_only()

    def protocol_facts(self):
        """What the last protocol take() saw: (capsule handed, __dlpack__ calls, VER-5 fallback
        missed)."""
        return self.exporter.facts() if self.exporter is not None else (False, 0, False)

    def take(self, capsule, versioned, device, made=None):
        """Imports the capsule; returns (code, bits, lanes, shape, on_host, data bytes in
        logical row-major order), as DLPack would say them of `made` ((code, bits, lanes), ndim:
        what the harness made; a library may show lanes as a trailing axis). Raises what the
        importer raised."""
        if self.capsule_api is not None:
            value = self.capsule_api(capsule)
        elif self.protocol is not None:
            plan, self.protocol = self.protocol, None
            self.exporter = protocol_exporter(plan, capsule, versioned, device)
            value = self.fw.import_(self.exporter)
        else:
            value = self.fw.import_(Exporter(capsule, versioned, device))
        self.held = value
        try:
            return self.read(value, made)
        except Exception:  # the adapter's read-back failed (NumPy holds 64 dimensions at most):
            return NOT_READ  # imported, unread; never the library's refusal

    def read(self, value, made=None):
        where = None
        try:
            where = tuple(value.__dlpack_device__())
        except Exception:
            pass
        if where is not None and where[0] not in READABLE_DEVICES:  # never read here
            return NOT_READ
        full_shape = _shape_of(value)
        corner = _leading_corner(value, full_shape)
        if corner is None:
            return NOT_READ
        array = self.fw.to_np(corner)
        np = self.np
        shape = tuple(int(e) for e in array.shape)
        dtype = None
        if made is not None:
            _, shape, dtype = dlc.observed_layout(array, {"dtype": made[0], "ndim": made[1]})
        if corner is not value and len(full_shape) >= len(shape):
            shape = full_shape[:len(shape)]  # the corner's axes, at their full extents
        code, bits, lanes = dtype or CODES.get(array.dtype.name,
                                               (255, array.dtype.itemsize * 8, 1))
        if array.nbytes > READ_BACK_LIMIT:
            # Only an invalid tensor's import is this large (the targets back no more): its first
            # elements show where the library reads, a copy of all would only exhaust memory.
            head = array.flat[:READ_BACK_LIMIT // max(1, array.itemsize)]
            return (code, bits, lanes, shape, True, np.ascontiguousarray(head).tobytes())
        return (code, bits, lanes, shape, True, np.ascontiguousarray(array).tobytes())

    def drop(self):
        self.held = None


def _shape_of(value):
    try:
        return tuple(int(e) for e in value.shape)
    except Exception:
        return None


# The widest element a result holds (complex128), for the bound of what a corner may hold.
WIDEST_ELEMENT = 16


def _leading_corner(value, shape):
    """`value`, or where it holds more than the read-back takes, its leading corner (the first
    elements of each axis, the last axes whole as far as they fit): only an invalid tensor's
    import is that large, and converting all of it (JAX's np.asarray, torch's contiguous()) asks
    for gigabytes the importer never allocated, a false out-of-memory finding of the harness.
    None where a large result cannot be cut: it is not read back (TVM-FFI's tensors cannot be
    sliced, and their conversion is NumPy's from_dlpack, whose own bugs, NULL data allocated as
    a fresh array, would be blamed on TVM-FFI)."""
    if shape is None:
        return value
    count = 1
    for extent in shape:
        count *= extent
    budget = READ_BACK_LIMIT // WIDEST_ELEMENT
    if count <= budget:
        return value
    cut = []
    for extent in reversed(shape):
        kept = max(1, min(extent, budget))
        cut.append(slice(0, kept))
        budget = max(1, budget // kept)
    try:
        return value[tuple(reversed(cut))]
    except Exception:  # a library without slicing
        return None


# The names a protocol input gives the capsule (NAME_MODES), alive as long as the module.
_USED_NAMES = {False: b"used_dltensor", True: b"used_dltensor_versioned"}
_FOREIGN_NAME = b"DLTensor"


def _rename(capsule, name_mode, versioned):
    """The capsule under the name a protocol input gives it (NAME_MODES), as the plugin makes it."""
    import ctypes
    set_name = ctypes.pythonapi.PyCapsule_SetName
    set_name.argtypes, set_name.restype = [ctypes.py_object, ctypes.c_char_p], ctypes.c_int
    name = {1: _USED_NAMES[bool(versioned)], 2: _FOREIGN_NAME, 3: None}.get(name_mode)
    if name_mode in (1, 2, 3) and set_name(capsule, name) != 0:
        raise RuntimeError("cannot rename the capsule")


def replay(versioned=False, protocol=None, **keywords):
    """A fuzz input again, without the harness: its capsule rebuilt by
    python/reproducers/dlconform_capsule.py from the keywords the fuzz target prints with a
    finding ("dlconform fuzz: python: ..."), handed to the importer the environment names as
    the plugin hands it, and read back. Prints what came back, or raises what the importer
    raised; a crash of the importer ends the process here too."""
    import dlconform_capsule
    device = tuple(keywords.get("device", (1, 0)))
    capsule = dlconform_capsule.capsule(versioned=versioned, **keywords)
    importer = Importer()
    if protocol is not None:  # a python_protocol_fuzzer input: the exporter's answers
        words, _, name_mode, _ = importer.set_protocol(bytes(protocol))
        _rename(capsule, name_mode, versioned)
        print(f"protocol: {words}")
    made = (tuple(dlconform_capsule._dtype(keywords.get("dtype", "f32"))),
            keywords.get("ndim", len(keywords.get("shape", (8,)))))
    code, bits, lanes, shape, on_host, data = importer.take(capsule, versioned, device, made)
    if protocol is not None:
        handed, calls, missed = importer.protocol_facts()
        print(f"capsule handed: {handed}, __dlpack__ calls: {calls}, VER-5 fallback missed: "
              f"{missed}")
    print(f"imported: dtype ({code}, {bits}, {lanes}), shape {shape}, "
          f"{len(data) if on_host else 'no'} bytes read back")

