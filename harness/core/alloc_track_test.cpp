#include "alloc_track.h"

#include <dlfcn.h>
#include <link.h>

#include <cstdint>
#include <cstring>
#include <string>

#include "catch.hpp"
#include "phase.h"

namespace {

// An address `offset` bytes into the code of the loaded library whose path holds `name` (found by
// its program headers: a sanitizer intercepts the exported functions of the loader and libc).
const void* code_of(const char* name, uintptr_t offset) {
  struct Query {
    const char* name;
    uintptr_t offset;
    const void* site;
  } q{name, offset, nullptr};
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* out) {
        auto* q = static_cast<Query*>(out);
        if (info->dlpi_name == nullptr || std::strstr(info->dlpi_name, q->name) == nullptr) {
          return 0;
        }
        for (int i = 0; i < info->dlpi_phnum; ++i) {
          const ElfW(Phdr)& h = info->dlpi_phdr[i];
          if (h.p_type == PT_LOAD && (h.p_flags & PF_X) != 0 && q->offset < h.p_memsz) {
            q->site = reinterpret_cast<const void*>(info->dlpi_addr + h.p_vaddr + q->offset);
            return 1;
          }
        }
        return 0;
      },
      &q);
  return q.site;
}

// The dynamic loader: the library that opens a device runtime's driver.
const void* loader_site() { return code_of("ld-linux", 16); }

void own_code() {}
void other_code() {}

}  // namespace

TEST_CASE("alloc_track: what a producer leaves is its leak, named by the site", "[unit]") {
  int block = 0;
  dlc::alloc_track::begin_case();
  {
    dlc::ScopedPhase phase("produce()", "p", dlc::Party::producer);
    dlc::alloc_track::on_alloc(&block, 24, reinterpret_cast<const void*>(&own_code));
  }
  dlc::alloc_track::Summary s;
  dlc::alloc_track::end_case(&s);
  CHECK(s.producer_leaked_blocks == 1);
  CHECK(s.producer_leaked_bytes == 24);
  CHECK(std::string(s.leak_site).find("alloc_track_test") != std::string::npos);
}

TEST_CASE("alloc_track: a device runtime's own memory is not the producer's leak (LIFE-5)",
          "[unit]") {
  const void* site = loader_site();
  if (site == nullptr) DLC_SKIP("no dynamic loader (ld-linux) in this process");
  int runtime_block = 0, producer_block = 0;
  dlc::alloc_track::begin_case();
  {
    dlc::ScopedPhase phase("produce()", "p", dlc::Party::producer);
    dlc::alloc_track::on_alloc(&runtime_block, 4096, site);
    dlc::alloc_track::on_alloc(&producer_block, 16, reinterpret_cast<const void*>(&own_code));
  }
  dlc::alloc_track::Summary s;
  dlc::alloc_track::end_case(&s);
  CHECK(s.producer_leaked_blocks == 1);
  CHECK(s.producer_leaked_bytes == 16);
}

TEST_CASE("alloc_track: the runtime freeing its own block in the consumer's call is no foreign "
          "free (LIFE-5)", "[unit]") {
  const void* site = loader_site();
  if (site == nullptr) DLC_SKIP("no dynamic loader (ld-linux) in this process");
  int runtime_block = 0, producer_block = 0;
  dlc::alloc_track::begin_case();
  {
    dlc::ScopedPhase phase("produce()", "p", dlc::Party::producer);
    dlc::alloc_track::on_alloc(&runtime_block, 104, site);
    dlc::alloc_track::on_alloc(&producer_block, 16, reinterpret_cast<const void*>(&own_code));
  }
  {
    dlc::ScopedPhase phase("consume()", "c", dlc::Party::consumer);
    CHECK(dlc::alloc_track::on_free(&runtime_block, site, true));
    // The producer's own block stays the consumer's foreign free: refused, and counted.
    CHECK_FALSE(dlc::alloc_track::on_free(&producer_block, nullptr, true));
  }
  dlc::alloc_track::Summary s;
  dlc::alloc_track::end_case(&s);
  CHECK(s.consumer_foreign_frees == 1);
  CHECK(s.consumer_foreign_bytes == 16);
}

TEST_CASE("alloc_track: the runtime's libraries and compute-sanitizer's are left out of LIFE-5",
          "[unit]") {
  for (const char* name : {"libcudart.so.13", "libcuda.so.1", "libnvidia-ptxjitcompiler.so.1",
                           "ld-linux-x86-64.so.2", "libsanitizer-collection.so",
                           "libsanitizer-public.so"}) {
    INFO(name);
    CHECK(dlc::alloc_track::is_runtime_library(name));
  }
  for (const char* name : {"dlc-cuda-producer-v1_3.so", "libc.so.6", "libasan.so.8",
                           "libmy_sanitizer.so"}) {
    INFO(name);
    CHECK_FALSE(dlc::alloc_track::is_runtime_library(name));
  }
}

TEST_CASE("alloc_track: a block libc allocates (strdup) is its caller's", "[unit]") {
  const void* libc_a = code_of("libc.so", 16);
  const void* libc_b = code_of("libc.so", 64);
  if (libc_a == nullptr || libc_b == nullptr) DLC_SKIP("no libc.so in this process");
  CHECK(dlc::alloc_track::in_libc(libc_a));
  const void* own = reinterpret_cast<const void*>(&own_code);
  const void* other = reinterpret_cast<const void*>(&other_code);
  CHECK_FALSE(dlc::alloc_track::in_libc(own));
  // The hook's frame, strdup's and malloc's in libc, then whoever called strdup.
  const void* stack[] = {own, libc_a, libc_b, other, own};
  CHECK(dlc::alloc_track::caller_outside_libc(stack, 5, libc_a) == other);
  // An unwind that stops inside libc, or never reaches it, keeps the site it was given.
  CHECK(dlc::alloc_track::caller_outside_libc(stack, 3, libc_a) == libc_a);
  const void* no_libc[] = {own, other};
  CHECK(dlc::alloc_track::caller_outside_libc(no_libc, 2, libc_a) == libc_a);
  CHECK(dlc::alloc_track::caller_outside_libc(stack, 0, libc_a) == libc_a);
}

TEST_CASE("alloc_track: the loaded object an address lies in, as dladdr finds it", "[unit]") {
  static const char kStaticName[] = "dltensor";
  const void* loader = loader_site();
  REQUIRE(loader != nullptr);
  const char* loader_path = dlc::alloc_track::loaded_object_of(loader);
  REQUIRE(loader_path != nullptr);
  CHECK(std::strstr(loader_path, "ld-linux") != nullptr);
  // This executable's own data and code: "" (the main program has no path in the loader's list).
  CHECK(dlc::alloc_track::loaded_object_of(kStaticName) != nullptr);
  CHECK(dlc::alloc_track::loaded_object_of(reinterpret_cast<const void*>(&own_code)) != nullptr);
  // Heap and stack memory lie in no object, as dladdr says too.
  const std::string heap(64, 'x');
  int on_stack = 0;
  CHECK(dlc::alloc_track::loaded_object_of(heap.data()) == nullptr);
  CHECK(dlc::alloc_track::loaded_object_of(&on_stack) == nullptr);
  CHECK(dlc::alloc_track::loaded_object_of(nullptr) == nullptr);
  Dl_info info{};
  CHECK(dladdr(heap.data(), &info) == 0);
  CHECK(dladdr(kStaticName, &info) != 0);
}
