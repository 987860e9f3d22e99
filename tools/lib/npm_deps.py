"""The npm packages a tool's page needs, at the versions its lock file pins.

    install(src, out, package, say)

copies src/package.json and src/package-lock.json into out/npm and runs
npm ci there when they changed or the package is missing; returns the
package's folder (out/npm/node_modules/PACKAGE).  make slides (reveal.js,
docs/lecture/) and make web (@xterm/xterm, tools/web/) use it.
"""
import os
import shutil
import subprocess


class NpmError(Exception):
    pass


def install(src, out, package, say=print):
    npm = os.path.join(out, "npm")
    os.makedirs(npm, exist_ok=True)
    fresh = False
    for f in ("package.json", "package-lock.json"):
        s, d = os.path.join(src, f), os.path.join(npm, f)
        if not os.path.exists(d) or open(s).read() != open(d).read():
            shutil.copy(s, d)
            fresh = True
    pkg = os.path.join(npm, "node_modules", package)
    if fresh or not os.path.isdir(pkg):
        if not shutil.which("npm"):
            raise NpmError(f"npm is missing (bash tools/deps.sh installs it with its group "
                           f"for {package})")
        say(f"npm ci ({package})")
        r = subprocess.run(["npm", "ci", "--no-audit", "--no-fund", "--loglevel=error"], cwd=npm,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                           timeout=300)
        if r.returncode != 0:
            raise NpmError(f"npm ci failed ({r.returncode}) in {npm}:\n{r.stdout[-2000:]}")
    return pkg
