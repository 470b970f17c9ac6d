/*
 * dlconform plugin ABI.
 *
 * A dlconform plugin is a shared library that plays the producer and/or the consumer side of a
 * DLPack exchange. The harness loads it with dlopen(), calls its one exported entry point
 * (DLCONFORM_PLUGIN_ENTRY_NAME), and drives it through the function table it returns.
 *
 * This header is plain C (C11 or C++11 and later) and depends only on <stdint.h> and
 * <stddef.h>. It deliberately does not include dlpack.h: the plugin compiles against whatever
 * DLPack header it wants to test, and the tensor crosses this boundary type-erased, exactly as
 * it crosses a PyCapsule (a name plus a void pointer).
 *
 * Rules that hold for every slot in this file:
 *  - No function may throw or longjmp across this boundary. A C++ plugin catches everything.
 *  - Fallible functions return an int code (DLC_OK or one of DLC_ERR_*). On failure they write a
 *    NUL-terminated, one-line message into the caller-owned buffer `err` of `err_len` bytes
 *    (truncating as needed). Messages read "expected X but found Y" where that fits.
 *  - Strings returned by a plugin (names, descriptions, capsule names) are static: they stay valid
 *    until the library is unloaded.
 *  - Pointers passed in by the harness are borrowed for the duration of the call unless the slot
 *    says otherwise.
 */
#ifndef DLCONFORM_PLUGIN_H_
#define DLCONFORM_PLUGIN_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------------------------------------
 * Versions and result codes
 * ------------------------------------------------------------------------------------------- */

/** Version of this plugin ABI. Version 2 appended DLCPlugin.profile; version 3 appended
 *  DLCPlugin.available and DLCPlugin.ask (devices and streams) and the device services of DLCHost.
 *  The harness still accepts version 1 and 2 tables (they get the default profile, and no device
 *  slots). Any other version is refused at load. */
#define DLCONFORM_PLUGIN_ABI_VERSION 3u
/** The oldest table version the harness accepts. */
#define DLCONFORM_PLUGIN_ABI_VERSION_MIN 1u

/** Every shape and strides array in a request or an observation has room for this many
 *  dimensions; a tensor with more is described by its first DLC_MAX_NDIM only. */
#define DLC_MAX_NDIM 32

/** Name of the symbol every plugin exports (see DLCPluginEntryFn). */
#define DLCONFORM_PLUGIN_ENTRY_NAME "dlconform_plugin_entry"

/** The call succeeded. */
#define DLC_OK 0
/** The analogue of Python's BufferError: a producer cannot export this tensor as asked, or a
 *  consumer refuses the tensor it was handed. A clean refusal, not a harness error. */
#define DLC_ERR_BUFFER 1
/** The analogue of Python's TypeError on an unknown keyword: a legacy producer does not know
 *  max_version, dl_device or copy. The caller retries without them (DLPack rule VER-5). */
#define DLC_ERR_TYPE 2
/** The request itself is malformed (a harness or adapter bug, not a DLPack finding). */
#define DLC_ERR_INVALID 3
/** The plugin failed for a reason of its own (out of memory, a framework error). */
#define DLC_ERR_INTERNAL 4
/** Plugin ABI 3: the plugin cannot run on this machine at all (no CUDA device, no driver). Only
 *  DLCPlugin.available returns it; the plugin's cases are skipped with its message as the reason. */
#define DLC_ERR_UNAVAILABLE 5

/** Roles a plugin can play; bitwise OR in DLCPlugin.roles. */
#define DLC_ROLE_PRODUCER 1u
#define DLC_ROLE_CONSUMER 2u

/** A DLPack version as the plugin's own header declares it. v0.x headers map DLPACK_VERSION
 *  60/70/80 to {0,6}/{0,7}/{0,8}. */
typedef struct DLCVersion {
  uint32_t major;
  uint32_t minor;
} DLCVersion;

/** Mirror of DLDataType: the same three fields, with the same widths. */
typedef struct DLCDtype {
  uint8_t code;
  uint8_t bits;
  uint16_t lanes;
} DLCDtype;

