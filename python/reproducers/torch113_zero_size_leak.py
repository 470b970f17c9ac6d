# finding: torch LIFE-3 deleter-never-called: torch 1.13 never calls the deleter of a zero-size tensor whose data is NULL, so the producer's memory leaks
# env: debian
# expect: exit 0
import torch, gc
from dlconform_capsule import Producer, deleter_calls
x = torch.from_dlpack(Producer("f32", [0, 4], null_data=True)); del x; gc.collect()
assert deleter_calls() == 0, "fixed: the deleter ran"
