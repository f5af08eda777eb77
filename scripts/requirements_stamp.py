"""The stamp of the Python packages a virtual environment was given: a digest of the
requirements file chosen (its name and text) and of requirements.txt, which it may include.
scripts/setup.sh installs again when a venv's stamp is not the one of the files now; the test
of serve.sh's production site compares it before sharing the test's venv with the script."""

import hashlib
import sys
from pathlib import Path


def requirements_stamp(chosen: str, root: Path) -> str:
    digest = hashlib.sha256(chosen.encode())
    for name in (chosen, "requirements.txt"):
        digest.update((root / name).read_bytes())
    return digest.hexdigest()


if __name__ == "__main__":
    print(requirements_stamp(sys.argv[1], Path.cwd()))
