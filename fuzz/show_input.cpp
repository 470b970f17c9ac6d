// fuzz-show-input: a fuzz target's input file as the tensor the target hands an importer, every
// field of it, and a C11 snippet that builds the same tensor for an importer's own test suite.
// It decodes with the targets' own decoder and lays out data as build_tensor does (both from
// tensor_input.cpp), so what it prints cannot disagree with what the fuzzer ran.
//
//   fuzz-show-input [--fields | --c] [--name PREFIX] TARGET FILE
#include <cctype>
#include <cinttypes>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "abi.h"
#include "tensor_input.hpp"

namespace {

using dlc_fuzz::StoragePlan;
using dlc_fuzz::TensorInput;

// The struct a DLPack 1.x importer is handed (a 0.x one counts as 1, as import_one does).
constexpr uint32_t kImporterMajor = 1;

int fail(const std::string& line) {
  std::fprintf(stderr, "fuzz-show-input: %s\n", line.c_str());
  return 1;
}

std::string i64(int64_t v) {
  // INT64_MIN has no literal in C: its magnitude does not fit int64_t.
  if (v == INT64_MIN) return "(-INT64_MAX - 1)";
  return "INT64_C(" + std::to_string(v) + ")";
}

std::string hex(uint64_t v) {
  char text[32];
  std::snprintf(text, sizeof text, "0x%" PRIx64, v);
  return text;
}

std::string flag_names(uint64_t flags) {
  std::string s;
  const struct {
    uint64_t bit;
    const char* name;
  } known[] = {{dlc::abi::kFlagReadOnly, "READ_ONLY"},
               {dlc::abi::kFlagIsCopied, "IS_COPIED"},
               {dlc::abi::kFlagSubbytePadded, "IS_SUBBYTE_TYPE_PADDED"}};
  for (const auto& k : known) {
    if (flags & k.bit) s += (s.empty() ? "" : " | ") + std::string(k.name);
  }
  if (flags & ~dlc::abi::kKnownFlags) {
    s += (s.empty() ? "" : " | ") + std::string("unknown ") + hex(flags & ~dlc::abi::kKnownFlags);
  }
  return s.empty() ? "none" : s;
}

struct Shown {
  TensorInput in;
  bool versioned = true;
  bool foreign = false;  // a versioned struct of another major: only its head is laid out
  StoragePlan plan;
  int64_t dims = 0;  // max(ndim, 0)
};

std::string data_words(const Shown& s) {
  const StoragePlan& p = s.plan;
  switch (p.kind) {
    case StoragePlan::kSkipped:
      return std::string("none: the fuzz targets skip this input (") + p.why_skipped +
             "), no importer is handed it";
    case StoragePlan::kBacked:
      return std::to_string(p.bytes) + " bytes of host memory holding dlc_fill_byte(" +
             hex(dlc_fuzz::kFillSeed) + ", k, 0) at byte k; data = storage + " +
             std::to_string(p.data_offset) + " (misalign " + std::to_string(s.in.misalign) +
             ", lowest element " + std::to_string(p.data_offset - s.in.misalign) +
             " bytes below data)";
    case StoragePlan::kNull:
      return "NULL";
    case StoragePlan::kDevice:
      return "a device pointer: any host access faults (DEV-3)";
    case StoragePlan::kEmpty:
      return "a 0-byte host block: the tensor is invalid and nothing may be read";
  }
  return "";
}

void print_fields(const Shown& s, const std::string& target, const std::string& file,
                  size_t size) {
  const TensorInput& in = s.in;
  std::printf("file:        %s (%zu bytes, %s)\n", file.c_str(), size, target.c_str());
  std::printf("input:       %s\n", dlc_fuzz::describe(in, s.versioned).c_str());
  if (!s.versioned) {
    std::printf("struct:      DLManagedTensor in a \"dltensor\" capsule (legacy: no version, no "
                "flags)\n");
  } else if (s.foreign) {
    std::printf("struct:      DLManagedTensorVersioned in a \"dltensor_versioned\" capsule, of "
                "major %u: a DLPack %u.x importer is handed only version, manager_ctx and "
                "deleter (VER-2)\n",
                in.version.major, kImporterMajor);
  } else {
    std::printf("struct:      DLManagedTensorVersioned in a \"dltensor_versioned\" capsule\n");
  }
  if (s.versioned) {
    std::printf("version:     %u.%u\n", in.version.major, in.version.minor);
    std::printf("flags:       %s (%s)\n", hex(in.flags).c_str(), flag_names(in.flags).c_str());
  }
  std::printf("deleter:     %s\n", (in.layout & dlc_fuzz::kDeleterNull) ? "NULL" : "set");
  std::printf("device:      device_type=%d device_id=%d\n", in.device.device_type,
              in.device.device_id);
  std::printf("dtype:       code=%u bits=%u lanes=%u\n", in.dtype.code, in.dtype.bits,
              in.dtype.lanes);
  std::printf("ndim:        %d\n", in.ndim);
  std::printf("shape:       %s\n", (in.layout & dlc_fuzz::kShapeNull)
                                       ? "NULL"
                                       : dlc_fuzz::dims_text(in.shape, in.ndim).c_str());
  std::printf("strides:     %s\n", (in.layout & dlc_fuzz::kStridesNull)
                                       ? "NULL"
                                       : dlc_fuzz::dims_text(in.strides, in.ndim).c_str());
  std::printf("byte_offset: %" PRIu64 "%s\n", s.plan.byte_offset,
              s.plan.byte_offset != in.byte_offset
                  ? (" (the input's " + std::to_string(in.byte_offset) + " modulo a page)").c_str()
                  : "");
  const dlc::geo::Geometry& g = s.plan.geometry;
  if (s.plan.kind != StoragePlan::kSkipped || s.dims <= dlc_fuzz::kMaxBackedNdim) {
    if (g.valid) {
      std::printf("elements:    %" PRIu64 " of %" PRIu64 " bytes, reaching %" PRIu64
                  " bytes of storage\n",
                  g.numel, g.element_bytes, g.storage_bytes);
    } else {
      std::printf("elements:    none: the geometry is invalid (a negative extent, zero lanes or "
                  "an overflow)\n");
    }
  }
  std::printf("data:        %s\n", data_words(s).c_str());
}

// Writes `n` values, the first kExplicitDims from `v` and the rest 1, as a C initializer.
std::string c_array(const int64_t* v, int64_t n) {
  std::string s = "{";
  for (int64_t i = 0; i < n && i < dlc_fuzz::kExplicitDims; ++i) {
    s += std::string(i == 0 ? "" : i % 4 == 0 ? ",\n    " : ", ") + i64(v[i]);
  }
  return s + "}";
}

void print_c(const Shown& s, const std::string& target, const std::string& file,
             const std::string& p) {
  const TensorInput& in = s.in;
  const StoragePlan& plan = s.plan;
  const std::string type = s.versioned ? "DLManagedTensorVersioned" : "DLManagedTensor";
  const bool shape_null = in.layout & dlc_fuzz::kShapeNull;
  const bool strides_null = in.layout & dlc_fuzz::kStridesNull;
  const bool deleter_null = in.layout & dlc_fuzz::kDeleterNull;
  // A struct of another major points at nothing: the storage is laid out but never reachable.
  const bool backed = plan.kind == StoragePlan::kBacked && !s.foreign;
  std::string where = file;  // a "*/" in the path would end the comment
  for (size_t at = where.find("*/"); at != std::string::npos; at = where.find("*/", at)) {
    where.replace(at, 2, "* /");
  }
  std::printf("/* Written by fuzz-show-input: the tensor %s hands an importer for\n   %s,\n"
              "   whose finding's input line is\n   %s\n"
              "   %s_new() builds it; its deleter, or %s_free(), releases it. */\n",
              target.c_str(), where.c_str(), dlc_fuzz::describe(in, s.versioned).c_str(),
              p.c_str(), p.c_str());
  std::printf("#include <stddef.h>\n#include <stdint.h>\n#include <stdlib.h>\n#include "
              "<string.h>\n\n#include <dlpack/dlpack.h>\n\n");
  std::string macro = p;
  for (char& ch : macro) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  std::printf("typedef %s %s_t;\n", type.c_str(), p.c_str());
  std::printf("#define %s_HAS_DL_TENSOR %d /* 0: the struct ends at deleter */\n", macro.c_str(),
              s.foreign ? 0 : 1);
  std::printf("#define %s_STORAGE_BYTES %" PRIu64 " /* host bytes behind data */\n",
              macro.c_str(), backed ? plan.bytes : 0);
  std::printf("#define %s_FILL_SEED %s /* of the fill pattern */\n\n", macro.c_str(),
              hex(dlc_fuzz::kFillSeed).c_str());
  // One heap block each, as the fuzz targets give them, so that ASan sees a read past the end.
  std::printf("struct %s_ctx {\n  unsigned char* storage;\n  int64_t* shape;\n  int64_t* strides;\n"
              "};\n\n",
              p.c_str());
  if (backed) {
    std::printf(
        "/* Byte k of the storage, as the fuzz targets fill it (dlc_fill_byte of\n"
        "   dlconform/plugin.h, seed %s): an importer that reads the wrong element reads other\n"
        "   values. */\n"
        "static unsigned char %s_fill_byte(uint64_t k) {\n"
        "  uint64_t x = (k + 1) * UINT64_C(0x9E3779B97F4A7C15) ^ ((uint64_t)%s_FILL_SEED << 32);\n"
        "  x ^= x >> 31;\n  x *= UINT64_C(0x94D049BB133111EB);\n  x ^= x >> 29;\n"
        "  return (unsigned char)x;\n}\n\n",
        hex(dlc_fuzz::kFillSeed).c_str(), p.c_str(), macro.c_str());
  }
  std::printf("/* Frees the storage, shape, strides and the struct. */\nvoid %s_free(%s* self) {\n"
              "  struct %s_ctx* ctx = (struct %s_ctx*)self->manager_ctx;\n"
              "  free(ctx->storage);\n  free(ctx->shape);\n  free(ctx->strides);\n  free(ctx);\n"
              "  free(self);\n}\n\n",
              p.c_str(), type.c_str(), p.c_str(), p.c_str());
  // Arrays of ndim entries (none for ndim <= 0: a 0-byte block, which ASan guards too).
  const std::string dims = std::to_string(s.dims);
  auto array = [&](const char* name, const int64_t* v, bool null) {
    if (null) return;
    if (s.dims > 0) {
      std::printf("static const int64_t %s_%s[%s] = %s;\n", p.c_str(), name, dims.c_str(),
                  c_array(v, s.dims).c_str());
    }
  };
  if (!s.foreign) {
    array("shape", in.shape, shape_null);
    array("strides", in.strides, strides_null);
    if (s.dims > 0 && !(shape_null && strides_null)) std::printf("\n");
  }
  std::printf("/* Returns the tensor, or NULL when out of memory. */\n%s* %s_new(void) {\n",
              type.c_str(), p.c_str());
  std::printf("  struct %s_ctx* ctx = (struct %s_ctx*)calloc(1, sizeof *ctx);\n", p.c_str(),
              p.c_str());
  if (s.foreign) {
    std::printf("  /* Another major: only version, manager_ctx and deleter, which keep their\n"
                "     place in every major (VER-2); what the input says of the rest is in the\n"
                "     comment above. */\n"
                "  %s* t =\n      (%s*)malloc(offsetof(%s, flags));\n"
                "  if (ctx == NULL || t == NULL) {\n    free(ctx);\n    free(t);\n"
                "    return NULL;\n  }\n",
                type.c_str(), type.c_str(), type.c_str());
  } else {
    std::printf("  %s* t = (%s*)calloc(1, sizeof *t);\n  if (ctx == NULL || t == NULL) {\n"
                "    free(ctx);\n    free(t);\n    return NULL;\n  }\n",
                type.c_str(), type.c_str());
    auto alloc = [&](const char* name, bool null) {
      if (null) return;
      std::printf("  ctx->%s = (int64_t*)malloc(%s * sizeof(int64_t));\n", name, dims.c_str());
      if (s.dims > 0) {
        std::printf("  if (ctx->%s != NULL) {\n    memcpy(ctx->%s, %s_%s, sizeof %s_%s);\n  }\n",
                    name, name, p.c_str(), name, p.c_str(), name);
      }
    };
    alloc("shape", shape_null);
    alloc("strides", strides_null);
    switch (plan.kind) {
      case StoragePlan::kBacked:
        std::printf("  ctx->storage = (unsigned char*)malloc(%s_STORAGE_BYTES);\n",
                    macro.c_str());
        break;
      case StoragePlan::kEmpty:
        std::printf("  /* The tensor is invalid: a 0-byte block, of which nothing may be read. */\n"
                    "  ctx->storage = (unsigned char*)malloc(0);\n");
        break;
      default:
        break;
    }
    const bool check_storage = plan.kind == StoragePlan::kBacked;
    if (!shape_null || !strides_null || check_storage) {
      std::string cond;
      auto either = [&](bool when, const char* what) {
        if (when) cond += (cond.empty() ? "" : " || ") + std::string(what);
      };
      either(!shape_null && s.dims > 0, "ctx->shape == NULL");
      either(!strides_null && s.dims > 0, "ctx->strides == NULL");
      either(check_storage, "ctx->storage == NULL");
      if (!cond.empty()) {
        std::printf("  if (%s) {\n    t->manager_ctx = ctx;\n    %s_free(t);\n    return NULL;\n"
                    "  }\n",
                    cond.c_str(), p.c_str());
      }
    }
    if (plan.kind == StoragePlan::kBacked) {
      std::printf("  for (uint64_t k = 0; k < %s_STORAGE_BYTES; ++k) {\n"
                  "    ctx->storage[k] = %s_fill_byte(k);\n  }\n",
                  macro.c_str(), p.c_str());
    }
    // A dimension past those the input carries is extent 1, stride 1.
    if (s.dims > dlc_fuzz::kExplicitDims) {
      std::printf("  for (int i = %d; i < %s; ++i) {\n", dlc_fuzz::kExplicitDims, dims.c_str());
      if (!shape_null) std::printf("    ctx->shape[i] = 1;\n");
      if (!strides_null) std::printf("    ctx->strides[i] = 1;\n");
      std::printf("  }\n");
    }
  }
  if (s.versioned) {
    std::printf("  t->version.major = %uu;\n  t->version.minor = %uu;\n", in.version.major,
                in.version.minor);
  }
  std::printf("  t->manager_ctx = ctx;\n");
  if (deleter_null) {
    std::printf("  t->deleter = NULL; /* as the input says (LIFE-4): call %s_free() yourself */\n",
                p.c_str());
  } else {
    std::printf("  t->deleter = %s_free;\n", p.c_str());
  }
  if (!s.foreign) {
    if (s.versioned) {
      std::printf("  t->flags = UINT64_C(%s); /* %s */\n", hex(in.flags).c_str(),
                  flag_names(in.flags).c_str());
    }
    switch (plan.kind) {
      case StoragePlan::kBacked:
        std::printf("  t->dl_tensor.data = ctx->storage + %" PRIu64
                    "; /* misalign %u, then the elements below data */\n",
                    plan.data_offset, in.misalign);
        break;
      case StoragePlan::kEmpty:
        std::printf("  t->dl_tensor.data = ctx->storage;\n");
        break;
      case StoragePlan::kDevice:
        std::printf("  /* Device memory: the host must not read it (DEV-3). Nothing is mapped at\n"
                    "     0x1000 on Linux, so a host read faults as it does in the fuzzer. */\n"
                    "  t->dl_tensor.data = (void*)(uintptr_t)0x1000;\n");
        break;
      default:
        std::printf("  t->dl_tensor.data = NULL;\n");
        break;
    }
    std::printf("  t->dl_tensor.device.device_type = (DLDeviceType)%d;\n"
                "  t->dl_tensor.device.device_id = %d;\n"
                "  t->dl_tensor.ndim = %d;\n"
                "  t->dl_tensor.dtype.code = %u;\n"
                "  t->dl_tensor.dtype.bits = %u;\n"
                "  t->dl_tensor.dtype.lanes = %u;\n",
                in.device.device_type, in.device.device_id, in.ndim, in.dtype.code,
                in.dtype.bits, in.dtype.lanes);
    std::printf("  t->dl_tensor.shape = %s;\n", shape_null ? "NULL" : "ctx->shape");
    std::printf("  t->dl_tensor.strides = %s;\n", strides_null ? "NULL" : "ctx->strides");
    std::printf("  t->dl_tensor.byte_offset = UINT64_C(%" PRIu64 ");\n", plan.byte_offset);
  }
  std::printf("  return t;\n}\n");
}

}  // namespace