/** Mirror of DLDevice. */
typedef struct DLCDevice {
  int32_t device_type;
  int32_t device_id;
} DLCDevice;

/* ---------------------------------------------------------------------------------------------
 * Host services: what the harness offers a plugin
 * ------------------------------------------------------------------------------------------- */

/** What an allocation holds; the harness uses it to name the buffer in a fault report. */
typedef enum DLCAllocKind {
  DLC_ALLOC_STRUCT = 0,  /**< a DLManagedTensor(Versioned) or a design-variant struct */
  DLC_ALLOC_SHAPE = 1,   /**< a shape array */
  DLC_ALLOC_STRIDES = 2, /**< a strides array */
  DLC_ALLOC_DATA = 3,    /**< the element storage */
  DLC_ALLOC_CONTEXT = 4  /**< a manager_ctx block */
} DLCAllocKind;

/**
 * Services the harness lends a plugin for its whole lifetime. Every function pointer is non-NULL.
 * Plugins that do not use them (a framework adapter, say) simply ignore the table.
 */
typedef struct DLCHost {
  /** DLCONFORM_PLUGIN_ABI_VERSION of the harness. */
  uint32_t abi_version;
  /** Opaque; pass back as the first argument of every service. */
  void* ctx;

  /**
   * Allocate `size` bytes placed so that the byte after the last one is the first byte of an
   * inaccessible guard page: reading one byte too far faults, also in code that is not built with
   * a sanitizer. `size` may be 0. The block's start is aligned to `align` (a power of two, 1 to
   * 4096) only if `size` is a multiple of `align`; otherwise the end stays flush with the guard
   * and the start is as aligned as that allows. Returns NULL on failure. The caller owns the block
   * and frees it with `free`.
   */
  void* (*alloc)(void* ctx, size_t size, size_t align, DLCAllocKind kind);
  /**
   * Make a block from `alloc` read-only (DLPack flag READ_ONLY, rule FLAG-1): a later write to it
   * faults and is reported as a write to a read-only tensor. Returns DLC_OK or DLC_ERR_INVALID.
   */
  int (*protect_read_only)(void* ctx, void* block);
  /**
   * Release a block from `alloc`. Its pages stay reserved and inaccessible, so any later touch is
   * reported as a use after delete (rule LIFE-6). NULL is a no-op.
   */
  void (*free)(void* ctx, void* block);
  /**
   * A pointer that faults on any host access, for tensors that claim a non-CPU device: a host
   * dereference of it is reported as rule DEV-3. `size` bytes are reserved.
   */
  void* (*device_poison)(void* ctx, size_t size);
  /**
   * The deleter ledger (rule LIFE-3). A mock producer's deleter calls this first, with the
   * struct it was given. Returns 0 on the first call for that struct, and non-zero if the struct
   * was already deleted or was never produced: the deleter must then return at once without
   * touching `managed`, since the harness has already recorded the double call.
   */
  int (*deleter_called)(void* ctx, const void* managed);
  /** Record that a producer handed out `managed`; the ledger then expects one deleter call. */
  void (*produced)(void* ctx, const void* managed);
  /**
   * Plugin ABI 2. A pointer that faults on any host access, for a tensor whose geometry is
   * invalid (a negative extent, zero lanes, a storage size that overflows): it has no storage,
   * so any access is reported as out of bounds under the tensor's rule. `size` bytes reserved.
   */
  void* (*no_storage)(void* ctx, size_t size);
  /**
   * Plugin ABI 3 (check abi_version >= 3 first). Records memory a device runtime allocated for a
   * tensor (`allocator` is one of DLC_DEVICE_ALLOC_*): a host access inside it is reported as
   * rule DEV-3 when the memory is not host-accessible, and the case checks that the deleter frees
   * it with the same allocator's free function (LIFE-5).
   */
  void (*device_allocated)(void* ctx, const void* pointer, size_t size, int32_t allocator);
  /**
   * Plugin ABI 3. Records that `pointer` was handed to the free function of `allocator` (the one
   * the code really called: cudaFree is DLC_DEVICE_ALLOC_CUDA_MALLOC, also for managed memory;
   * cudaFreeHost is DLC_DEVICE_ALLOC_CUDA_MALLOC_HOST). Call it next to the free call itself.
   */
  void (*device_freed)(void* ctx, const void* pointer, int32_t allocator);
} DLCHost;

