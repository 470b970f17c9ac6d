# finding: cupy VER-4 no-attribute-error: cupy.from_dlpack(None) raises ValueError (it takes None for a capsule), not the AttributeError the Array API's from_dlpack requires since 2023.12
# env: gpu
# expect: raises ValueError: A DLPack tensor object cannot be consumed multiple times
import cupy
cupy.from_dlpack(None)
