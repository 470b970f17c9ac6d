# finding: warp LIFE-1 capsule-misnamed: warp.from_dlpack renames the capsule it takes to used_dltensor with the bytes of a Python bytes object (heap memory), where python_spec.rst says the capsule names must be statically allocated: the capsule keeps only the pointer
# env: frameworks
# expect: exit 0
import warp
warp.init()
from dlconform_capsule import capsule, name_of, name_in_loaded_object
a = warp.from_dlpack(c := capsule("f32", [4]))
assert name_of(c) == "used_dltensor" and name_in_loaded_object(c) is None