/** Device allocators, for DLCHost.device_allocated and device_freed (plugin ABI 3). */
#define DLC_DEVICE_ALLOC_CUDA_MALLOC 1         /**< cudaMalloc / cudaFree: device memory */
#define DLC_DEVICE_ALLOC_CUDA_MALLOC_HOST 2    /**< cudaMallocHost / cudaFreeHost: pinned host */
#define DLC_DEVICE_ALLOC_CUDA_MALLOC_MANAGED 3 /**< cudaMallocManaged / cudaFree: managed */
#define DLC_DEVICE_ALLOC_USM_DEVICE 4          /**< SYCL malloc_device / free: oneAPI USM */

/* ---------------------------------------------------------------------------------------------
 * Requests, hand-offs and observations
 * ------------------------------------------------------------------------------------------- */

/** Bits of DLCTensorSpec.options. */
#define DLC_SPEC_READ_ONLY 1u            /**< export read-only (FLAG-1) */
#define DLC_SPEC_NULL_STRIDES 2u         /**< emit strides == NULL (compact row-major, LAY-5) */
#define DLC_SPEC_NULL_DATA_IF_EMPTY 4u   /**< a zero-size tensor gets data == NULL (LAY-7) */
#define DLC_SPEC_NULL_SHAPE_IF_SCALAR 8u /**< ndim == 0 gets shape == strides == NULL (LAY-6) */
#define DLC_SPEC_SUBBYTE_PADDED 16u      /**< set IS_SUBBYTE_TYPE_PADDED (FLAG-3) */
#define DLC_SPEC_NULL_DELETER 32u        /**< leave deleter NULL (LIFE-4); the harness frees */
/** Point `data` at the start of the storage and reach the first element through byte_offset
 *  alone (as a window into a larger buffer is often exported), instead of pointing `data` at the
 *  lowest element. Logically the same tensor (LAY-4). Plugin ABI 2. */
#define DLC_SPEC_DATA_AT_STORAGE_START 64u
/** Leave manager_ctx NULL, which dlpack.h allows ("It can also be NULL"): the deleter finds what
 *  the tensor owns by the struct's address. A consumer must call the deleter all the same
 *  (LIFE-3). Plugin ABI 2. */
#define DLC_SPEC_NULL_MANAGER_CTX 128u
/** No party will read this tensor's memory on its device: the case has no consumer, or one that
 *  cannot read that device's memory (a host consumer handed a CUDA tensor refuses it). A device
 *  producer may then write the values at once instead of leaving the write pending to race the
 *  consumer's stream (STRM-1): the tensor is the same, only the case is faster. Plugin ABI 3. */
#define DLC_SPEC_NO_DEVICE_READ 256u

/** The fill rule: element k in logical row-major order holds dlc_fill_value_byte(dtype code,
 *  seed, k, j) in its byte j. See below; producers and the harness share it. */
typedef struct DLCTensorSpec {
  DLCDtype dtype;
  int32_t ndim;
  /** `ndim` extents. */
  int64_t shape[DLC_MAX_NDIM];
  /** `ndim` strides in elements, used when has_strides is non-zero; otherwise compact. */
  int64_t strides[DLC_MAX_NDIM];
  int32_t has_strides;
  /** Offset in bytes from `data` to the first element (LAY-4). */
  uint64_t byte_offset;
  /** Bytes to add to a 256-aligned storage start, to test alignment assumptions (LAY-9). */
  uint32_t misalign;
  DLCDevice device;
  /** DLC_SPEC_* bits. */
  uint32_t options;
  /** Extra bits the producer ORs into a versioned struct's flags (FLAG-4 tests). */
  uint64_t extra_flags;
  /** Seed of the fill rule. */
  uint32_t fill_seed;
  /** Plugin ABI 2: bytes of storage after the highest element, so that the tensor is a window
   *  into a larger buffer (with byte_offset, at both ends). Version 1 plugins never read it. */
  uint64_t pad_after;
} DLCTensorSpec;

