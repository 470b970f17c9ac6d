"""The Python adapter interface of dlconform: how the driver (dlconform_frameworks.py) makes,
exports, imports and reads back one library's arrays. Every framework the project judges is an
adapter of this interface, one file each in python/adapters/; so is a library judged by its
module name (ModuleAdapter, below); and so is yours, in a file passed with
`dlconform matrix --adapter my_adapter.py`, for a library with no standard surface (a
capsule-only API such as tf.experimental.dlpack, arrays not built by asarray).

A file of yours imports this module and defines one or more subclasses of Framework:

    import dlconform_adapter as dlc

    class MyLib(dlc.Framework):
        name = "mylib"                      # the module to import (self.module)
        dtypes = ["float32", "int64"]       # numpy dtype names it makes and must import
        views = ("T", "step", "offset")     # which catalogue views from_np + view can make

        def from_np(self, array):           # a NumPy array -> a fresh array of yours
            return self.module.tensor(array.tolist(), dtype=str(array.dtype))

        def view(self, value, kind):        # one of `views`, made by your own operations
            return dlc.sliced_view(value, kind, self.module.broadcast_to)

The slots, in the order the driver uses them. Each runs in a forked worker, may raise, and is
judged; nothing here may print to stdout (records go there; stderr is free).

Class attributes (what the library is):
  name            str. The module imported as self.module by Framework.__init__. Required.
  dtypes          [str]. NumPy dtype names (keys of DTYPES) it can make and must import; probe()
                  keeps those from_np really makes. Default COMMON.
  strides         str. Profile words (docs/matrix.md): the strides it takes as a
                  consumer: "positive", "negative", "zero", "overlapping". Default "positive zero".
  features        str. Profile words: "read-only", "zero-dim", "zero-size", "misaligned", ...
  max_ndim        int. The most dimensions it takes. Default 8.
  views           tuple. The catalogue views it can make as a producer: "T" (transposed), "step"
                  (every second column), "reversed" (negative strides), "offset" (a window),
                  "broadcast" (zero strides), "read_only".
  dunder          bool. Its arrays have __dlpack__ (checked by probe() for ModuleAdapter).
  legacy_exports  {api name: function(value) -> capsule}: capsule-only exporters
                  (to_dlpack); each is judged like __dlpack__.
  capsule_imports {api name: function(capsule) -> value}: capsule-only importers
                  (from_dlpack(capsule)); each gets legacy capsules, and a versioned one it may
                  refuse but must not misread.
  xapi_imports    {api name: function(obj) -> value}: importers that take an array only through
                  its type's C exchange-API table (TVM-FFI's FFI call arguments); each gets the
                  exchange API's consumer cases (dlconform_xapi_consumers.py).
  writable_concept bool. It has read-only arrays (FLAG-1b is then judged on its exports; a
                  READ_ONLY import it makes writable breaks FLAG-1).
  immutable       bool. Every array it makes is immutable (JAX, TensorFlow, Arrow): FLAG-1b is
                  judged on its exports, and every consumer's import of them is written through.
  asks            bool. Its import_ calls __dlpack__ itself (from_dlpack(obj)), so how it asks
                  is judged (VER-5, STRM-1, STRM-3, STRM-4). False where import_ goes through a
                  capsule-only importer (legacy_capsule below asks for it). Default True.
  array_api_import bool. Its import_ is an Array API from_dlpack, held to that function's
                  required exceptions (AttributeError for None: no-attribute-error). False where
                  it is something else (Dr.Jit's tensor constructors). Default True.
  imports, exports bool. Which roles it plays (False: that side is left out, with a note).
  header_file     str. The dlpack.h it ships, relative to its package folder (DT-1, DEV-1).
  device          (type, id). The DLPack device its arrays live on: (1, 0), the host, by
                  default; (14, 0) for oneAPI (dpnp), (2, 0) for CUDA. A device other than the
                  host gets the device cases of dlconform_devices.py: exports judged without a
                  host read, host copies through dl_device, the dl_device x copy table, pairs in
                  both directions with device= asks, every mock consumer.
  imports_host    bool. Its importer takes host (kDLCPU) memory. Default True; False for an
                  importer of its own device alone (CuPy): host tensors are then outside its
                  profile, and it may refuse them.

Methods (value = one of your arrays; array = a NumPy array):
  __init__(self)          imports self.name as self.module and numpy as self.np. Raise to say
                          the library cannot run here (a note in the report, or an error for
                          --adapter).
  start(self)             before the first tensor, in a worker: start runtimes and pools here,
                          never at import (the parent forks the workers).
  probe(self) -> dict     which dtypes really work; runs in a forked child. Rarely overridden.
  from_np(self, array)    a fresh value holding array's values and dtype. Required for the
                          producer side. Raise Unsupported for what it cannot make.
  view(self, value, kind) a view of value of that kind, through the library's own operations.
  export(self, value)     what __dlpack__ is called on (default: value itself).
  import_(self, obj, **keywords)
                          obj (anything with __dlpack__) -> a value. Default
                          self.module.from_dlpack(obj, **keywords). Raise to refuse (BufferError
                          is the spec's word). keywords are the Array API's copy= and device=,
                          passed on to see what the importer asks __dlpack__ for; an importer
                          that takes neither raises TypeError before calling obj (not judged).
  cpu_device(self)        the library's own name for the CPU, for from_dlpack(device=...); None
                          when it has none (the device= case is then left out).
  own_device(self)        its name for `device`, for from_dlpack(device=...) (device frameworks).
  stream(self)            what its consumer passes as stream for its own device (a CUDA stream
                          handle, a SYCL queue); None on the host.
  to_np(self, value)      value's contents as a NumPy array of the same shape and dtype,
                          read WITHOUT going through DLPack where the library allows it: the
                          expected values of an export come from here.
  writable(self, value)   True, False, or None when the library has no such notion.
  read_only(self, value)  value, or a view of it, that is immutable (NumPy: writeable=False); raise
                          Unsupported when the library has no immutable arrays. Default: value
                          itself when `immutable`. Set `read_only_arrays = False` in __init__
                          where this version of the library has none (torch before 2.15): its
                          immutable cases are then left out rather than skipped.
  write(self, value)      writes 42 into the first element of an imported float32 array, through
                          the library's own operations (default: value[0, ...] = 42). Raise when
                          the library refuses the write (a read-only or immutable array).
  header(self)            (major, minor) of the DLPack header its importer follows.
  version, label          its version string and "name@version" (properties). The version is
                          the module's __version__, else its distribution's (the installed
                          package that provides it: a namespace package, a submodule), else
                          "?"; a class attribute or property `version` of yours overrides it.

Ownership: the driver owns every value and capsule it is handed; an adapter keeps no reference
to a value past the call that made it (a kept reference reads as a leak, LIFE-5). Exceptions
are the adapter's refusals or failures, and are judged; an adapter never catches BaseException.
"""
import importlib
import os

