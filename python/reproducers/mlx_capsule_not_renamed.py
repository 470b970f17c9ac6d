# finding: mlx LIFE-1 capsule-not-renamed: mlx.core.from_dlpack takes the tensor (copies it and calls its deleter) but leaves the capsule named dltensor and clears its destructor: a second consumer handed that capsule takes the freed struct again
# env: frameworks
# expect: exit 0
import mlx.core as mx
from dlconform_capsule import capsule, name_of, deleter_calls
c = capsule("f32", [4])
mx.from_dlpack(type("H", (), {"__dlpack__": lambda s, **k: c, "__dlpack_device__": lambda s: (1, 0)})())
assert deleter_calls() == 1 and name_of(c) == "dltensor"  # deleted, yet named as unconsumed
