"""The machine a measurement ran on, for the headers of make bench and make
profile: the host CPU model and the QEMU version."""

import platform
import subprocess


def host_cpu_model(cpuinfo="/proc/cpuinfo"):
    try:
        with open(cpuinfo, encoding="utf-8", errors="replace") as f:
            for line in f:
                k, _, v = line.partition(":")
                if k.strip() in ("model name", "Model", "Hardware") and v.strip():
                    return v.strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def qemu_version(arch):
    try:
        out = subprocess.run([f"qemu-system-{arch}", "--version"], capture_output=True,
                             text=True, timeout=10).stdout
        return out.splitlines()[0].strip() if out else "unknown"
    except (OSError, subprocess.SubprocessError):
        return "unknown"
