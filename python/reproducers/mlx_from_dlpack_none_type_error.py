# finding: mlx VER-4 no-attribute-error: mlx.core.from_dlpack(None) raises TypeError (its binding's signature check), not the AttributeError the Array API's from_dlpack requires since 2023.12
# env: frameworks
# expect: raises TypeError: from_dlpack... incompatible function arguments
import mlx.core
mlx.core.from_dlpack(None)
