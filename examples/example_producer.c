/* A complete dlconform producer adapter in C, written as a real exporter is: it mallocs the
 * struct, shape, strides, data and its manager_ctx, frees all of them in its deleter, and knows
 * nothing of dlconform's host services. It negotiates as DLPack 1.3 asks (VER-4: a legacy
 * capsule for a caller without max_version or of major 0, a versioned one otherwise), declares
 * its capability profile, and fills the data with the request's values.
 * Build:  cc -shared -fPIC -o my_producer.so example_producer.c $(pkg-config --cflags dlconform)
 *         (with a DLPack 1.x dlpack.h on the include path)
 * Run:    dlconform matrix --plugin ./my_producer.so
 *
 * With DLC_DECLINE_WISHES it stands for a framework's exporter that chooses its own
 * representation: it refuses a request that wishes for NULL shape, NULL data, NULL strides or an
 * offset in byte_offset, exports immutable data to a legacy caller as a plain dltensor, and
 * declares its profile in a file beside it (declining-producer.so.profile). Still correct.
 *
 * dlconform also builds it with DLC_PLANTED set, as the planted producers that prove each check
 * of an external producer: wrong values, a wrong shape, READ_ONLY dropped, a wrong version, a
 * NULL capsule name, wrapping address arithmetic, a leaking deleter, a deleter that leaves the
 * struct behind. */
#include <dlpack/dlpack.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dlconform/plugin.h"

#define PLANTED_NONE 0
#define PLANTED_wrong_values 1
#define PLANTED_wrong_shape 2
#define PLANTED_drops_read_only 3
#define PLANTED_wrong_version 4
#define PLANTED_null_handoff 5
#define PLANTED_wrapping 6
#define PLANTED_leaky 7
#define PLANTED_leaves_struct 8
#define PLANTED_wrong_dtype 9
#define PLANTED_wrong_device 10
#define PLANTED_wrong_ndim 11
#define CAT2(a, b) a##b
#define CAT(a, b) CAT2(a, b)
#ifdef DLC_PLANTED
#define BUG CAT(PLANTED_, DLC_PLANTED)
#else
#define BUG PLANTED_NONE
#endif
#ifndef DLC_PLUGIN_NAME
#define DLC_PLUGIN_NAME "example-producer"
#endif

/* Everything one exported tensor owns; the deleter frees it all (LIFE-5). */
typedef struct Owned {
  void* data;
  int64_t* shape;
  int64_t* strides;
  void* managed;
} Owned;

static void release_owned(Owned* o) {
  if (o == NULL) return;
  free(o->data);
  free(o->shape);
  free(o->strides);
#if BUG != PLANTED_leaves_struct
  free(o->managed);
#endif
#if BUG != PLANTED_leaky
  free(o);
#endif
}

static void legacy_deleter(DLManagedTensor* self) { release_owned((Owned*)self->manager_ctx); }
static void versioned_deleter(DLManagedTensorVersioned* self) {
  release_owned((Owned*)self->manager_ctx);
}

static void set_error(char* err, size_t err_len, const char* text) {
  if (err != NULL && err_len > 0) {
    strncpy(err, text, err_len - 1);
    err[err_len - 1] = '\0';
  }
}

/* Lays out `spec` into `t`: strides always given (DLPack 1.2+), data spanning exactly the
 * elements the strides reach, filled with the request's values in logical order. */
