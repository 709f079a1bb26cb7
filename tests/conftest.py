import os

from hypothesis import HealthCheck, settings

# Kernels compile on first call (seconds), which is not a property of the code under test.
settings.register_profile(
    "default",
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    print_blob=True,
)
settings.register_profile("ci", parent=settings.get_profile("default"), derandomize=True)
# `make fuzz`: the file fuzzer (tests/test_file_fuzz.py) with a long budget, new inputs
# each run (not derandomized)
settings.register_profile(
    "fuzz", parent=settings.get_profile("default"), max_examples=3000
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))
