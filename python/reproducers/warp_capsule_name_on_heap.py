# finding: warp LIFE-1 producer-violation: array.__dlpack__ and warp.to_dlpack name their capsules with the bytes of a Python bytes object (heap memory), where python_spec.rst says the capsule names must be statically allocated: the capsule keeps only the pointer
# env: frameworks
# expect: exit 0
import warp
from dlconform_capsule import name_in_loaded_object
a = warp.zeros(4, dtype=warp.float32, device="cpu")
assert name_in_loaded_object(a.__dlpack__()) is None and name_in_loaded_object(warp.to_dlpack(a)) is None
