#!/bin/bash
# First-call rounds, two fresh virtual environments alternating (benchmarks/RESULTS_speed.md §8):
#   python -m venv VB && VB/bin/pip install <tree of main>;  python -m venv VA && VA/bin/pip install <tree of branch>
#   bash benchmarks/first_call_rounds.sh VB VA [rounds]
# Before every cold run the numba cache of that install (site-packages/bandkit/**/__pycache__) is emptied, and
# a background compile started by a previous run (bandkit._warm) is waited for.
set -u
B=$1; A=$2; ROUNDS=${3:-3}
FC=$(cd "$(dirname "$0")" && pwd)/first_call.py
export PYTHONDONTWRITEBYTECODE=1
unset NUMBA_CACHE_DIR BANDKIT_KERNELS BANDKIT_WARM
site() { "$1/bin/python" -c "import bandkit, os; print(os.path.dirname(bandkit.__file__))"; }
clear() { find "$(site "$1")" \( -name "*.nbi" -o -name "*.nbc" -o -name "bandkit-changepoints-*" \) -delete; }
waitwarm() { while pgrep -f "from bandkit._warm import main" >/dev/null; do sleep 1; done; }
for r in $(seq "$ROUNDS"); do
  for n in 10000 100000; do
    for v in "$B" "$A"; do waitwarm; clear "$v"; echo "round $r $v cold $("$v/bin/python" "$FC" $n)"; done
  done
  waitwarm
  for v in "$B" "$A"; do echo "round $r $v warm $("$v/bin/python" "$FC" 100000)"; done
done
