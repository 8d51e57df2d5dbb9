#!/bin/bash
# Resolve the Python dependencies anew, run the style and unit tests on
# them, and write upper-constraints.txt: the set every install then uses
# (tools/install-deps.sh, every tox env, .ci/run), as OpenStack's
# upper-constraints pins devstack and the gate. Run it when a dependency's
# release is wanted (a fix, a new Python), not on every change: a landing
# that refreshes it is the one that tested the new set, end to end in CI.
#   tools/refresh-constraints.sh          resolve, test, write
#   tools/refresh-constraints.sh --no-test  resolve and write only
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
python="${PYTHON:-python3}"
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
"$python" -m venv "$scratch/venv"
"$scratch/venv/bin/pip" install -q --upgrade pip
# what any install here takes: the package, its tests' and guide's tools,
# tox with tox-uv (README command 1's venv); no constraint: the newest
"$scratch/venv/bin/pip" install -q -e "$top" -r test-requirements.txt \
    -r doc/requirements.txt tox tox-uv
{
    echo "# The Python packages CI tested, exactly (pip freeze of a venv with the"
    echo "# package, test-requirements.txt, doc/requirements.txt, tox and tox-uv;"
    echo "# $("$scratch/venv/bin/python" --version), $(date -u +%Y-%m-%d))."
    echo "# Every install takes it as pip's -c (tools/install-deps.sh, tox.ini,"
    echo "# .ci/run); setup.cfg keeps its ranges for those who install the plugins"
    echo "# into their own Rally. Refreshed by tools/refresh-constraints.sh."
    "$scratch/venv/bin/pip" freeze --exclude-editable | LC_ALL=C sort -f
} > "$scratch/upper-constraints.txt"
cp "$scratch/upper-constraints.txt" upper-constraints.txt
echo "upper-constraints.txt: $(grep -vc '^#' upper-constraints.txt) packages"
if [ "${1:-}" != --no-test ]; then
    # the tox envs made again on the new set
    "$top/.venv/bin/tox" run-parallel -p all --parallel-live -r -e pep8,py3
fi
