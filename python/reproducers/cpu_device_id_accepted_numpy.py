# finding: numpy DEV-2 accepted-invalid: numpy.from_dlpack imports a CPU tensor whose device_id is 3
# env: frameworks mxnet debian numpy-1.24.4 numpy-1.26.4 numpy-2.0.2 numpy-2.1.3 numpy-2.2.6 numpy-2.3.5 latest
# expect: exit 0
import numpy
from dlconform_capsule import Producer
x = numpy.from_dlpack(Producer("f32", [4], device=(1, 3)))
