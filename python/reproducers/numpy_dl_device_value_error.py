# finding: numpy STRM-3 wrong-refusal-exception: ndarray.__dlpack__(dl_device=(2, 0)) refuses a CUDA device it cannot export to with ValueError instead of BufferError (fixed in NumPy 2.4)
# env: numpy-2.1.3 numpy-2.2.6 numpy-2.3.5
# expect: raises ValueError: unsupported device requested
import numpy
numpy.ones(4, "float32").__dlpack__(max_version=(1, 3), dl_device=(2, 0))
