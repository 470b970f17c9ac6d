// planted-abort-negative-strides: the conformant versioned mock consumer, which then aborts on a
// tensor it must walk backwards, as torch 1.13's importer does (a C++ exception escaping a
// noexcept frame ends in std::terminate and SIGABRT). The fuzz targets must name the abort as the
// matrix does: crash, with the input's rule (LAY-8), "the process aborted in consume() of ...".
#include <stdexcept>
#include <string>

#undef DLC_BUG
#define DLC_BUG none                                  // the mock plants nothing: the abort is ours
#define dlconform_plugin_entry dlc_mock_plugin_entry  // this file exports its own table below
#include "../mock_consumer.cpp"
#undef dlconform_plugin_entry

namespace {

[[noreturn]] void throw_negative_stride(int axis, int64_t stride) {
  throw std::invalid_argument("expected non-negative strides but found " +
                              std::to_string(stride) + " on axis " + std::to_string(axis));
}

// noexcept: the exception cannot leave this frame, so the C++ runtime aborts the process.
void check_strides(const DLTensor& t) noexcept {
  for (int i = 0; t.strides != nullptr && i < t.ndim; ++i) {
    if (t.shape[i] > 1 && t.strides[i] < 0) throw_negative_stride(i, t.strides[i]);
  }
}

// The mock imports first: its checks make every read here safe, so the abort is the only bug.
int consume_or_abort(void* state, DLCHandoff* handoff, const DLCRequest* request,
                     DLCObservation* obs, char* err, size_t err_len) {
  const int rc = consume(state, handoff, request, obs, err, err_len);
  if (rc == DLC_OK) check_strides(*tensor_of(g_imported));
  return rc;
}

const DLCPlugin kAbortingPlugin = [] {
  DLCPlugin table = kPlugin;
  table.consume = consume_or_abort;
  return table;
}();

}  // namespace

DLC_EXPORT_PLUGIN(kAbortingPlugin)
