/* The python-importer plugin's protocol extension, for fuzz/python_protocol_fuzzer.cpp: the
 * answers the exporter object gives a Python library's from_dlpack around the capsule (which
 * keywords __dlpack__ takes, what it returns or raises, what __dlpack_device__ returns), set
 * before each consume(), and what the exporter saw, read after it.
 *
 * The plugin exports `const DLCPythonProtocol* dlc_python_importer_protocol(void)`; the tables
 * of answers live in dlconform_fuzz_importer.py (PROTOCOL_TABLES). Plain C: nothing here throws,
 * and every string is the caller's buffer. */
#ifndef DLCONFORM_PYTHON_PROTOCOL_H_
#define DLCONFORM_PYTHON_PROTOCOL_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* How the capsule handed by __dlpack__ is named (dlconform_fuzz_importer.NAME_MODES). */
#define DLC_PROTOCOL_NAME_OWN 0     /* "dltensor" or "dltensor_versioned", as it should be */
#define DLC_PROTOCOL_NAME_USED 1    /* "used_" and its name: consumed already (LIFE-8) */
#define DLC_PROTOCOL_NAME_FOREIGN 2 /* "DLTensor": no DLPack name (LIFE-1) */
#define DLC_PROTOCOL_NAME_NONE 3    /* a capsule with a NULL name (LIFE-1) */

/* What a plan asks of the tensor the target makes. */
typedef struct DLCProtocolPlan {
  /* DLC_PROTOCOL_NAME_*: the name the capsule goes out under. */
  int32_t name_mode;
  /* Non-zero when __dlpack__ takes no max_version: an exporter from before DLPack 1.0, which
   * can only make the legacy struct. */
  int32_t legacy_only;
} DLCProtocolPlan;

/* What the exporter saw during the last consume(). */
typedef struct DLCProtocolFacts {
  /* Non-zero when __dlpack__ returned the capsule (under the plan's name) at least once. */
  int32_t capsule_handed;
  /* How many times the importer called __dlpack__. */
  int32_t dlpack_calls;
  /* Non-zero when __dlpack__ raised TypeError for a keyword and the importer never called it
   * again without that keyword (VER-5's fallback missed). */
  int32_t fallback_missed;
} DLCProtocolFacts;

typedef struct DLCPythonProtocol {
  /* Sets the answers of the next consume() from `choices` (n bytes: one pick of each table,
   * taken modulo its length). Writes what they are in words to `words` ("__dlpack__ returns
   * None; ...") and the id of the rule the first answer out of the protocol breaks to `rule`
   * ("VER-4"; "" for a conformant plan), and fills *out. Returns 0, or -1 with the reason in
   * `words` (an importer that takes capsules, not objects). */
  int (*plan)(const uint8_t* choices, size_t n, char* words, size_t words_len, char* rule,
              size_t rule_len, DLCProtocolPlan* out);
  /* After consume() and release(): what the exporter saw. Returns 0, or -1 when no plan ran. */
  int (*facts)(DLCProtocolFacts* out);
} DLCPythonProtocol;

/* The symbol's type, for dlsym. */
typedef const DLCPythonProtocol* (*DLCPythonProtocolFn)(void);

#ifdef __cplusplus
}
#endif

#endif /* DLCONFORM_PYTHON_PROTOCOL_H_ */
