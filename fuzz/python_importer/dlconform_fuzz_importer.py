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

# The most bytes of a result read back: what the fuzz targets digest at most (tensor_input.hpp's
# kMaxDigestedBytes).
READ_BACK_LIMIT = 4 << 20
# NumPy dtype name -> DLPack (code, bits, lanes), for what a library's result holds.
CODES = dlc.DTYPES
# Profile words (docs/matrix.md) -> DLCProfile bits (include/dlconform/plugin.h).
STRIDE_BITS = {"positive": 1, "negative": 2, "zero": 4, "overlapping": 8}
FEATURE_BITS = {"read-only": 1, "zero-dim": 2, "zero-size": 4, "copy": 8, "misaligned": 16}
LEGACY_STRUCT_ONLY = 16384  # DLC_FEATURE_LEGACY_STRUCT_ONLY


class Exporter:
    """What the importer is handed: __dlpack__ answers with the fuzzed capsule, as a producer
    that holds one tensor would. A legacy-only ask (no max_version, or one below 1.0) of a
    versioned capsule is refused with BufferError, as a producer that cannot make the legacy
    struct refuses: handing it the versioned one would be the exporter's fault, not the
    importer's."""
    __slots__ = ("capsule", "versioned", "device", "asks")

    def __init__(self, capsule, versioned, device):
        self.capsule = capsule
        self.versioned = versioned
        self.device = device
        self.asks = []

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        self.asks.append((stream, max_version, dl_device, copy))
        if self.versioned and (max_version is None or tuple(max_version)[0] < 1):
            raise BufferError("this exporter holds a DLManagedTensorVersioned only")
        return self.capsule

    def __dlpack_device__(self):
        return self.device


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
        self.np = self.fw.np
        self.asks_versioned = (self._takes_versioned_capsules() if self.capsule_api is not None
                               else self._asks_versioned())

    def _asks_versioned(self):
        """Whether from_dlpack asks __dlpack__ for a versioned struct (a max_version of major 1
        or more), tried once on an exporter that refuses. One that never does (JAX 0.10 asks
        with stream alone) takes only legacy capsules through the protocol."""
        class Probe:
            asks = []

            def __dlpack__(self, **keywords):
                Probe.asks.append(keywords)
                raise BufferError("dlconform probe: refused")

            def __dlpack_device__(self):
                return (1, 0)

        try:
            self.fw.import_(Probe())
        except Exception:  # the probe's refusal, or the library's own words about it
            pass
        return not Probe.asks or any((k.get("max_version") or (0,))[0] >= 1 for k in Probe.asks)

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

    def header(self):
        major, minor = self.fw.header()
        return int(major), int(minor)

    def profile(self):
        """(dtypes, strides bits, feature bits, max_ndim) of the adapter's profile: what the
        differential target holds a refusal against."""
        dtypes = tuple(CODES[d] for d in self.fw.dtypes if d in CODES)
        strides = sum(STRIDE_BITS.get(w, 0) for w in set(self.fw.strides.split()))
        features = sum(FEATURE_BITS.get(w, 0) for w in set(self.fw.features.split()))
        if not self.asks_versioned:
            features |= LEGACY_STRUCT_ONLY
        return dtypes, strides, features, int(self.fw.max_ndim)

    def take(self, capsule, versioned, device, made=None):
        """Imports the capsule; returns (code, bits, lanes, shape, on_host, data bytes in
        logical row-major order), as DLPack would say them of `made` ((code, bits, lanes), ndim:
        what the harness made; a library may show lanes as a trailing axis). Raises what the
        importer raised."""
        if self.capsule_api is not None:
            value = self.capsule_api(capsule)
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
        if where is not None and where[0] not in (1, 3):  # not host memory: never read here
            return NOT_READ
        array = self.fw.to_np(value)
        np = self.np
        shape = tuple(int(e) for e in array.shape)
        dtype = None
        if made is not None:
            _, shape, dtype = dlc.observed_layout(array, {"dtype": made[0], "ndim": made[1]})
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


def replay(versioned=False, **keywords):
    """A fuzz input again, without the harness: its capsule rebuilt by
    python/reproducers/dlconform_capsule.py from the keywords the fuzz target prints with a
    finding ("dlconform fuzz: python: ..."), handed to the importer the environment names as
    the plugin hands it, and read back. Prints what came back, or raises what the importer
    raised; a crash of the importer ends the process here too."""
    import dlconform_capsule
    device = tuple(keywords.get("device", (1, 0)))
    capsule = dlconform_capsule.capsule(versioned=versioned, **keywords)
    importer = Importer()
    made = (tuple(dlconform_capsule._dtype(keywords.get("dtype", "f32"))),
            keywords.get("ndim", len(keywords.get("shape", (8,)))))
    code, bits, lanes, shape, on_host, data = importer.take(capsule, versioned, device, made)
    print(f"imported: dtype ({code}, {bits}, {lanes}), shape {shape}, "
          f"{len(data) if on_host else 'no'} bytes read back")

