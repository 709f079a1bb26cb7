import os

import pytest
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


#: Test modules (and single tests) that run the Scene's compiled step: one xdist group,
#: so its kernels (minutes of compiling on a cold cache) compile in one worker only;
#: with ``--dist loadgroup`` every other test is dealt to whichever worker is free.
SCENE_MODULES = {
    "test_api_table.py",
    "test_contact_depth.py",
    "test_numbers.py",
    "test_pipeline.py",
    "test_scale.py",
    "test_scene_continuous.py",
    "test_scene_deform.py",
    "test_scene_memory.py",
    "test_scene_queries.py",
    "test_scene_run.py",
    "test_scene_tlas.py",
}
SCENE_TESTS = {
    "test_filters_are_the_scenes",
    "test_experiment_reports_identical_contacts_and_writes_its_files",
    "test_demo_runs_the_worked_examples_and_writes_the_view",
    "test_scene_from_file_runs_in_the_pipeline",
}


def pytest_collection_modifyitems(items):
    for item in items:
        name = item.name.split("[")[0]
        if item.path.name in SCENE_MODULES or name in SCENE_TESTS:
            item.add_marker(pytest.mark.xdist_group("scene"))