DTYPES = {  # numpy dtype name -> DLPack (code, bits, lanes)
    "int8": (0, 8, 1), "int16": (0, 16, 1), "int32": (0, 32, 1), "int64": (0, 64, 1),
    "uint8": (1, 8, 1), "uint16": (1, 16, 1), "uint32": (1, 32, 1), "uint64": (1, 64, 1),
    "float16": (2, 16, 1), "float32": (2, 32, 1), "float64": (2, 64, 1),
    "bfloat16": (4, 16, 1), "complex64": (5, 64, 1), "complex128": (5, 128, 1), "bool": (6, 8, 1),
    "float8_e4m3fn": (10, 8, 1), "float8_e5m2": (12, 8, 1),
}
PROFILE_NAMES = {"int8": "i8", "int16": "i16", "int32": "i32", "int64": "i64", "uint8": "u8",
                 "uint16": "u16", "uint32": "u32", "uint64": "u64", "float16": "f16",
                 "float32": "f32", "float64": "f64", "bfloat16": "bf16", "complex64": "c64",
                 "complex128": "c128", "bool": "bool"}
COMMON = ["int8", "int16", "int32", "int64", "uint8", "float16", "float32", "float64", "bool"]
# What the probe tries for each dtype, in order: a library that makes none of these is judged as
# a consumer only.
PROBE_SHAPES = ((2,), (2, 2), (3, 3), (4, 4), (2, 3))
# The narrow floats of DLPack 1.1 (DT-1), by their ml_dtypes names: float8, float6, float4.
NARROW_FLOATS = {"float8_e3m4": (7, 8, 1), "float8_e4m3": (8, 8, 1),
                 "float8_e4m3b11fnuz": (9, 8, 1), "float8_e4m3fn": (10, 8, 1),
                 "float8_e4m3fnuz": (11, 8, 1), "float8_e5m2": (12, 8, 1),
                 "float8_e5m2fnuz": (13, 8, 1), "float8_e8m0fnu": (14, 8, 1),
                 "float6_e2m3fn": (15, 6, 1), "float6_e3m2fn": (16, 6, 1),
                 "float4_e2m1fn": (17, 4, 1)}


