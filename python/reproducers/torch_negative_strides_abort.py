# finding: torch LAY-8 crash: torch.from_dlpack aborts the interpreter (an uncaught c10::Error, "Storage size calculation overflowed") on a tensor with negative strides, instead of importing it or raising
# env: frameworks mxnet debian gpu
# expect: SIGABRT
import torch
from dlconform_capsule import Producer
torch.from_dlpack(Producer("f32", [8], strides=[-1]))