/** The analogue of `__dlpack__(*, stream, max_version, dl_device, copy)`. */
typedef struct DLCRequest {
  /** Zero for a legacy caller (max_version=None); non-zero to ask for at most `max_version`. */
  int32_t has_max_version;
  DLCVersion max_version;
  /** -1 for copy=None, 0 for copy=False, 1 for copy=True (STRM-4). */
  int32_t copy;
  /** Non-zero to pass dl_device (STRM-3). */
  int32_t has_dl_device;
  DLCDevice dl_device;
  /** Non-zero to pass stream; the value follows the Python spec (STRM-1, STRM-2). */
  int32_t has_stream;
  int64_t stream;
  /** Non-zero for a raw, type-erased exchange: the producer hands over its native struct with no
   *  negotiation, as a bare void* would carry it. */
  int32_t raw;
  /** The tensor to make. */
  DLCTensorSpec tensor;
} DLCRequest;

/**
 * A type-erased tensor in flight, like a PyCapsule.
 * `name` is "dltensor" for a DLManagedTensor*, "dltensor_versioned" for a
 * DLManagedTensorVersioned*, or NULL for a raw exchange. A consumer that takes ownership sets it
 * to "used_dltensor" / "used_dltensor_versioned" before anything that can fail (LIFE-1); from
 * then on it owns the tensor and owes exactly one deleter call (LIFE-3).
 */
typedef struct DLCHandoff {
  const char* name;
  void* pointer;
} DLCHandoff;

/** Kinds of struct a consumer can report having read. */
#define DLC_STRUCT_UNKNOWN 0
#define DLC_STRUCT_LEGACY 1
#define DLC_STRUCT_VERSIONED 2

/** What a consumer saw. It fills every field it read; the harness compares against the spec. */
typedef struct DLCObservation {
  int32_t struct_kind; /**< DLC_STRUCT_* */
  DLCVersion version;  /**< as read from the struct; {0,0} for legacy */
  uint64_t flags;      /**< as read; 0 for legacy */
  DLCDevice device;
  DLCDtype dtype;
  int32_t ndim;
  int64_t shape[DLC_MAX_NDIM]; /**< first min(ndim, DLC_MAX_NDIM) extents */
  int32_t has_strides; /**< whether strides was non-NULL */
  int64_t strides[DLC_MAX_NDIM];
  uint64_t byte_offset;
  /** dlc_digest over every element, in logical row-major order (see dlc_digest_*). */
  uint64_t digest;
  /** Number of elements digested. */
  uint64_t elements_read;
  /** Non-zero if the consumer imported without reading elements (device memory, say). */
  int32_t data_not_read;
} DLCObservation;

/* ---------------------------------------------------------------------------------------------
 * Capability profiles (plugin ABI 2)
 * ------------------------------------------------------------------------------------------- */

/** Bits of DLCProfile.strides: which layouts beyond compact row-major a party supports. */
#define DLC_STRIDES_POSITIVE 1u    /**< any positive strides (transposed, sliced with a step) */
#define DLC_STRIDES_NEGATIVE 2u    /**< negative strides (reversed views) */
#define DLC_STRIDES_ZERO 4u        /**< zero strides (broadcast) */
#define DLC_STRIDES_OVERLAPPING 8u /**< positive strides whose elements overlap */

/** Bits of DLCProfile.features. */
#define DLC_FEATURE_READ_ONLY 1u    /**< producer: can export READ_ONLY; consumer: honours it */
#define DLC_FEATURE_ZERO_DIM 2u     /**< 0-d tensors */
#define DLC_FEATURE_ZERO_SIZE 4u    /**< tensors with an extent of 0 */
#define DLC_FEATURE_COPY 8u         /**< producer: honours copy=True (and sets IS_COPIED) */
#define DLC_FEATURE_MISALIGNED 16u  /**< data that is not 256-byte aligned (LAY-9) */
/** Any dtype at all: the dtypes list is ignored. */
#define DLC_FEATURE_EVERY_DTYPE 64u
/** Any device type at all: the device list is ignored. */
#define DLC_FEATURE_EVERY_DEVICE 128u
/** Consumer only: needs write access, so it refuses READ_ONLY tensors, rightly (FLAG-1), and is
 *  never handed one. nanobind's writable nb::ndarray<> is such a consumer. */