static int build(const DLCTensorSpec* spec, DLTensor* t, Owned* o, char* err, size_t err_len) {
  const int ndim = spec->ndim;
  const uint64_t bits = (uint64_t)spec->dtype.bits * spec->dtype.lanes;
  if (ndim < 0 || ndim > DLC_MAX_NDIM || bits == 0 || bits % 8 != 0) {
    set_error(err, err_len, "expected a whole-byte dtype and 0 <= ndim <= 32 but found neither");
    return DLC_ERR_BUFFER;
  }
  const int64_t size = (int64_t)(bits / 8);
  o->shape = (int64_t*)malloc(sizeof(int64_t) * (size_t)(ndim > 0 ? ndim : 1));
  o->strides = (int64_t*)malloc(sizeof(int64_t) * (size_t)(ndim > 0 ? ndim : 1));
  if (o->shape == NULL || o->strides == NULL) return DLC_ERR_INTERNAL;
  int64_t numel = 1, compact = 1, low = 0, high = 0;
  for (int i = ndim - 1; i >= 0; --i) {
    const int64_t extent = spec->shape[i];
    const int64_t stride = spec->has_strides ? spec->strides[i] : compact;
    if (extent < 0 || (extent > 0 && numel > INT64_MAX / extent) || stride > (1 << 24) ||
        stride < -(1 << 24)) {
      set_error(err, err_len, "expected a shape whose size fits in memory but found more");
      return DLC_ERR_BUFFER;
    }
    o->shape[i] = extent;
    o->strides[i] = stride;
    numel *= extent;
    compact *= extent == 0 ? 1 : extent;
    if (extent > 0) *(stride < 0 ? &low : &high) += (extent - 1) * stride;
  }
  const int64_t span = numel == 0 ? 0 : (high - low + 1) * size;
  o->data = malloc((size_t)(span > 0 ? span : 1));
  if (o->data == NULL) return DLC_ERR_INTERNAL;
  unsigned char* first = (unsigned char*)o->data - low * size;
  /* Element k in logical row-major order holds the fill rule's bytes. */
  int64_t index[DLC_MAX_NDIM] = {0};
  for (int64_t k = 0; k < numel; ++k) {
    int64_t offset = 0;
    for (int d = 0; d < ndim; ++d) offset += index[d] * o->strides[d];
#if BUG == PLANTED_wrong_values
    offset = k; /* memory order instead of logical order */
    if (offset * size >= span) offset = 0;
#endif
    for (int64_t j = 0; j < size; ++j) {
      first[offset * size + j] =
          dlc_fill_value_byte(spec->dtype.code, spec->fill_seed, (uint64_t)k, (uint32_t)j);
    }
    for (int d = ndim - 1; d >= 0 && ++index[d] == o->shape[d]; --d) index[d] = 0;
  }
  t->data = first;
  t->device.device_type = kDLCPU;
  t->device.device_id = 0;
  t->ndim = ndim;
  t->dtype.code = spec->dtype.code;
  t->dtype.bits = spec->dtype.bits;
  t->dtype.lanes = spec->dtype.lanes;
  t->shape = o->shape;
  t->strides = o->strides;
  t->byte_offset = 0;
#if BUG == PLANTED_wrong_shape
  for (int i = 0; i < ndim / 2; ++i) {
    const int64_t e = o->shape[i];
    o->shape[i] = o->shape[ndim - 1 - i];
    o->shape[ndim - 1 - i] = e;
  }
#endif
#if BUG == PLANTED_wrong_dtype
  t->dtype.code = spec->dtype.code == kDLInt ? kDLUInt : kDLInt; /* not the type it filled */
#endif
#if BUG == PLANTED_wrong_device
  t->device.device_type = kDLCUDAHost; /* host memory, but not the device asked for */
#endif
#if BUG == PLANTED_wrong_ndim
  if (ndim > 0) t->ndim = ndim - 1; /* drops the last axis */
#endif
#if BUG == PLANTED_wrapping
  /* data + byte_offset reaches the first element only by wrapping around the address space. */
  t->byte_offset = (uint64_t)(uintptr_t)first + 4096;
  t->data = (void*)(uintptr_t)(UINT64_C(0) - 4096);
#endif
  return DLC_OK;
}

