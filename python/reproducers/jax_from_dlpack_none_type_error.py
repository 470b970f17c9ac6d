# finding: jax VER-4 no-attribute-error: jax.dlpack.from_dlpack(None) raises TypeError, not the AttributeError the Array API's from_dlpack requires since 2023.12 for an object without __dlpack__ and __dlpack_device__
# env: frameworks latest gpu
# expect: raises TypeError: The array passed to from_dlpack must have __dlpack__ and __dlpack_device__
import jax.dlpack
jax.dlpack.from_dlpack(None)
