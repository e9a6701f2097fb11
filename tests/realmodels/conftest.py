# SPDX-License-Identifier: GPL-3.0-or-later
"""The real-model suite's pytest marker: more_families marks the families of the ctest
entry real_models_more (test_real_models.MORE_FAMILIES), which the entry real_models
deselects (tests/realmodels/CMakeLists.txt)."""


def pytest_configure(config):
    config.addinivalue_line("markers", "more_families: a family of the ctest entry real_models_more (issue 24)")