int main(int argc, char** argv) {
  bool fields = true, c = true;
  std::string prefix = "fuzz_input";
  std::vector<std::string> args;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--fields") {
      c = false;
    } else if (a == "--c") {
      fields = false;
    } else if (a == "--name" && i + 1 < argc) {
      prefix = argv[++i];
    } else if (a.rfind("--", 0) == 0 && a != "--help") {
      return fail("expected --fields, --c or --name PREFIX but found " + a);
    } else if (a == "-h" || a == "--help") {
      std::printf("usage: fuzz-show-input [--fields | --c] [--name PREFIX] TARGET FILE\n"
                  "Prints every field of the tensor a fuzz target's input FILE decodes to, and a "
                  "C11 snippet that builds it.\n");
      return 0;
    } else {
      args.push_back(a);
    }
  }
  if (!fields && !c) return fail("expected one of --fields and --c but found both");
  if (args.size() != 2) {
    return fail("expected [--fields | --c] [--name PREFIX] TARGET FILE but found " +
                std::to_string(args.size()) + (args.size() == 1 ? " argument" : " arguments"));
  }
  bool valid_prefix = !prefix.empty() && !std::isdigit(static_cast<unsigned char>(prefix[0]));
  for (char ch : prefix) {
    valid_prefix = valid_prefix && (std::isalnum(static_cast<unsigned char>(ch)) || ch == '_');
  }
  if (!valid_prefix) return fail("expected --name to be a C identifier but found " + prefix);
  // A path to the target's executable (the reproduce line's) names it too.
  const std::string target = std::filesystem::path(args[0]).filename().string();
  const std::string& file = args[1];
  Shown s;
  if (target == "import_versioned_fuzzer") {
    s.versioned = true;
  } else if (target == "import_legacy_fuzzer") {
    s.versioned = false;
  } else if (target != "differential_fuzzer") {
    return fail("expected a target whose input is a tensor (import_versioned_fuzzer, "
                "import_legacy_fuzzer or differential_fuzzer) but found " + target);
  }
  std::error_code ec;
  if (!std::filesystem::is_regular_file(file, ec)) {
    return fail("expected a fuzz input file but found no file " + file);
  }
  std::ifstream stream(file, std::ios::binary);
  const std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(stream)),
                                   std::istreambuf_iterator<char>());
  if (!stream.good() && !stream.eof()) return fail("expected to read " + file + " but could not");
  if (bytes.size() > dlc_fuzz::kMaxInputBytes) {
    // The replay main refuses such a file too: it would replay as another, truncated input.
    return fail("expected at most " + std::to_string(dlc_fuzz::kMaxInputBytes) + " bytes in " +
                file + " but found " + std::to_string(bytes.size()));
  }
  s.in = dlc_fuzz::decode(bytes.data(), bytes.size());
  // differential_fuzzer picks the struct by the input's own bit; the import targets by name.
  if (target == "differential_fuzzer") s.versioned = !(s.in.layout & dlc_fuzz::kLegacyStruct);
  s.foreign = s.versioned && s.in.version.major != kImporterMajor;
  s.plan = dlc_fuzz::plan_storage(s.in, s.versioned);
  s.dims = s.in.ndim > 0 ? s.in.ndim : 0;
  if (fields) print_fields(s, target, file, bytes.size());
  if (fields && c) std::printf("\n");
  if (!c) return 0;
  if (s.plan.kind == StoragePlan::kSkipped) {
    std::fflush(stdout);
    return fail(std::string("expected an input the fuzz targets hand an importer but found one "
                            "they skip (") + s.plan.why_skipped + ")");
  }
  print_c(s, target, file, prefix);
  return 0;
}