#define DLC_FEATURE_NEEDS_WRITE 256u
/** Producer only: honours every DLC_SPEC_* layout option and makes invalid tensors on request
 *  (unknown codes, overflowing shapes, NULL deleters, extra flag bits). The built-in mocks have
 *  it; a real exporter does not, and is never asked for such tensors. */
#define DLC_FEATURE_TEST_LAYOUTS 32u
/** Producer only: representations the request may wish for, which a real exporter chooses for
 *  itself (the logical tensor is the same either way). A producer that declines such a wish is
 *  "n/a" for that case, unless it declares the representation here; then declining is a finding.
 *  A producer that ignores the wish and exports its own representation is judged as usual. */
#define DLC_FEATURE_NULL_SHAPE 512u   /**< a 0-d tensor with shape == strides == NULL (LAY-6) */
#define DLC_FEATURE_NULL_DATA 1024u   /**< a zero-size tensor with data == NULL (LAY-7) */
#define DLC_FEATURE_NULL_STRIDES 2048u /**< compact data with strides == NULL, before 1.2 (LAY-5) */
/** the first element reached through byte_offset: the request's byte_offset, or `data` at the
 *  storage start of a window (DLC_SPEC_DATA_AT_STORAGE_START) (LAY-4) */
#define DLC_FEATURE_BYTE_OFFSET 4096u
/** Plugin ABI 3: the party allocates, or reads, real memory of the non-CPU devices it lists,
 *  through that device's runtime (CUDA, oneAPI). Only such producers are asked for the catalogue's
 *  device tensors, such consumers are never handed a mock's host stand-in for device memory, and
 *  every case with such a party runs in a process of its own (a device runtime does not survive a
 *  fork). */
#define DLC_FEATURE_REAL_DEVICE 8192u
/** Consumer only: takes the legacy DLManagedTensor alone, whatever its header's version knows of
 *  dtypes and devices: a Python from_dlpack that never asks __dlpack__ for a versioned struct
 *  (JAX 0.10 asks with stream alone). A versioned struct is outside its profile, so refusing one
 *  is no finding. */
#define DLC_FEATURE_LEGACY_STRUCT_ONLY 16384u

/**
 * What a party supports. A producer is only asked for tensors inside its profile (anything else
 * is "n/a" in the report); a consumer that refuses a valid tensor inside its profile is reported
 * as rejected-valid. A plugin without a profile gets the default one, documented in docs/matrix.md:
 * what the rules make every consumer of its header version accept (a float32 CPU tensor of up to
 * 8 dimensions: compact, strided with positive strides, 0-d, zero-size, offset, NULL strides
 * before DLPack 1.2, READ_ONLY).
 * A profile may also come from a file beside the plugin (PLUGIN.so.profile); see docs/matrix.md.
 */
typedef struct DLCProfile {
  /** sizeof(DLCProfile) as the plugin was built: later versions append fields. */
  uint32_t struct_size;
  /** The dtypes supported, lanes included; NULL with dtype_count 0 means float32 only. */
  const DLCDtype* dtypes;
  uint32_t dtype_count;
  /** The device types supported; NULL with device_count 0 means CPU (kDLCPU) only. */
  const int32_t* device_types;
  uint32_t device_count;
  /** DLC_STRIDES_* bits. */
  uint32_t strides;
  /** DLC_FEATURE_* bits. */
  uint32_t features;
  /** The most dimensions supported; 0 means 8. */
  int32_t max_ndim;
  /** Producer only: the version a versioned struct carries when it is not the header's own (a
   *  producer built for a newer minor or major); {0, 0} means dlpack_version. */
  DLCVersion emits_version;
} DLCProfile;