class Unsupported(Exception):
    """The framework cannot make this tensor: not a case."""


class Framework:
    """One framework's DLPack surface. Subclasses say how to make, export, import and read back
    tensors; the profile says what its importer must take (profile-file syntax: docs/matrix.md)."""
    name = ""            # the module to import
    dtypes = COMMON      # what it can make and import
    strides = "positive zero"
    features = "zero-dim zero-size"
    max_ndim = 8
    views = ()           # the views it makes: T, step, reversed, offset, broadcast, read_only
    dunder = True        # values have __dlpack__
    legacy_exports = {}  # api name -> function(value) -> capsule
    capsule_imports = {}  # api name -> function(capsule) -> value: its capsule-only importers
    xapi_imports = {}  # api name -> function(obj) -> value: importers through the C exchange API
    writable_concept = True  # it has a notion of read-only arrays
    imports = True       # it has an importer (from_dlpack, or capsule_imports)
    exports = True       # its arrays can be exported (__dlpack__, legacy_exports or export())
    partner_only = False  # in the pairs only (NumPy beside a module under test)
    immutable = False    # every array it makes is immutable
    read_only_arrays = True  # read_only() can answer in this version (where it is overridden)
    asks = True          # import_ calls __dlpack__ itself
    array_api_import = True  # import_ is an Array API from_dlpack (its Raises bind it)
    device = (1, 0)      # where its arrays live (DLPack device type, id)
    imports_host = True  # its importer takes host memory
    # It is handed CUDA and OpenCL tensors it cannot place, to refuse: False only where an abort
    # one causes lands in a later case, which no verdict could then name.
    device_tensor_cases = True

    def __init__(self):
        self.module = importlib.import_module(self.name)
        import numpy
        self.np = numpy
        try:
            import ml_dtypes  # noqa: F401  (numpy's view of bfloat16)
        except ImportError:
            self.dtypes = [d for d in self.dtypes if d != "bfloat16"]

    has_xapi = False
    started = False

    def start(self):
        """Whatever must run before the first tensor (a runtime, thread pools): in a worker,
        never in the parent the workers fork from."""
        self.started = True

    def probe(self):
        """What this version really does: the dtypes it makes (older releases make fewer), an
        array it makes (`sample`: float32 of 2 elements, else the first of PROBE_SHAPES it makes,
        for a library with a narrow surface: fixed-size matrices, one dtype), and whether its
        array type has the C exchange API. Runs in a forked child."""
        self.start()
        kept, sample = [], None
        for dtype in self.dtypes:
            for shape in PROBE_SHAPES:  # most make the first: one call per dtype
                try:
                    self.from_np(make_array(self.np, dtype, shape))
                except Exception:
                    continue
                kept.append(dtype)
                if sample is None or (dtype, shape) == ("float32", (2,)):
                    sample = (dtype, shape)
                break
        value = self.from_np(make_array(self.np, *sample)) if sample else None
        return {"dtypes": kept, "sample": sample,
                "has_xapi": hasattr(type(value), "__dlpack_c_exchange_api__")}

    sample = ("float32", (2,))  # the probe's: an array this library makes

    @property
    def version(self):
        if "_version" not in self.__dict__:  # labels are asked for on every case: look once
            found = getattr(self.module, "__version__", None)
            if found is None:
                found = distribution_version(self.module.__name__)
            self._version = str(found if found is not None else "?").split("+")[0]
        return self._version

    @property
    def label(self):
        return f"{self.name}@{self.version}"

    def profile(self):
        names = " ".join(PROFILE_NAMES[d] for d in self.dtypes)
        devices = "cpu" if self.imports_host else str(self.device[0])
        return (f"dtypes = {names}\ndevices = {devices}\nstrides = {self.strides}\n"
                f"features = {self.features}\nmax_ndim = {self.max_ndim}\n")

    # Producer side
    def from_np(self, array):
        raise NotImplementedError

    def view(self, value, kind):
        raise Unsupported(kind)

    def unexpressible(self):
        """Arrays DLPack cannot express, by name: {name: (why, builder)}. Each export must be
        refused with BufferError (the Array API's should), or read right by a consumer."""
        return {}

    def narrow_floats(self):
        """The narrow floats it makes (NARROW_FLOATS), by name: {name: ((code, bits, lanes),
        builder)}. builder(codes) makes a 1-D array from a uint8 NumPy array of bit patterns, one
        element each; (code, bits, lanes) is the DLPack dtype it must export as."""
        return {}

    def pending_write(self, array):
        """A CUDA array of `array`'s shape and dtype whose values become `array`'s only once the
        library's current stream has run past a long wait (about 100 ms) queued on it: the
        producer's pending work a consumer's stream must be made to wait for (STRM-1). It
        holds other values until then. None: the library cannot queue such a wait."""
        return None

    def memories(self):
        """Arrays it makes in memory of another kind than its usual arrays', by kind: {"pinned":
        builder} (page-locked host memory, torch's pin_memory()) or {"managed": builder} (CUDA
        managed memory, CuPy's managed allocator); builder(array) makes one holding a NumPy
        array's values. Judged on a GPU (devices/*/F/memory/KIND/f32_2x3)."""
        return {}

    def export(self, value):
        return value

    def read_only(self, value):
        if self.immutable:
            return value
        raise Unsupported("no immutable arrays")

    # Consumer side
    def import_(self, obj, **keywords):
        return self.module.from_dlpack(obj, **keywords)

    def cpu_device(self):
        try:  # the device of an array it makes; a consumer-only adapter may make none
            return getattr(self.from_np(self.np.zeros((1,), "float32")), "device", None)
        except Exception:
            return None

    def own_device(self):
        return None

    def stream(self):
        return None

    def write(self, value):
        value[(0,) * len(value.shape)] = 42

    def to_np(self, value):
        return self.np.asarray(value)

    def writable(self, value):
        return None

    header_file = ""  # the dlpack.h the framework ships, relative to its package folder

    def header(self):
        """The DLPack header its importer was built with: it decides which codes the importer
        must know (DT-1, DEV-1). The one the framework ships when it ships one; else what is
        documented below; else the newest, so that every rule of DLPack 1.3 applies."""
        if self.header_file:
            path = os.path.join(os.path.dirname(self.module.__file__), self.header_file)
            try:
                with open(path, encoding="utf-8", errors="replace") as f:
                    text = f.read()
                return header_version(text)
            except (OSError, ValueError):
                pass
        return (1, 3)

    def release(self):
        """The version as a tuple of numbers, for comparisons."""
        parts = []
        for part in self.version.split("."):
            digits = "".join(c for c in part if c.isdigit())
            parts.append(int(digits) if digits else 0)
        return tuple(parts)


