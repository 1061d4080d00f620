"""HAL helpers: the stream -> hal lowerings of commands, resources and channels, device targets and
affinities, pipeline layouts, workgroup counts, the IR builder and the forked serialization jobs.
"""
