"""Stream helpers: resource and timepoint analyses, the allocation plan, dispatch sites and the
conversions ``iree-stream-convert-to-stream`` applies (calls, control flow, collectives, executables).
"""
