// PluginConsumer(path): a dlconform consumer plugin driven like a framework's from_dlpack, so
// that the Python driver (and the one-judge test) can hand it what it hands a framework.
#include "bridge.h"
#include "phase.h"
#include "plugin_loader.h"

namespace dlc::bridge {
namespace {

struct PluginConsumer {
  PyObject_HEAD
  const dlc::LoadedPlugin* plugin;
};

int plugin_init(PluginConsumer* self, PyObject* args, PyObject*) {
  const char* path = nullptr;
  if (!PyArg_ParseTuple(args, "s", &path)) return -1;
  self->plugin = load(path, DLC_ROLE_CONSUMER);
  return self->plugin == nullptr ? -1 : 0;
}

// The keywords the plugin's ask() (plugin ABI 3) passes for obj's device, as a new dict: the
// stream it will read on (STRM-1). An empty dict without ask(), for a capsule, for an object
// whose __dlpack_device__ gives no (type, id) (its __dlpack__ is judged as before), or when the
// plugin passes none; nullptr with a Python error set when ask() fails (a read without the
// stream would blame the producer for the plugin's failure).
PyObject* asked_keywords(const dlc::LoadedPlugin& plugin, PyObject* obj) {
  PyObject* keywords = PyDict_New();
  if (keywords == nullptr || plugin.ask_slot() == nullptr || PyCapsule_CheckExact(obj)) {
    return keywords;
  }
  PyObject* answer = PyObject_CallMethod(obj, "__dlpack_device__", nullptr);
  int type = 0, id = 0;
  const bool parsed = answer != nullptr && PyArg_ParseTuple(answer, "ii", &type, &id);
  Py_XDECREF(answer);
  if (!parsed) {
    PyErr_Clear();
    return keywords;
  }
  DLCRequest request{};
  char error[512] = {};
  int rc = DLC_OK;
  {
    dlc::ScopedPhase phase("ask()", plugin.table->name, dlc::Party::consumer);
    rc = plugin.ask_slot()(plugin.state, DLCDevice{type, id}, &request, error, sizeof error);
  }
  error[sizeof error - 1] = '\0';
  if (rc != DLC_OK) {
    Py_DECREF(keywords);
    PyErr_Format(PyExc_RuntimeError, "%s: ask() failed with code %d: %s", plugin.table->name, rc,
                 error);
    return nullptr;
  }
  if (request.has_stream) {
    PyObject* stream = PyLong_FromLongLong(request.stream);
    PyDict_SetItemString(keywords, "stream", stream);
    Py_XDECREF(stream);
  }
  return keywords;
}

// from_dlpack(obj) -> (imported, error, observation dict); the capsule's name follows the plugin.
// A plugin with ask() passes its stream to obj.__dlpack__, as the harness does for a C producer.
PyObject* plugin_from_dlpack(PluginConsumer* self, PyObject* args) {
  PyObject* obj = nullptr;
  if (!PyArg_ParseTuple(args, "O", &obj)) return nullptr;
  const DLCPlugin& t = *self->plugin->table;
  PyObject* keywords = asked_keywords(*self->plugin, obj);
  if (keywords == nullptr) return nullptr;
  bool fell_back = false;
  PyObject* type_error = nullptr;
  PyObject* capsule = ask_for_capsule(obj, t.has_max_version != 0, t.max_version, &fell_back,
                                      &type_error, keywords);
  Py_DECREF(keywords);
  Py_XDECREF(type_error);
  if (capsule == nullptr) return nullptr;
  const char* name = PyCapsule_GetName(capsule);
  DLCHandoff h{name, PyCapsule_GetPointer(capsule, name)};
  DLCRequest request{};
  request.has_max_version = t.has_max_version && !fell_back;
  request.max_version = t.max_version;
  request.copy = -1;
  DLCObservation obs{};
  char error[512] = {};
  int rc = DLC_OK;
  {
    dlc::ScopedPhase phase("consume()", t.name, dlc::Party::consumer);
    rc = t.consume(self->plugin->state, &h, &request, &obs, error, sizeof error);
  }
  if (h.name != name) PyCapsule_SetName(capsule, h.name);  // the plugin renamed it (LIFE-1)
  Py_DECREF(capsule);
  PyObject* shape = PyTuple_New(obs.ndim > 0 && obs.ndim <= DLC_MAX_NDIM ? obs.ndim : 0);
  for (int i = 0; i < obs.ndim && i < DLC_MAX_NDIM; ++i) {
    PyTuple_SetItem(shape, i, PyLong_FromLongLong(obs.shape[i]));
  }
  return Py_BuildValue("{s:O,s:s,s:i,s:N,s:(iii),s:K,s:K}", "imported",
                       rc == DLC_OK ? Py_True : Py_False, "error", error, "ndim", obs.ndim,
                       "shape", shape, "dtype", obs.dtype.code, obs.dtype.bits, obs.dtype.lanes,
                       "digest", static_cast<unsigned long long>(obs.digest), "elements",
                       static_cast<unsigned long long>(obs.elements_read));
}

PyObject* plugin_release(PluginConsumer* self, PyObject*) {
  const DLCPlugin& t = *self->plugin->table;
  if (t.release != nullptr) {
    dlc::ScopedPhase phase("release()", t.name, dlc::Party::consumer);
    t.release(self->plugin->state);
  }
  Py_RETURN_NONE;
}

PyMethodDef plugin_methods[] = {
    {"from_dlpack", reinterpret_cast<PyCFunction>(plugin_from_dlpack), METH_VARARGS,
     "Import obj through the plugin's consume(); returns what it observed."},
    {"release", reinterpret_cast<PyCFunction>(plugin_release), METH_NOARGS,
     "The plugin's release(): drops what it imported."},
    {nullptr, nullptr, 0, nullptr}};

}  // namespace

PyObject* make_plugin_consumer_type() {
  return make_type("_dlconform.PluginConsumer", sizeof(PluginConsumer),
                   "A dlconform consumer plugin, driven like from_dlpack.", plugin_methods,
                   reinterpret_cast<void*>(plugin_init));
}

}  // namespace dlc::bridge
