#!/usr/bin/env bash
# minigrad quick start. On a fresh clone (Debian-like machine, Python 3.10+):
#
#   bash setup.sh course [JUPYTER ARGS...]   set up, then open the course in JupyterLab
#   bash setup.sh grade  [GRADER ARGS...]    set up, then grade exercises/ (python -m minigrad.grade)
#   bash setup.sh test   [PYTEST ARGS...]    set up with the test tools, then run every test
#
# Safe to run again: a finished setup is remembered in .venv and skipped until
# pyproject.toml or this file changes. Environment knobs:
#   PYTHON=python3.12                 the interpreter that creates .venv (default python3)
#   MINIGRAD_TORCH_INDEX=URL          the only index `test` gets PyTorch from (default: PyTorch's
#                                     CPU wheel index, added to pip's own indexes)
#   MINIGRAD_SKIP_APT=1               never call apt-get (Graphviz's dot for `course` and `grade`;
#                                     for `test`, Chromium too)
set -euo pipefail

usage() {
    echo "usage: bash setup.sh course [jupyter args...] | grade [grader args...] | test [pytest args...]" >&2
    exit 2
}

[[ $# -ge 1 ]] || usage
mode=$1
shift
[[ $mode == course || $mode == grade || $mode == test ]] || usage

cd "$(dirname "${BASH_SOURCE[0]}")"
root=$PWD
venv=$root/.venv
python=${PYTHON:-python3}
# PyTorch is the test oracle, never a dependency of minigrad itself. It is
# installed before the `dev` extra so that extra's `torch>=2.1` is already met
# and pip cannot swap in a different (for example multi-gigabyte CUDA) build.
torch_spec="torch==2.13.0"
# The CPU build is all the oracle needs; PyPI's Linux wheel is the multi-gigabyte CUDA build.
torch_cpu_index=https://download.pytorch.org/whl/cpu

say() { printf '[setup] %s\n' "$*"; }

# --- apt-get, only where it can run without a password ---------------------------
apt_ok=0
if [[ ${MINIGRAD_SKIP_APT:-0} != 1 ]] && command -v apt-get >/dev/null 2>&1; then
    if [[ $(id -u) -eq 0 ]]; then
        apt_ok=1
        sudo_cmd=()
    elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
        apt_ok=1
        sudo_cmd=(sudo -n)
    fi
fi
apt_updated=0

# apt_install PKG...: best effort, quiet, bounded in time; never fatal.
apt_install() {
    [[ $apt_ok == 1 ]] || return 1
    export DEBIAN_FRONTEND=noninteractive
    if [[ $apt_updated == 0 ]]; then
        apt_updated=1
        timeout 300 "${sudo_cmd[@]}" apt-get update -qq >/dev/null 2>&1 || true
    fi
    timeout 600 "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "$@" \
        >/dev/null 2>&1
}

# --- Python and the virtual environment -------------------------------------------
if ! command -v "$python" >/dev/null 2>&1; then
    say "no '$python' found: install Python 3.10 or newer (apt-get install python3), or set PYTHON=..."
    exit 1
fi
if ! "$python" -c 'import sys; sys.exit(sys.version_info < (3, 10))'; then
    say "minigrad needs Python 3.10 or newer; '$python' is $("$python" --version 2>&1)"
    exit 1
fi

make_venv() { "$python" -m venv "$venv" >/dev/null 2>&1; }

if [[ ! -x $venv/bin/python ]]; then
    say "creating .venv with $("$python" --version 2>&1)"
    if ! make_venv; then
        # Debian ships the venv module (and ensurepip) in a separate package.
        rm -rf "$venv"
        pyver=$("$python" -c 'import sys; print(f"{sys.version_info[0]}.{sys.version_info[1]}")')
        if [[ $apt_ok == 1 ]]; then
            say "'$python -m venv' failed; trying apt-get install python3-venv"
            if apt_install python3-venv "python$pyver-venv" || apt_install python3-venv; then
                make_venv || rm -rf "$venv"
            fi
        fi
        if [[ ! -x $venv/bin/python ]]; then
            say "could not create a virtual environment. Install the venv module, e.g."
            say "    sudo apt-get install python3-venv    (or python$pyver-venv)"
            say "then run this command again."
            exit 1
        fi
    fi
fi
vpy=$venv/bin/python

# --- Python packages (skipped when nothing changed since the last run) --------------
extras=lessons,bfloat16,distributed,export
[[ $mode == test ]] && extras=lessons,bfloat16,dev,docs,distributed,export
# `grade` needs what `course` needs: they share one stamp.
stamp=$venv/.minigrad-setup-${mode/grade/course}
want=$(cat pyproject.toml "${BASH_SOURCE[0]}" | cksum)
want="$want ${MINIGRAD_TORCH_INDEX:-}"
if [[ -f $stamp && $(cat "$stamp") == "$want" ]]; then
    say "packages are up to date (delete $stamp to force a reinstall)"
else
    started=$SECONDS
    # An old pip cannot do editable installs from pyproject.toml alone.
    "$vpy" -m pip install -q --upgrade pip || say "note: could not upgrade pip; continuing"
    if [[ $mode == test ]]; then
        if "$vpy" -c 'import torch' >/dev/null 2>&1; then
            say "PyTorch $("$vpy" -c 'import torch; print(torch.__version__)') already installed (test oracle)"
        else
            if [[ -n ${MINIGRAD_TORCH_INDEX:-} ]]; then
                torch_args=(--index-url "$MINIGRAD_TORCH_INDEX")
            else
                # Beside pip's own indexes (PyPI, a mirror, a wheel folder): the CPU
                # build (2.13.0+cpu) sorts above PyPI's 2.13.0, so pip takes it where
                # that index answers, and a machine that cannot reach it still installs.
                torch_args=(--extra-index-url "$torch_cpu_index")
            fi
            say "installing $torch_spec ${torch_args[*]} (test oracle)"
            "$vpy" -m pip install -q "${torch_args[@]}" "$torch_spec"
            say "installed PyTorch $("$vpy" -c 'import torch; print(torch.__version__)')"
        fi
    fi
    say "installing minigrad (editable) with extras [$extras]"
    "$vpy" -m pip install -q -e ".[$extras]"
    # Register the kernel so that editors outside this venv can find it.
    "$vpy" -m ipykernel install --user --name minigrad --display-name "Python (minigrad)" \
        >/dev/null 2>&1 || say "note: could not register the 'minigrad' Jupyter kernel"
    # Graphviz's dot draws the nicest pictures; optional, tried once per install.
    if ! command -v dot >/dev/null 2>&1 && apt_install graphviz; then
        say "installed Graphviz (dot) with apt-get"
    fi
    # The docs test opens the built site in headless Chromium (Debian's package).
    if [[ $mode == test ]] && ! command -v chromium >/dev/null 2>&1 && apt_install chromium; then
        say "installed Chromium with apt-get (for the docs site test)"
    fi
    echo "$want" >"$stamp"
    say "packages installed in $((SECONDS - started)) s"
fi
if ! command -v dot >/dev/null 2>&1; then
    say "note: Graphviz's 'dot' is not installed; mg.draw renders through pygraphviz or shows DOT text"
fi

# --- go ------------------------------------------------------------------------------
export PATH=$venv/bin:$PATH
if [[ $mode == course ]]; then
    say "opening JupyterLab on the course, in lessons/ (Ctrl-C to stop)"
    # Jupyter refuses to start as root unless told; containers often run as root.
    [[ $(id -u) -eq 0 ]] && set -- --allow-root "$@"
    # Rooted at the course so that lessons can open ../exercises; it lands on lessons/.
    exec "$venv/bin/jupyter" lab --ServerApp.root_dir="$root" \
        --LabApp.default_url=/lab/tree/lessons "$@"
fi
if [[ $mode == grade ]]; then
    exec "$vpy" -m minigrad.grade "$@"
fi
say "running the test suite"
exec "$vpy" -m pytest "$@"