def distribution_version(module_name):
    """The version of the installed distribution that provides module_name's top-level package
    (importlib.metadata), or None. Where several provide it (a namespace package), the one named
    like it, else the first by name."""
    from importlib import metadata
    top = module_name.split(".")[0]
    try:
        names = sorted(metadata.packages_distributions().get(top, []))
    except AttributeError:  # Python 3.9: no packages_distributions
        names = []
    key = top.lower().replace("_", "-")
    names.sort(key=lambda n: n.lower().replace("_", "-") != key)
    for name in names + [top]:
        try:
            return metadata.version(name)
        except metadata.PackageNotFoundError:
            continue
    return None


def header_version(text):
    """(major, minor) of a dlpack.h: DLPACK_MAJOR/MINOR_VERSION, or DLPACK_VERSION 060 (0.6)."""
    import re
    major = re.search(r"#define\s+DLPACK_MAJOR_VERSION\s+(\d+)", text)
    minor = re.search(r"#define\s+DLPACK_MINOR_VERSION\s+(\d+)", text)
    if major and minor:
        return (int(major.group(1)), int(minor.group(1)))
    legacy = re.search(r"#define\s+DLPACK_VERSION\s+(\d+)", text)
    if legacy:
        return (0, int(legacy.group(1)) // 10)
    raise ValueError("no DLPACK version in the header")


def as_dtype(array, name):
    """array's bytes as the ml_dtypes type `name` (bfloat16, float8_*) when it is one."""
    if name in ("bfloat16", "float8_e4m3fn", "float8_e5m2") and array.dtype.name != name:
        import ml_dtypes
        return array.view(getattr(ml_dtypes, name))
    return array


def legacy_capsule(obj):
    """What a capsule-only importer does with an object: ask __dlpack__() without keywords."""
    return obj if type(obj).__name__ == "PyCapsule" else obj.__dlpack__()


def numpy_header(np):
    """Not shipped. NumPy 1.22-1.24 vendor DLPack 0.5 (no bool); 1.25 to 2.0 know bool (0.8)
    but take no max_version; 2.1 and later ask for 1.0."""
    release = tuple(int("".join(c for c in p if c.isdigit()) or 0)
                    for p in np.__version__.split(".")[:2])
    return (0, 5) if release < (1, 25) else (0, 8) if release < (2, 1) else (1, 0)


def sliced_view(value, kind, broadcast_to, transpose=lambda v: v.T, reverse=lambda v: v[::-1]):
    """A view of the catalogue through an array API's slicing: transposed, every second column,
    reversed (reverse None: the framework has no negative strides), five rows in, broadcast."""
    if kind == "T":
        return transpose(value)
    if kind == "step":
        return value[:, ::2]
    if kind == "reversed" and reverse is not None:
        return reverse(value)
    if kind == "offset":
        return value[5:]
    if kind == "broadcast":
        return broadcast_to(value, (4,) + tuple(value.shape))
    raise Unsupported(kind)


def numpy_view(np, value, kind):
    if kind == "read_only":
        value = value.copy()
        value.setflags(write=False)
        return value
    return sliced_view(value, kind, np.broadcast_to)


def observed_layout(array, entry):
    """(ndim, shape, dtype) of an imported array as DLPack would say it. numpy has no lanes: a
    framework that maps a lanes dtype to a vector type shows it as one more, trailing axis."""
    shape = tuple(int(e) for e in array.shape)
    dtype = DTYPES.get(array.dtype.name)
    lanes = entry["dtype"][2]
    if (lanes > 1 and dtype is not None and len(shape) == entry["ndim"] + 1
            and shape[-1] == lanes and dtype[:2] == entry["dtype"][:2]):
        return entry["ndim"], shape[:-1], (dtype[0], dtype[1], lanes)
    return len(shape), shape, dtype


def make_array(np, dtype, shape):
    count = 1
    for e in shape:
        count *= e
    array = np.arange(count).astype("float64") % 7
    if dtype == "bfloat16":
        import ml_dtypes
        return aligned(np, array.astype(np.float32).astype(ml_dtypes.bfloat16).reshape(shape))
    return aligned(np, (array > 3 if dtype == "bool" else array.astype(dtype)).reshape(shape))


def aligned(np, array):
    """A copy of `array` at a 64-byte aligned address: NumPy's allocator gives 16, and whether a
    consumer (JAX) copies or aliases must not depend on where the heap happens to be."""
    buffer = np.empty(array.nbytes + 64, dtype="uint8")
    start = (-buffer.ctypes.data) % 64
    out = buffer[start:start + array.nbytes].view(array.dtype).reshape(array.shape)
    out[...] = array
    return out


def element_reader(np, dtype_name):
    """Python scalars of 0-d arrays, by dtype: a read that needs no DLPack and no buffer
    protocol (the Array API gives every 0-d array __bool__, __int__, __float__, __complex__)."""
    if dtype_name == "bool":
        return bool
    if dtype_name.startswith(("int", "uint")):
        return int
    if dtype_name.startswith("complex"):
        return complex
    return float


class PlantedParty(Framework):
    """The base of the planted parties' adapters (python/planted_*.py): each subclass says what
    it breaks in `planted`, is labelled NAME@1 and declares DLPack 1.3. (A base class of this
    file: load_adapters takes none of it for a party of its own.)"""
    planted = ""

    @property
    def version(self):
        return "1"

    @property
    def label(self):
        return f"{self.planted}@1"

    def header(self):
        return (1, 3)


def load_adapters(path):
    """The adapter classes a file defines: subclasses of Framework, the interface documented in
    docs/adapters.md ("A Python adapter for everything else"), declared in dlconform_adapter.py."""
    import importlib.util
    spec = importlib.util.spec_from_file_location(
        "dlconform_adapter_" + os.path.splitext(os.path.basename(path))[0], path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    found = [cls for cls in vars(module).values()
             if isinstance(cls, type) and issubclass(cls, Framework) and cls is not Framework
             and cls.__module__ == module.__name__]
    if not found:
        raise ValueError(f"expected a subclass of dlconform_adapter.Framework in {path} "
                         "but found none")
    return found


# The built-in adapters, one file each in adapters/, in the order the driver imports them.
ORDER_FILES = [("numpy", "NumPy"), ("paddle", "Paddle"), ("torch", "Torch"), ("jax", "Jax"),
               ("pyarrow", "PyArrow"), ("tensorflow", "TensorFlow"), ("mlx", "MLX"),
               ("tvm_ffi", "TVMFFI"), ("warp", "Warp"), ("array_api_strict", "ArrayApiStrict"),
               ("mxnet", "MXNet"), ("dpnp", "DPNP")]
# paddle before tensorflow: 'import tensorflow; import paddle' crashes (two protobuf runtimes).
ADAPTERS_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "adapters")


def builtin_adapter(module_name, class_name):
    """The class of a built-in adapter file (loaded by path: its name is no module's)."""
    import importlib.util
    path = os.path.join(ADAPTERS_DIR, f"{module_name}_adapter.py")
    spec = importlib.util.spec_from_file_location(f"dlconform_adapters.{module_name}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return getattr(module, class_name)


class DeviceFramework(Framework):
    """A library whose arrays live on a device of its own (CuPy, dpnp): its runtime starts in
    start() (the adapter's: it says when there is no device) before the first array is made, in a
    worker, never at import; arrays come from NumPy data through asarray, views by its own
    slicing and broadcast_to."""

    def from_np(self, array):
        self.start()
        return self.module.asarray(array)

    def view(self, value, kind):
        return sliced_view(value, kind, self.module.broadcast_to)

class ModuleAdapter(Framework):
    """Any module with the Array API's DLPack surface, judged by its name alone (--module NAME,
    DLCONFORM_MODULE): arrays made by asarray (else from_dlpack of a NumPy array), views by its
    own slicing, permute_dims, flip and broadcast_to, values read back element by element
    through indexing, never through DLPack (a wrong export must not agree with itself)."""
    views = ("T", "step", "reversed", "offset", "broadcast")
    strides = "positive"  # the default profile's: what every consumer must take
    features = "read-only zero-dim zero-size"
    writable_concept = False

    def __init__(self, name, profile_file=""):
        self.name = name
        super().__init__()
        xp = self.module
        self.profile_file = profile_file
        self.imports = callable(getattr(xp, "from_dlpack", None))
        self.makes = callable(getattr(xp, "asarray", None)) or self.imports
        self.by_name = {}  # dtype name -> the module's dtype object
        info = getattr(xp, "__array_namespace_info__", None)
        if callable(info):
            try:
                self.by_name = {k: v for k, v in dict(info().dtypes()).items() if k in DTYPES}
            except Exception:
                self.by_name = {}
        for name_ in DTYPES:
            if name_ not in self.by_name and getattr(xp, name_, None) is not None:
                self.by_name[name_] = getattr(xp, name_)
        known = [d for d in DTYPES if d in self.by_name and d in PROFILE_NAMES]
        self.dtypes = known or ["float32"]
        if "bfloat16" in self.dtypes:
            try:
                import ml_dtypes  # noqa: F401
            except ImportError:
                self.dtypes.remove("bfloat16")
        if not callable(getattr(xp, "flip", None)):
            self.views = tuple(v for v in self.views if v != "reversed")

    def probe(self):
        facts = super().probe()
        value = self.from_np(make_array(self.np, *facts["sample"])) if facts["sample"] else None
        facts["dunder"] = callable(getattr(value, "__dlpack__", None))
        return facts

    def profile(self):
        if self.profile_file:
            with open(self.profile_file, encoding="utf-8") as f:
                return f.read()
        return super().profile()

    def from_np(self, array):
        xp = self.module
        try:
            if callable(getattr(xp, "asarray", None)):
                return xp.asarray(array)
            return xp.from_dlpack(array.copy())
        except Exception as e:  # what it does not make is left out, with why (a narrow surface)
            raise Unsupported(f"{self.name} makes no {array.dtype} array of shape "
                              f"{tuple(array.shape)}: {type(e).__name__}: {str(e)[:120]}") from e

    def view(self, value, kind):
        xp = self.module
        permute = getattr(xp, "permute_dims", None)
        return sliced_view(value, kind, getattr(xp, "broadcast_to", None) or self.np.broadcast_to,
                           transpose=(lambda v: permute(v, (1, 0))) if permute else (lambda v: v.T),
                           reverse=(lambda v: xp.flip(v, axis=0)) if hasattr(xp, "flip") else None)

    def read_only(self, value):
        """The Array API lets arrays be immutable: one whose __setitem__ refuses, saying so, is.
        An array type with no __setitem__ at all says nothing of its data, and is not judged."""
        probe = self.from_np(self.np.zeros((2,), "float32"))
        try:
            probe[0] = 1
        except Exception as e:
            words = str(e).lower()
            if any(w in words for w in ("immutable", "read-only", "read only", "readonly")):
                return value
        raise Unsupported("no immutable arrays")

    def dtype_name(self, value):
        for name_, dtype in self.by_name.items():
            try:
                if value.dtype == dtype:
                    return name_
            except Exception:
                continue
        return str(value.dtype).rsplit(".", 1)[-1]

    def to_np(self, value):
        np = self.np
        name_ = self.dtype_name(value)
        shape = tuple(int(e) for e in value.shape)
        read = element_reader(np, name_)
        if name_ in ("bfloat16", "float8_e4m3fn", "float8_e5m2"):
            import ml_dtypes
            dtype = getattr(ml_dtypes, name_)
        else:
            dtype = np.dtype(name_)
        out = np.empty(shape, dtype=dtype)
        # No element, no index: NumPy 2.4's ndindex makes a tuple of each extent's range first,
        # and a size-0 import may have an extent of 2^31 beside its 0.
        for index in np.ndindex(*shape) if out.size else ():
            out[index] = read(value[index] if index else value)  # a 0-d array converts itself
        # Python floats keep no NaN payload: where NumPy's own conversion (which may not go
        # through DLPack) agrees value for value, its exact bytes are the ones to compare.
        try:
            direct = np.asarray(value)
            if direct.shape == out.shape and np.array_equal(direct.astype(out.dtype), out,
                                                            equal_nan=out.dtype.kind in "fc"):
                return direct.astype(out.dtype)
        except Exception:
            pass
        return out
