// malloc interposition for a build without sanitizers: the executable that links this object
// defines the allocator's entry points, so every library it loads (a plugin built without
// sanitizers, a framework's shipped library) allocates through them. Each forwards to glibc's
// own allocator and tells alloc_track. Linked into the dlconform command only.
#include <malloc.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "alloc_track.h"

#include "sanitizer_build.h"

#if !DLC_HAS_ASAN

extern "C" {
void* __libc_malloc(size_t size);
void* __libc_calloc(size_t n, size_t size);
void* __libc_realloc(void* p, size_t size);
void __libc_free(void* p);
void* __libc_memalign(size_t align, size_t size);

#define DLC_SITE __builtin_return_address(0)

__attribute__((visibility("default"))) void* malloc(size_t size) {
  void* p = __libc_malloc(size);
  dlc::alloc_track::on_alloc(p, size, DLC_SITE);
  return p;
}

__attribute__((visibility("default"))) void* calloc(size_t n, size_t size) {
  void* p = __libc_calloc(n, size);
  dlc::alloc_track::on_alloc(p, n * size, DLC_SITE);
  return p;
}

__attribute__((visibility("default"))) void free(void* p) {
  if (dlc::alloc_track::on_free(p, DLC_SITE, true)) __libc_free(p);
}

__attribute__((visibility("default"))) void* realloc(void* p, size_t size) {
  if (p == nullptr) return malloc(size);
  if (!dlc::alloc_track::on_free(p, DLC_SITE, true)) {
    // A foreign block: leave it to its owner and give the caller a copy.
    void* q = __libc_malloc(size);
    if (q != nullptr) std::memcpy(q, p, std::min(size, malloc_usable_size(p)));
    dlc::alloc_track::on_alloc(q, size, DLC_SITE);
    return q;
  }
  void* q = __libc_realloc(p, size);
  dlc::alloc_track::on_alloc(q, size, DLC_SITE);
  return q;
}

__attribute__((visibility("default"))) void* memalign(size_t align, size_t size) {
  void* p = __libc_memalign(align, size);
  dlc::alloc_track::on_alloc(p, size, DLC_SITE);
  return p;
}

__attribute__((visibility("default"))) void* aligned_alloc(size_t align, size_t size) {
  void* p = __libc_memalign(align, size);
  dlc::alloc_track::on_alloc(p, size, DLC_SITE);
  return p;
}

__attribute__((visibility("default"))) int posix_memalign(void** out, size_t align, size_t size) {
  if (align % sizeof(void*) != 0 || (align & (align - 1)) != 0) return EINVAL;
  void* p = __libc_memalign(align, size);
  if (p == nullptr) return ENOMEM;
  dlc::alloc_track::on_alloc(p, size, DLC_SITE);
  *out = p;
  return 0;
}
}

#endif
