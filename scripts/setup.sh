# Sourced by the other scripts: checks Python, makes .venv and installs the Python packages into
# it, and the front-end packages of package-lock.json into node_modules.
#
# The Python packages are those of requirements-dev.txt (the site's and the tools' that test it),
# or of the file named by REQUIREMENTS: REQUIREMENTS=requirements.txt installs only what the site
# runs, as a server does (docs/deploy.md).
# After sourcing, the working directory is the repository root and .venv/bin is first on PATH.

set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
REPO_ROOT="$(pwd)"
export REPO_ROOT

PYTHON="${PYTHON:-python3}"

if ! command -v "$PYTHON" >/dev/null 2>&1; then
    echo "干瞪眼 Online needs Python 3.11–3.13; found no $PYTHON." \
        "Install one and put it first on PATH as python3." >&2
    exit 1
fi

py_version="$("$PYTHON" -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null || true)"
case "$py_version" in
    3.11 | 3.12 | 3.13) ;;
    *)
        # 3.10 reached its end of life in October 2026, and the code needs 3.11 (enum.StrEnum).
        echo "干瞪眼 Online needs Python 3.11–3.13; found ${py_version:-a $PYTHON that does not run}." \
            "Install one and put it first on PATH as python3." >&2
        exit 1
        ;;
esac

VENV="$REPO_ROOT/.venv"

# A virtual environment whose interpreter no longer runs (moved, or its Python removed) is rebuilt.
if [ -d "$VENV" ] && ! "$VENV/bin/python" -c '' >/dev/null 2>&1; then
    echo "Rebuilding .venv: its Python no longer runs."
    rm -rf "$VENV"
fi

if [ ! -d "$VENV" ]; then
    echo "Creating .venv with Python $py_version ..."
    "$PYTHON" -m venv "$VENV"
fi

REQUIREMENTS="${REQUIREMENTS:-requirements-dev.txt}"
if [ ! -f "$REQUIREMENTS" ]; then
    echo "REQUIREMENTS names $REQUIREMENTS, which is not a file (requirements.txt:" \
        "what the site runs; requirements-dev.txt: that and the tools that test it)." >&2
    exit 1
fi
# The stamp covers the file chosen and requirements.txt, which requirements-dev.txt includes.
stamp="$VENV/.requirements.sha256"
wanted="$("$VENV/bin/python" scripts/requirements_stamp.py "$REQUIREMENTS")"
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$wanted" ]; then
    echo "Installing $REQUIREMENTS into .venv ..."
    "$VENV/bin/python" -m pip install --disable-pip-version-check --quiet -r "$REQUIREMENTS"
    echo "$wanted" >"$stamp"
fi

# Front-end packages from the npm registry, pinned by package-lock.json: idiomorph, served with
# the site, and axe-core, which the browser tests run in the pages.
npm_stamp="node_modules/.package-lock.sha256"
npm_wanted="$("$VENV/bin/python" -c '
import hashlib
print(hashlib.sha256(open("package-lock.json", "rb").read()).hexdigest())
')"
if [ ! -f "$npm_stamp" ] || [ "$(cat "$npm_stamp")" != "$npm_wanted" ]; then
    if ! command -v npm >/dev/null 2>&1; then
        echo "干瞪眼 Online needs Node.js with npm to install its front-end packages" \
            "(package.json); found no npm. Install it (apt-get install -y npm) and try again." >&2
        exit 1
    fi
    echo "Installing the front-end packages (package-lock.json) into node_modules ..."
    npm ci --no-audit --no-fund --loglevel=error
    echo "$npm_wanted" >"$npm_stamp"
fi

export PATH="$VENV/bin:$PATH"
export VIRTUAL_ENV="$VENV"
