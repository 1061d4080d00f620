"""rt.runtime.modules: native VM modules other than ``hal`` (``check`` for IREE e2e tests)."""
