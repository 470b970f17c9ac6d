#include "alloc_track.h"

#include <dlfcn.h>
#include <link.h>

#include <cstring>
#include <string>

#include "catch.hpp"
#include "phase.h"

namespace {

// An address inside the dynamic loader's code, the library that opens a device runtime's driver
// (found by its program headers: a sanitizer intercepts the loader's exported functions).
const void* loader_site() {
  const void* site = nullptr;
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* out) {
        if (info->dlpi_name == nullptr || std::strstr(info->dlpi_name, "ld-linux") == nullptr) {
          return 0;
        }
        for (int i = 0; i < info->dlpi_phnum; ++i) {
          const ElfW(Phdr)& h = info->dlpi_phdr[i];
          if (h.p_type == PT_LOAD && (h.p_flags & PF_X) != 0) {
            *static_cast<const void**>(out) =
                reinterpret_cast<const void*>(info->dlpi_addr + h.p_vaddr + 16);
            return 1;
          }
        }
        return 0;
      },
      &site);
  return site;
}

void own_code() {}

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
