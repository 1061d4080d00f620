"""Lowerings of the ``iree_linalg_ext`` ops to ``linalg.generic``s on tensors (helpers of
``rt-decompose-linalg-ext``): ``rows`` (sort, topk, scan, arg_compare; stable row sorting in
``sorting``), ``indexed`` (gather, scatter, map_load, map_store), ``winograd`` (the F(6, 3)
transforms); ``builders`` holds the pieces they share."""
