# finding: torch LIFE-1 capsule-not-renamed: torch.from_dlpack calls the deleter of an OpenCL tensor, then raises RuntimeError without renaming the capsule, so the producer's capsule destructor deletes it again (a double free)
# env: debian frameworks latest mxnet gpu
# expect: exit 0
import contextlib, torch
from dlconform_capsule import capsule, deleter_calls, name_of
cap = capsule("f32", (8, 8), strides=(8, 1), device=(4, 0))
with contextlib.suppress(RuntimeError): torch.from_dlpack(cap)
assert deleter_calls() == 1 and name_of(cap) == "dltensor"  # deleted, yet not renamed
