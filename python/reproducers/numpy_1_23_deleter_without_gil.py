# finding: numpy LIFE-7 producer-violation: NumPy 1.23's deleter releases the array without taking the GIL, so a consumer that drops the tensor on a thread of its own (no GIL held) calls Python's allocator unlocked (numpy/numpy#22507, fixed in 1.24)
# env: mxnet
# expect: SIGABRT
import ctypes, os, sys, numpy as np
if os.environ.get("PYTHONMALLOC") != "debug": os.execve(sys.executable, [sys.executable] + sys.argv, dict(os.environ, PYTHONMALLOC="debug"))  # the allocator's GIL check
api = ctypes.pythonapi; api.PyCapsule_GetPointer.restype = ctypes.c_void_p; c = np.arange(4.0).__dlpack__()
p = api.PyCapsule_GetPointer(ctypes.py_object(c), b"dltensor"); api.PyCapsule_SetName(ctypes.py_object(c), b"used_dltensor"); del c  # taken as a consumer takes it
t = ctypes.c_ulong(); libc = ctypes.CDLL(None); libc.pthread_create(ctypes.byref(t), None, ctypes.c_void_p.from_address(p + 56), ctypes.c_void_p(p)); libc.pthread_join(t, None)  # the deleter on a thread without the GIL