/* ---------------------------------------------------------------------------------------------
 * The plugin table
 * ------------------------------------------------------------------------------------------- */

/** The stable head of every table, frozen across plugin-ABI versions. */
typedef struct DLCPluginHeader {
  /** DLCONFORM_PLUGIN_ABI_VERSION the table was built for. */
  uint32_t abi_version;
  /** sizeof the full table, so that later versions can append slots. */
  uint32_t table_size;
  /** An older table the same plugin also provides, or NULL (like DLPackExchangeAPIHeader). */
  const struct DLCPluginHeader* prev;
} DLCPluginHeader;

/**
 * Create the plugin's state. May be NULL (no state). `host` stays valid until `destroy`.
 * On success sets *state (which may be NULL) and returns DLC_OK.
 */
typedef int (*DLCCreateFn)(const DLCHost* host, void** state, char* err, size_t err_len);

/** Destroy the state from `create`. May be NULL. */
typedef void (*DLCDestroyFn)(void* state);

/**
 * Producer: make a tensor as `request` asks and hand it over in *out. NULL for a consumer-only
 * plugin.
 * On DLC_OK, out->pointer is an owning pointer: whoever receives it owes one deleter call.
 * On failure nothing is handed over and *out is untouched. A producer that cannot export as asked
 * returns DLC_ERR_BUFFER; one that does not understand a keyword (max_version on a legacy
 * producer) returns DLC_ERR_TYPE.
 */
typedef int (*DLCProduceFn)(void* state, const DLCRequest* request, DLCHandoff* out, char* err,
                            size_t err_len);

/**
 * Consumer: import `handoff`, read it, and describe what was read in *obs. NULL for a
 * producer-only plugin.
 * Ownership passes to the consumer when this is called, whatever it returns: it renames the
 * handoff (LIFE-1) and calls the deleter exactly once, here or in `release`, also on rejection
 * (LIFE-3). `requested` is the request the harness made on the consumer's behalf (its
 * max_version), so that the consumer can check what it got back (VER-4); its `tensor` says
 * what was asked for (at least dtype and ndim; the fuzz targets fill no more), never what to
 * trust: the handoff is what is under test.
 * Returns DLC_OK if imported, DLC_ERR_BUFFER if refused (with the reason in `err`).
 */
typedef int (*DLCConsumeFn)(void* state, DLCHandoff* handoff, const DLCRequest* requested,
                            DLCObservation* obs, char* err, size_t err_len);

/**
 * Consumer: drop everything imported by the last `consume`, calling the deleter if it has not
 * been called yet. Called once after every `consume`, whatever it returned. May be NULL only if
 * `consume` always deletes before returning.
 */
typedef void (*DLCReleaseFn)(void* state);

/**
 * Plugin ABI 3. Whether the plugin can run here: DLC_OK, or DLC_ERR_UNAVAILABLE with the reason
 * in `err` ("no CUDA device: cudaGetDeviceCount: cudaErrorNoDevice: no CUDA-capable device is
 * detected"). The harness calls it once, after create(), in a child process of its own (a
 * runtime it starts dies with that child); when it says unavailable, every case of the plugin is
 * skipped with that reason and nothing else is called. May be NULL: always available.
 */
typedef int (*DLCAvailableFn)(void* state, char* err, size_t err_len);

/**
 * Plugin ABI 3, consumer only. The keywords this consumer passes to __dlpack__ for a tensor on
 * `device` (what the producer's __dlpack_device__ says): it sets request->has_stream and
 * request->stream (STRM-1, STRM-2: the stream it will read on), and may set has_dl_device,
 * dl_device and copy (STRM-3, STRM-4). Everything else in *request is the harness's and must be
 * left as it is. Called in the process that then calls consume(); a stream it names stays its
 * own. Returns DLC_OK, or DLC_ERR_INTERNAL with a message (the case reports it). May be NULL: the
 * consumer passes no stream and no device.
 */
