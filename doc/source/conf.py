"""Sphinx configuration of the rally-container-bench guide (tox -e docs)."""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "_ext"))

project = "rally-container-bench"
copyright = "rally-container-bench contributors"
extensions = [
    "myst_parser",
    "oslo_config.sphinxext",
    "rcbench_reference",
]
source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
master_doc = "index"
# The committed results are read by the extension, not as pages.
exclude_patterns = ["results/*/*"]
myst_heading_anchors = 3
html_theme = "alabaster"
html_theme_options = {"description": "KVM vs containers vs native, "
                                     "measured with Rally",
                      "show_relbars": True}
html_sidebars = {"**": ["about.html", "navigation.html", "relations.html",
                        "searchbox.html"]}
# Offline: no external resource is linked or fetched.
html_use_opensearch = ""
