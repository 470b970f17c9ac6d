# finding: numpy VER-5 no-version-fallback: numpy.from_dlpack(x, copy=True) (and device="cpu") passes copy and dl_device to x.__dlpack__ and gives up on the TypeError of a producer with the old signature, where the Array API's consumer logic, "also applicable to ... dl_device and copy", asks again without them
# env: numpy-2.1.3 numpy-2.2.6 numpy-2.3.5 frameworks latest
# expect: raises TypeError: .*unexpected keyword argument
import numpy
from dlconform_capsule import Producer
numpy.from_dlpack(Producer("f32", [4], legacy=True), copy=True)