typedef int (*DLCAskFn)(void* state, DLCDevice device, DLCRequest* request, char* err,
                        size_t err_len);

/** The table a plugin's entry point returns. Static storage; never freed. */
typedef struct DLCPlugin {
  DLCPluginHeader header;
  /** Short unique name, for example "legacy-producer". Non-NULL. */
  const char* name;
  /** One sentence for reports. May be NULL. */
  const char* description;
  /** DLC_ROLE_* bits. Non-zero. */
  uint32_t roles;
  /** The DLPack header version this plugin was compiled against (from that header's macros). */
  DLCVersion dlpack_version;
  /** Consumer only: the highest version it asks for, or has_max_version == 0 for a legacy
   *  consumer that never passes max_version. */
  int32_t has_max_version;
  DLCVersion max_version;
  /** Producer only: the layout family it emits raw, a free-form tag ("legacy", "versioned",
   *  "variant-a1", ...), shown in reports. May be NULL. */
  const char* layout;
  DLCCreateFn create;
  DLCDestroyFn destroy;
  DLCProduceFn produce;
  DLCConsumeFn consume;
  DLCReleaseFn release;
  /** Plugin ABI 2: what the plugin supports, or NULL for the default profile (see DLCProfile).
   *  Static storage. Absent from version 1 tables, which get the default profile. */
  const DLCProfile* profile;
  /** Plugin ABI 3: see DLCAvailableFn. Absent from older tables. */
  DLCAvailableFn available;
  /** Plugin ABI 3: see DLCAskFn. Absent from older tables. */
  DLCAskFn ask;
} DLCPlugin;

/**
 * The entry point. Returns the plugin's table (static storage), or NULL if the plugin cannot run
 * in this process. Exported with default visibility under the name DLCONFORM_PLUGIN_ENTRY_NAME.
 */
typedef const DLCPlugin* (*DLCPluginEntryFn)(void);

/* ---------------------------------------------------------------------------------------------
 * The fill rule and the element digest, shared by producers, consumers and the harness
 * ------------------------------------------------------------------------------------------- */

/** Byte j of element k under fill seed `seed`: a cheap mix, never constant along k or j. */
static inline uint8_t dlc_fill_byte(uint32_t seed, uint64_t k, uint32_t j) {
  uint64_t x = (k + 1) * 0x9E3779B97F4A7C15ull ^ ((uint64_t)seed << 32) ^
               (uint64_t)j * 0xBF58476D1CE4E5B9ull;
  x ^= x >> 31;
  x *= 0x94D049BB133111EBull;
  x ^= x >> 29;
  return (uint8_t)x;
}

/** The fill rule of a dtype: dlc_fill_byte, except that a bool (type code 6, kDLBool) holds 0 or
 *  1, the only values a bool may have (a framework that copies a bool canonicalises any other
 *  byte). Plugin ABI 2. */
static inline uint8_t dlc_fill_value_byte(uint8_t code, uint32_t seed, uint64_t k, uint32_t j) {
  return code == 6 ? (uint8_t)(dlc_fill_byte(seed, k, j) & 1u) : dlc_fill_byte(seed, k, j);
}

/**
 * FNV-1a 64 over element bytes in logical row-major order. Start with dlc_digest_init().
 * An element is (bits * lanes + 7) / 8 bytes, read at
 * data + byte_offset + (sum of index[i] * strides[i]) * that size.
 * Packed sub-byte types (bits * lanes < 8 without IS_SUBBYTE_TYPE_PADDED) are compact by
 * construction; for them the unit is the storage byte instead of the element, and byte k of the
 * storage holds dlc_fill_byte(seed, k, 0).
 */
static inline uint64_t dlc_digest_init(void) { return 0xCBF29CE484222325ull; }

static inline uint64_t dlc_digest_update(uint64_t digest, const void* bytes, size_t n) {
  const uint8_t* p = (const uint8_t*)bytes;
  for (size_t i = 0; i < n; ++i) {
    digest ^= p[i];
    digest *= 0x100000001B3ull;
  }
  return digest;
}

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* DLCONFORM_PLUGIN_H_ */