static int produce(void* state, const DLCRequest* request, DLCHandoff* out, char* err,
                   size_t err_len) {
  (void)state;
  const DLCTensorSpec* spec = &request->tensor;
  if (spec->device.device_type != kDLCPU || spec->device.device_id != 0) {
    set_error(err, err_len, "expected a CPU tensor (this exporter has no other device)");
    return DLC_ERR_BUFFER;
  }
  const int legacy_caller = !request->has_max_version || request->max_version.major < 1;
#ifdef DLC_DECLINE_WISHES
  int zero_size = 0;
  for (int i = 0; i < spec->ndim && i < DLC_MAX_NDIM; ++i) zero_size |= spec->shape[i] == 0;
  if ((spec->ndim == 0 && (spec->options & DLC_SPEC_NULL_SHAPE_IF_SCALAR)) ||
      (zero_size && (spec->options & DLC_SPEC_NULL_DATA_IF_EMPTY)) ||
      (spec->ndim != 0 && (spec->options & DLC_SPEC_NULL_STRIDES)) ||
      (spec->options & DLC_SPEC_DATA_AT_STORAGE_START) || spec->byte_offset != 0) {
    set_error(err, err_len, "this exporter chooses its own shape, strides, data and byte_offset");
    return DLC_ERR_BUFFER;
  }
#else
  if (legacy_caller && (spec->options & DLC_SPEC_READ_ONLY)) {
    /* A legacy capsule cannot say READ_ONLY (FLAG-1): refuse rather than lend writable memory. */
    set_error(err, err_len, "cannot export read-only data as a legacy capsule");
    return DLC_ERR_BUFFER;
  }
#endif
  Owned* o = (Owned*)calloc(1, sizeof(Owned));
  if (o == NULL) return DLC_ERR_INTERNAL;
  DLTensor t;
  memset(&t, 0, sizeof t);
  const int rc = build(spec, &t, o, err, err_len);
  if (rc != DLC_OK) {
    o->managed = NULL;
    free(o->data);
    free(o->shape);
    free(o->strides);
    free(o);
    return rc;
  }
  if (legacy_caller) {
    DLManagedTensor* m = (DLManagedTensor*)calloc(1, sizeof(DLManagedTensor));
    if (m == NULL) return DLC_ERR_INTERNAL;
    m->dl_tensor = t;
    m->manager_ctx = o;
    m->deleter = legacy_deleter;
    o->managed = m;
    out->name = "dltensor";
    out->pointer = m;
  } else {
    DLManagedTensorVersioned* m = (DLManagedTensorVersioned*)calloc(1, sizeof(DLManagedTensorVersioned));
    if (m == NULL) return DLC_ERR_INTERNAL;
    m->version.major = DLPACK_MAJOR_VERSION;
    m->version.minor = DLPACK_MINOR_VERSION;
#if BUG == PLANTED_wrong_version
    m->version.minor = 0;
#endif
    m->dl_tensor = t;
    m->manager_ctx = o;
    m->deleter = versioned_deleter;
    if (spec->options & DLC_SPEC_READ_ONLY) m->flags |= DLPACK_FLAG_BITMASK_READ_ONLY;
#if BUG == PLANTED_drops_read_only
    m->flags &= ~(uint64_t)DLPACK_FLAG_BITMASK_READ_ONLY;
#endif
    if (request->copy == 1) m->flags |= DLPACK_FLAG_BITMASK_IS_COPIED; /* it always copies */
    o->managed = m;
    out->name = "dltensor_versioned";
    out->pointer = m;
  }
#if BUG == PLANTED_null_handoff
  out->name = NULL;
#endif
  if (request->raw) out->name = NULL;
  return DLC_OK;
}

#ifndef DLC_DECLINE_WISHES
/* What this exporter can make (plugin ABI 2): every whole-byte standard dtype, CPU memory, any
 * strides, read-only, 0-d, zero-size, copy=True. */
static const DLCDtype dtypes[] = {{0, 8, 1},  {0, 16, 1}, {0, 32, 1}, {0, 64, 1},  {1, 8, 1},
                                  {1, 16, 1}, {1, 32, 1}, {1, 64, 1}, {2, 16, 1},  {2, 32, 1},
                                  {2, 64, 1}, {4, 16, 1}, {5, 64, 1}, {5, 128, 1}, {6, 8, 1},
                                  {2, 32, 4}};
static const DLCProfile profile = {sizeof(DLCProfile),
                                   dtypes,
                                   sizeof dtypes / sizeof dtypes[0],
                                   NULL,
                                   0,
                                   DLC_STRIDES_POSITIVE | DLC_STRIDES_NEGATIVE | DLC_STRIDES_ZERO |
                                       DLC_STRIDES_OVERLAPPING,
                                   DLC_FEATURE_READ_ONLY | DLC_FEATURE_ZERO_DIM |
                                       DLC_FEATURE_ZERO_SIZE | DLC_FEATURE_COPY,
                                   DLC_MAX_NDIM,
                                   {0, 0}};
#endif

static const DLCPlugin plugin = {{DLCONFORM_PLUGIN_ABI_VERSION, sizeof(DLCPlugin), NULL},
                                 DLC_PLUGIN_NAME,
                                 "An exporter that mallocs and frees in its deleter",
                                 DLC_ROLE_PRODUCER,
                                 {DLPACK_MAJOR_VERSION, DLPACK_MINOR_VERSION},
                                 0,
                                 {0, 0},
                                 "versioned",
                                 NULL,
                                 NULL,
                                 produce,
                                 NULL,
                                 NULL,
#ifdef DLC_DECLINE_WISHES
                                 NULL, /* the profile is in the file beside the plugin */
#else
                                 &profile,
#endif
                                 NULL,  /* available: always (plugin ABI 3) */
                                 NULL}; /* ask: consumers only */

__attribute__((visibility("default"))) const DLCPlugin* dlconform_plugin_entry(void) {
  return &plugin;
}
