"""Global-optimization passes: data tiling (``iree-dispatch-creation-set-encoding``,
``-propagate-encodings``) and ``iree-util-hoist-into-globals``.
"""
