"""Debian's packages belong to Debian's python3 (/usr/bin/python3), which
may not be the python3 on the PATH (a virtualenv, pyenv).

    need("websockets", "python3-websockets", "web")

imports the module; when this python3 has not got it and Debian's is
another one, runs the calling script again with Debian's (os.execv: same
arguments); otherwise exits with what installs it (tools/deps.sh GROUP).
"""
import importlib
import os
import sys

DEBIAN_PYTHON = "/usr/bin/python3"


def need(module, package, group):
    try:
        return importlib.import_module(module)
    except ImportError:
        pass
    if os.path.exists(DEBIAN_PYTHON) and \
            os.path.realpath(sys.executable) != os.path.realpath(DEBIAN_PYTHON):
        os.execv(DEBIAN_PYTHON, [DEBIAN_PYTHON, os.path.abspath(sys.argv[0])] + sys.argv[1:])
    sys.exit(f"{os.path.basename(sys.argv[0])}: {package} is missing "
             f"(bash tools/deps.sh {group} installs it)")
